//! `lastwords healthcheck`: for container health checks, as the image has no curl.

use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};

use crate::config::HttpLimits;

/// The settings it uses (the port it asks on), by id: its help lists only these.
pub const SETTINGS: &[&str] = &["config", "host", "port"];

/// GET /healthz (or /readyz) on this host's own port, over a plain TCP connection.
pub async fn run(http: &HttpLimits, ready: bool, limit: Duration) -> anyhow::Result<()> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut addr = http.addr;
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
