//! Fan-out benchmark: holds many WebSocket clients on `/api/phrases/live`, changes the
//! embedded store, and measures how long every client takes to receive the change, and
//! how much server memory each idle connection costs.
//!
//! Usage: cargo run --release --example ws_bench -- <base-url> <data-dir> <server-pid> [clients] [rounds]
//! (scripts/bench starts the server and passes these.)

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use tokio::net::TcpSocket;
use tokio::sync::{Barrier, mpsc};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [base, data_dir, pid, rest @ ..] = args.as_slice() else {
        return Err("usage: ws_bench <base-url> <data-dir> <server-pid> [clients] [rounds]".into());
    };
    let clients: usize = rest.first().map_or(Ok(10_000), |s| s.parse())?;
    let rounds: usize = rest.get(1).map_or(Ok(5), |s| s.parse())?;
    let url = url::Url::parse(base)?;
    let server: SocketAddr = format!(
        "{}:{}",
        url.host_str().unwrap_or("127.0.0.1"),
        url.port().unwrap_or(80)
    )
    .parse()?;
    let ws_url = format!("ws://{server}/api/phrases/live");
    // The host refuses pages of other origins; a browser on the site sends this one.
    let origin = url.origin().ascii_serialization();
    let rss_before = rss_kib(pid)?;

    // Each client reports the arrival time of every message after the first.
    let (arrivals, mut arrived) = mpsc::unbounded_channel::<Instant>();
    let connected = Arc::new(Barrier::new(clients + 1));
    let started = Instant::now();
    let mut failures = 0usize;
    let mut tasks = Vec::with_capacity(clients);
    for index in 0..clients {
        // Spread clients over source addresses: one address runs slow past ~14k sockets.
        let source = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + (index % 8) as u8));
        let socket = TcpSocket::new_v4()?;
        socket.bind(SocketAddr::new(source, 0))?;
        let stream = match socket.connect(server).await {
            Ok(stream) => stream,
            Err(_) => {
                failures += 1;
                continue;
            }
        };
        let mut request = ws_url.as_str().into_client_request()?;
        request.headers_mut().insert("origin", origin.parse()?);
        let (mut ws, _) = match tokio_tungstenite::client_async(request, stream).await {
            Ok(pair) => pair,
            Err(_) => {
                failures += 1;
                continue;
            }
        };
        let arrivals = arrivals.clone();
        let connected = connected.clone();
        tasks.push(tokio::spawn(async move {
            let _snapshot = ws.next().await;
            connected.wait().await;
            while let Some(Ok(message)) = ws.next().await {
                if matches!(message, Message::Text(_)) {
                    let _ = arrivals.send(Instant::now());
                }
            }
        }));
    }
    if failures > 0 {
        return Err(format!("{failures} of {clients} clients could not connect").into());
    }
    connected.wait().await;
    println!(
        "connected {clients} clients in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_idle = rss_kib(pid)?;
    println!(
        "server RSS: {} MiB before, {} MiB with {clients} idle clients: {:.1} KB per connection",
        rss_before / 1024,
        rss_idle / 1024,
        (rss_idle.saturating_sub(rss_before)) as f64 * 1.024 / clients as f64
    );

    let mut all = Vec::with_capacity(clients * rounds);
    for round in 0..rounds {
        let changed_at = Instant::now();
        add_phrase(Path::new(data_dir), round)?;
        let mut latencies = Vec::with_capacity(clients);
        let deadline = changed_at + Duration::from_secs(10);
        while latencies.len() < clients {
            match tokio::time::timeout_at(deadline.into(), arrived.recv()).await {
                Ok(Some(at)) => latencies.push(at.duration_since(changed_at)),
                _ => break,
            }
        }
        if latencies.len() < clients {
            return Err(format!(
                "round {round}: only {} of {clients} clients got the change",
                latencies.len()
            )
            .into());
        }
        latencies.sort();
        println!(
            "round {}: every client had the change after {:.0} ms (p50 {:.0} ms, p99 {:.0} ms)",
            round + 1,
            ms(latencies[clients - 1]),
            ms(latencies[clients / 2]),
            ms(latencies[clients * 99 / 100])
        );
        all.extend(latencies);
        tokio::time::sleep(Duration::from_millis(500)).await;
        while arrived.try_recv().is_ok() {}
    }
    all.sort();
    println!(
        "change -> every client ({clients} clients, {rounds} changes): p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
        ms(all[all.len() / 2]),
        ms(all[all.len() * 99 / 100]),
        ms(all[all.len() - 1])
    );
    for task in tasks {
        task.abort();
    }
    Ok(())
}

/// Adds one phrase the way an operator's edit would: write a new file, then rename.
fn add_phrase(data_dir: &Path, round: usize) -> Result<(), Box<dyn std::error::Error>> {
    let path: PathBuf = data_dir.join("phrases.json");
    let mut phrases: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    phrases.push(serde_json::json!({
        "id": format!("zzBench{round:013}"),
        "word": format!("BENCH ROUND {round}"),
        "name": "Bench",
    }));
    let temporary = path.with_extension("json.bench.tmp");
    std::fs::write(&temporary, serde_json::to_vec(&phrases)?)?;
    std::fs::rename(&temporary, &path)?;
    Ok(())
}

fn rss_kib(pid: &str) -> Result<u64, Box<dyn std::error::Error>> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .ok_or("no VmRSS line")?;
    Ok(line
        .split_whitespace()
        .nth(1)
        .ok_or("no VmRSS value")?
        .parse()?)
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
