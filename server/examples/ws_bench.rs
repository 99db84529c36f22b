//! Fan-out benchmark: holds many WebSocket clients on `/api/phrases/live`, changes the
//! embedded store, and measures how long every client takes to receive the change, and
//! how much server memory each idle connection costs.
//!
//! Usage: cargo run --release --example ws_bench -- <base-url> <data-dir> <server-pid> [clients] [rounds]
//! (scripts/bench starts the server and passes these.)
//!
//! With `WS_BENCH_SNAPSHOT=1` the clients connect without the version they have, so
//! each is sent the whole list first; with 0 rounds only the memory is reported.
//!
//! With `WS_BENCH_FLOOR=1` the server is `fanout_floor` (a minimal tokio broadcast, the
//! floor for this machine) and each change is asked of it with `GET /change/<round>`.
//!
//! With `WS_BENCH_SOAK_SECS=N` it soaks instead: the clients stay connected for N
//! seconds while the store changes twice a second and `wrk` loads `/words`; it reports
//! delivery p50/p99 over every change, HTTP requests/s and errors, dropped sockets, and
//! server RSS at the start and the end.

#[path = "support/host.rs"]
mod host;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use tokio::net::TcpSocket;
use tokio::sync::{Barrier, mpsc};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

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
    // Browsers connect with the version their page was rendered with, so an idle
    // socket is sent nothing; without it each would first get the whole list.
    let version = host::current_version(server).await?;
    // With WS_BENCH_SNAPSHOT set each client connects without it instead, and is sent
    // the whole list: what memory the host keeps after a big message went to every socket.
    let whole_list = std::env::var_os("WS_BENCH_SNAPSHOT").is_some();
    let ws_url = if whole_list {
        format!("ws://{server}/api/phrases/live")
    } else {
        format!("ws://{server}/api/phrases/live?since={version}")
    };
    // The host refuses pages of other origins; a browser on the site sends this one.
    let origin = url.origin().ascii_serialization();
    let rss_before = host::rss_kib(pid)?;
    // tungstenite zero-fills its whole read buffer before every read: with the default
    // 128 KiB the clients, not the server, would take most of the CPU of a fan-out.
    let client_config = WebSocketConfig::default().read_buffer_size(4096);

    // Each client reports the arrival time of every message after the first.
    // With the newest bench round named in the message, for the soak.
    let (arrivals, mut arrived) = mpsc::unbounded_channel::<(Instant, Option<usize>)>();
    let dropped = Arc::new(AtomicUsize::new(0));
    let connected = Arc::new(Barrier::new(clients + 1));
    let started = Instant::now();
    let mut failures = 0usize;
    let mut first_failure: Option<String> = None;
    let mut tasks = Vec::with_capacity(clients);
    for index in 0..clients {
        // Spread clients over source addresses: one address runs slow past ~14k sockets.
        let source = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + (index % 8) as u8));
        let socket = TcpSocket::new_v4()?;
        socket.bind(SocketAddr::new(source, 0))?;
        let stream = match socket.connect(server).await {
            Ok(stream) => stream,
            Err(error) => {
                failures += 1;
                first_failure.get_or_insert_with(|| format!("connect: {error}"));
                continue;
            }
        };
        let mut request = ws_url.as_str().into_client_request()?;
        request.headers_mut().insert("origin", origin.parse()?);
        let (mut ws, _) =
            match tokio_tungstenite::client_async_with_config(request, stream, Some(client_config))
                .await
            {
                Ok(pair) => pair,
                Err(error) => {
                    failures += 1;
                    first_failure.get_or_insert_with(|| format!("handshake: {error}"));
                    continue;
                }
            };
        let arrivals = arrivals.clone();
        let connected = connected.clone();
        let dropped = dropped.clone();
        tasks.push(tokio::spawn(async move {
            connected.wait().await;
            while let Some(Ok(message)) = ws.next().await {
                if let Message::Text(text) = message {
                    let _ = arrivals.send((Instant::now(), newest_round(&text)));
                }
            }
            dropped.fetch_add(1, Ordering::Relaxed);
        }));
    }
    if failures > 0 {
        return Err(format!(
            "{failures} of {clients} clients could not connect (the first: {})",
            first_failure.unwrap_or_default()
        )
        .into());
    }
    connected.wait().await;
    println!(
        "connected {clients} clients in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss_idle = host::rss_kib(pid)?;
    println!(
        "server RSS: {} MiB before, {} MiB with {clients} idle clients{}: {:.1} KB per connection",
        rss_before / 1024,
        rss_idle / 1024,
        if whole_list {
            " that were each sent the whole list"
        } else {
            ""
        },
        (rss_idle.saturating_sub(rss_before)) as f64 * 1.024 / clients as f64
    );

    if let Some(seconds) = std::env::var("WS_BENCH_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        let report = soak(
            base,
            Path::new(data_dir),
            pid,
            clients,
            seconds,
            &mut arrived,
        )
        .await?;
        println!("{report}");
        let lost = dropped.load(Ordering::Relaxed);
        println!("sockets dropped during the soak: {lost} of {clients}");
        return Ok(());
    }

    // Against fanout_floor the change is asked of it over HTTP instead of made in a store.
    let floor = std::env::var_os("WS_BENCH_FLOOR").is_some();
    let mut all = Vec::with_capacity(clients * rounds);
    let own_pid = std::process::id().to_string();
    // A second run against the same store names its phrases apart from the first's.
    let first_round: usize = std::env::var("WS_BENCH_FIRST_ROUND")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    // Opened before the first change, as a writing process would have it: a change is
    // timed from its INSERT, not from opening the file.
    let writer = if floor {
        None
    } else {
        Some(Writer::open(Path::new(data_dir))?)
    };
    for round in first_round..first_round + rounds {
        let cpu_before = (cpu_time(pid)?, cpu_time(&own_pid)?);
        let changed_at = Instant::now();
        match &writer {
            Some(writer) => writer.add(round)?,
            None => drop(host::get(server, &format!("/change/{round}")).await?),
        }
        let made_in = changed_at.elapsed();
        let mut latencies = Vec::with_capacity(clients);
        let deadline = changed_at + Duration::from_secs(10);
        while latencies.len() < clients {
            match tokio::time::timeout_at(deadline.into(), arrived.recv()).await {
                Ok(Some((at, _))) => latencies.push(at.duration_since(changed_at)),
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
        let cpu = (
            cpu_time(pid)? - cpu_before.0,
            cpu_time(&own_pid)? - cpu_before.1,
        );
        latencies.sort();
        println!(
            "round {}: every client had the change after {:.0} ms (made in {:.1} ms, first {:.1} ms, p50 {:.0} ms, p99 {:.0} ms); \
             CPU per delivered message: server {:.1} µs, clients {:.1} µs",
            round - first_round + 1,
            ms(latencies[clients - 1]),
            ms(made_in),
            ms(latencies[0]),
            ms(latencies[clients / 2]),
            ms(latencies[clients * 99 / 100]),
            cpu.0.as_secs_f64() * 1e6 / clients as f64,
            cpu.1.as_secs_f64() * 1e6 / clients as f64,
        );
        all.extend(latencies);
        tokio::time::sleep(Duration::from_millis(500)).await;
        while arrived.try_recv().is_ok() {}
    }
    all.sort();
    // With no rounds (memory only) there is nothing to sum up.
    if !all.is_empty() {
        println!(
            "change -> every client ({clients} clients, {rounds} changes): p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
            ms(all[all.len() / 2]),
            ms(all[all.len() * 99 / 100]),
            ms(all[all.len() - 1])
        );
    }
    for task in tasks {
        task.abort();
    }
    Ok(())
}

/// The highest `BENCH ROUND n` a live message carries.
fn newest_round(text: &str) -> Option<usize> {
    text.split("BENCH ROUND ")
        .skip(1)
        .filter_map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .max()
}

/// Changes the store every 500 ms for `seconds` while wrk loads /words, and measures
/// how long each change takes to reach every client.
async fn soak(
    base: &str,
    data_dir: &Path,
    pid: &str,
    clients: usize,
    seconds: u64,
    arrived: &mut mpsc::UnboundedReceiver<(Instant, Option<usize>)>,
) -> Result<String, Box<dyn std::error::Error>> {
    let rss_start = host::rss_kib(pid)?;
    let wrk = tokio::process::Command::new("wrk")
        .args([
            "-t1",
            "-c32",
            &format!("-d{seconds}s"),
            "--timeout",
            "5s",
            "--latency",
        ])
        .arg(format!("{base}/words"))
        .output();
    let wrk = tokio::spawn(wrk);
    let started = Instant::now();
    let mut changed_at: Vec<Instant> = Vec::new();
    // Per round, how many clients have it and the latencies seen.
    let mut latencies: Vec<Duration> = Vec::new();
    let mut seen: Vec<usize> = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let mut sample = tokio::time::interval(Duration::from_secs(10));
    let mut rss_samples = Vec::new();
    let first_round = 1000;
    while started.elapsed() < Duration::from_secs(seconds) {
        tokio::select! {
            _ = sample.tick() => rss_samples.push(host::rss_kib(pid)? / 1024),
            _ = tick.tick() => {
                Writer::open(data_dir)?.add(first_round + changed_at.len())?;
                changed_at.push(Instant::now());
                seen.push(0);
            }
            Some((at, Some(round))) = arrived.recv() => {
                // A message carrying round n delivers it; a snapshot after a lag also
                // delivers the rounds before it, counted once per client by the total.
                if let Some(index) = round.checked_sub(first_round)
                    && index < changed_at.len()
                {
                    latencies.push(at.duration_since(changed_at[index]));
                    seen[index] += 1;
                }
            }
        }
    }
    // Let the last changes land.
    let settle = Instant::now() + Duration::from_secs(5);
    while let Ok(Some((at, Some(round)))) =
        tokio::time::timeout_at(settle.into(), arrived.recv()).await
    {
        if let Some(index) = round.checked_sub(first_round)
            && index < changed_at.len()
        {
            latencies.push(at.duration_since(changed_at[index]));
            seen[index] += 1;
        }
    }
    let rss_end = host::rss_kib(pid)?;
    let wrk = wrk.await??;
    let wrk_out = String::from_utf8_lossy(&wrk.stdout);
    latencies.sort();
    let missed: usize = seen.iter().map(|&got| clients.saturating_sub(got)).sum();
    let pick = |q: usize| {
        latencies
            .get(latencies.len() * q / 100)
            .map_or(f64::NAN, |d| ms(*d))
    };
    let rps = wrk_out
        .lines()
        .find(|line| line.starts_with("Requests/sec:"))
        .unwrap_or("Requests/sec: ?")
        .to_owned();
    let errors: Vec<&str> = wrk_out
        .lines()
        .filter(|line| line.contains("Non-2xx") || line.contains("Socket errors"))
        .collect();
    Ok(format!(
        "soak {seconds} s: {clients} clients, {} changes (2/s)\n\
         delivery over every change and client: p50 {:.0} ms, p99 {:.0} ms, max {:.0} ms; \
         deliveries missing (a client never saw a change by itself; lagged clients get a snapshot): {missed}\n\
         HTTP /words under wrk -t1 -c32: {rps}; errors: {}\n\
         server RSS: {} MiB at the start, {} MiB at the end; every 10 s: {:?} MiB",
        changed_at.len(),
        pick(50),
        pick(99),
        latencies.last().map_or(f64::NAN, |d| ms(*d)),
        if errors.is_empty() {
            "none".to_owned()
        } else {
            errors.join("; ")
        },
        rss_start / 1024,
        rss_end / 1024,
        rss_samples,
    ))
}

/// Another process writing to the embedded store's database, whose commits the host
/// picks up from the file events.
struct Writer(rusqlite::Connection);

impl Writer {
    fn open(data_dir: &Path) -> Result<Writer, Box<dyn std::error::Error>> {
        let path: PathBuf = data_dir.join(lastwords::store::embedded::FILE_NAME);
        let connection = rusqlite::Connection::open(path)?;
        connection.busy_timeout(std::time::Duration::from_secs(10))?;
        Ok(Writer(connection))
    }

    /// Adds one phrase in a transaction of its own.
    fn add(&self, round: usize) -> Result<(), Box<dyn std::error::Error>> {
        self.0.execute(
            "INSERT INTO phrases (id, word, name) VALUES (?1, ?2, 'Bench')",
            [
                format!("zzBench{round:013}"),
                format!("BENCH ROUND {round}"),
            ],
        )?;
        Ok(())
    }
}

/// CPU time used so far by every thread of process `pid` (the scheduler's own count,
/// in nanoseconds, so a 100 ms fan-out is measured finer than clock ticks allow).
fn cpu_time(pid: &str) -> Result<Duration, Box<dyn std::error::Error>> {
    let mut total = 0u64;
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))? {
        // A thread may end between the listing and the read.
        if let Ok(stat) = std::fs::read_to_string(task?.path().join("schedstat")) {
            total += stat
                .split_whitespace()
                .next()
                .and_then(|ns| ns.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    Ok(Duration::from_nanos(total))
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
