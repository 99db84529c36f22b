//! What the benchmarks read of a process from /proc.

use std::io;

/// Resident memory of process `pid`, in KiB.
pub fn rss_kib(pid: impl std::fmt::Display) -> io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|value| value.parse().ok())
        .ok_or_else(|| io::Error::other(format!("/proc/{pid}/status has no VmRSS value")))
}
