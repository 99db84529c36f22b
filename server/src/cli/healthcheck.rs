//! `lastwords healthcheck`: for container health checks, as the image has no curl.

use std::net::SocketAddr;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};

/// The settings it uses (the port it asks on), by id: its help lists only these.
pub const SETTINGS: &[&str] = &["config", "host", "port"];

/// A process of this binary in the container, as it was started.
pub struct Started {
    pub args: Vec<std::ffi::OsString>,
    /// Where a relative `--config` is found.
    pub folder: std::path::PathBuf,
}

/// In a container the host is process 1, or the one child of an init (`docker run
/// --init`), and it may have been given its address as flags (`docker run IMAGE serve
/// --port 9000`) that the health check, started apart with the image's environment, does
/// not see. Their command lines, where they are this binary's, say where it listens.
/// Outside a container process 1 has many children, none of them asked.
pub fn container_processes() -> Vec<Started> {
    let children = std::fs::read_to_string("/proc/1/task/1/children").unwrap_or_default();
    let only_child = match children.split_whitespace().collect::<Vec<_>>()[..] {
        [child] => Some(child),
        _ => None,
    };
    let this = std::env::current_exe().ok();
    std::iter::once("1")
        .chain(only_child)
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).ok() == this)
        .filter_map(|pid| {
            use std::os::unix::ffi::OsStrExt as _;
            let line = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let args = line
                .split(|&byte| byte == 0)
                .filter(|arg| !arg.is_empty())
                .map(|arg| std::ffi::OsStr::from_bytes(arg).to_owned())
                .collect();
            let folder = std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
            Some(Started { args, folder })
        })
        .collect()
}

/// GET /healthz (or /readyz) at `addr`, this host's own, over a plain TCP connection.
pub async fn run(mut addr: SocketAddr, ready: bool, limit: Duration) -> anyhow::Result<()> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    if addr.ip().is_unspecified() {
        addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    let path = if ready { "/readyz" } else { "/healthz" };
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await?;
        Ok::<_, std::io::Error>(response)
    };
    let response = tokio::time::timeout(limit, exchange)
        .await
        .map_err(|_| {
            anyhow!(
                "http://{addr}{path} did not answer within {} s",
                limit.as_secs()
            )
        })?
        .with_context(|| format!("cannot reach http://{addr}{path}"))?;
    let text = String::from_utf8_lossy(&response);
    let status = text.lines().next().unwrap_or_default();
    if status.split_whitespace().nth(1) == Some("200") {
        Ok(())
    } else {
        let body = text.split("\r\n\r\n").nth(1).unwrap_or_default().trim();
        bail!("http://{addr}{path} answered {status:?}: {body}")
    }
}
