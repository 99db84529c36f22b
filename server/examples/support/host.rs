//! What the benchmarks read of the host under test: its memory from /proc, and its
//! answers over plain HTTP/1.1.

use std::io;
use std::net::SocketAddr;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

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

/// GET `path` over a connection of its own: the status code and the body.
pub async fn get(server: SocketAddr, path: &str) -> io::Result<(u16, String)> {
    let mut stream = tokio::net::TcpStream::connect(server).await?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {server}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await?;
    let response = String::from_utf8_lossy(&response);
    let (head, body) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| io::Error::other(format!("no body from {path}")))?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| io::Error::other(format!("no status from {path}")))?;
    Ok((status, body.to_owned()))
}

/// The version of the list the host serves now.
pub async fn current_version(server: SocketAddr) -> io::Result<u64> {
    let (_, body) = get(server, "/api/phrases").await?;
    let json: serde_json::Value = serde_json::from_str(&body).map_err(io::Error::other)?;
    json["version"]
        .as_u64()
        .ok_or_else(|| io::Error::other("no version in /api/phrases"))
}
