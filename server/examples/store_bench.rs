//! Embedded store benchmark, as an operator meets the store: the release binary's CLI
//! and a served host with a live WebSocket client.
//!
//! Usage: cargo run --release --example store_bench -- <lastwords-binary> <work-dir>
//! (scripts/bench store passes these.)
//!
//! It reports, for 1,000 and 100,000 stored phrases: `phrases import` of the whole list
//! into an empty store, the latency of one add (the store's own call, and a whole
//! `lastwords phrases add` process), and, at 100,000, the time from starting a CLI add
//! to a live client holding the phrase.

#[path = "support/host.rs"]
mod host;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use lastwords::store::embedded::EmbeddedStore;
use lastwords::store::{NewPhrase, PhraseStore as _};
use tokio_tungstenite::tungstenite::client::IntoClientRequest as _;

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [binary, work_dir] = args.as_slice() else {
        return Err("usage: store_bench <lastwords-binary> <work-dir>".into());
    };
    let binary = PathBuf::from(binary);
    let work_dir = PathBuf::from(work_dir);
    for size in [1_000, 100_000] {
        let data_dir = work_dir.join(format!("store-{size}"));
        println!("-- {size} phrases");
        import(&binary, &data_dir, size)?;
        add_latency(&binary, &data_dir).await?;
        if size == 100_000 {
            cli_to_live_client(&binary, &data_dir).await?;
        }
    }
    Ok(())
}

fn lastwords(binary: &Path, data_dir: &Path) -> Command {
    let mut command = Command::new(binary);
    command
        .env_remove("LASTWORDS_CONFIG")
        .env_remove("LASTWORDS_FIRESTORE_PROJECT")
        .env_remove("FIRESTORE_EMULATOR_HOST")
        .env("RUST_LOG", "warn")
        .arg("--data-dir")
        .arg(data_dir);
    command
}

fn run(command: &mut Command) -> Result<String, Error> {
    let output = command.output()?;
    if !output.status.success() {
        return Err(format!(
            "{command:?} failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// `phrases init`, then `phrases import` of `size` phrases, timed as a whole process.
fn import(binary: &Path, data_dir: &Path, size: usize) -> Result<(), Error> {
    std::fs::create_dir_all(data_dir)?;
    run(lastwords(binary, data_dir).args(["phrases", "init"]))?;
    let file = data_dir.join("import.json");
    let entries: Vec<serde_json::Value> = (0..size)
        .map(|i| serde_json::json!({ "word": format!("PHRASE {i:06}"), "name": format!("Minter {}", i % 997) }))
        .collect();
    std::fs::write(&file, serde_json::to_vec(&entries)?)?;
    let started = Instant::now();
    let report = run(lastwords(binary, data_dir)
        .args(["phrases", "import"])
        .arg(&file))?;
    println!(
        "import of {size} phrases into an empty store: {:.2} s ({})",
        started.elapsed().as_secs_f64(),
        report.lines().last().unwrap_or_default()
    );
    Ok(())
}

/// One add at a time: 500 through the store's own call (a connection kept open, as in
/// a long-lived process), then 20 whole CLI processes.
async fn add_latency(binary: &Path, data_dir: &Path) -> Result<(), Error> {
    let store = EmbeddedStore::open(data_dir)?;
    let mut calls = Vec::new();
    for i in 0..500 {
        let phrase = NewPhrase::validated(&format!("ADDED {i}"), "Bench")?;
        let started = Instant::now();
        store.add(phrase).await?;
        calls.push(started.elapsed());
    }
    let mut processes = Vec::new();
    for i in 0..20 {
        let started = Instant::now();
        run(lastwords(binary, data_dir).args([
            "phrases",
            "add",
            &format!("CLI ADDED {i}"),
            "--name",
            "Bench",
        ]))?;
        processes.push(started.elapsed());
    }
    println!(
        "add: the store's call p50 {:.2} ms, p99 {:.2} ms (500 adds); a whole `phrases add` process p50 {:.1} ms, max {:.1} ms (20)",
        percentile(&mut calls, 50),
        percentile(&mut calls, 99),
        percentile(&mut processes, 50),
        percentile(&mut processes, 100),
    );
    Ok(())
}

/// Serves the store, holds one live client at the current version, and times ten CLI
/// adds from the process starting to the client holding the phrase.
async fn cli_to_live_client(binary: &Path, data_dir: &Path) -> Result<(), Error> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    drop(listener);
    let mut server = lastwords(binary, data_dir)
        .args(["serve", "--port", &port.to_string()])
        .spawn()?;
    let outcome = async {
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        let version = loop {
            let server = std::net::SocketAddr::from(([127, 0, 0, 1], port));
            if let Ok((200, _)) = host::get(server, "/readyz").await
                && let Ok(version) = host::current_version(server).await
            {
                break version;
            }
            if started.elapsed() > Duration::from_secs(60) {
                return Err::<(), Error>("the host did not start within 60 s".into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        println!(
            "host start with the store: ready in {:.2} s, RSS {} MiB",
            started.elapsed().as_secs_f64(),
            host::rss_kib(server.id())? / 1024
        );
        let mut request =
            format!("ws://127.0.0.1:{port}/api/phrases/live?since={version}").into_client_request()?;
        request.headers_mut().insert("origin", base.parse()?);
        let (mut socket, _) = tokio_tungstenite::connect_async(request).await?;
        let mut latencies = Vec::new();
        for i in 0..10 {
            let word = format!("LIVE {i}");
            let started = Instant::now();
            let mut add = lastwords(binary, data_dir);
            add.args(["phrases", "add", &word, "--name", "Bench"]);
            let adding = tokio::task::spawn_blocking(move || run(&mut add));
            loop {
                let message = tokio::time::timeout(Duration::from_secs(10), socket.next())
                    .await?
                    .ok_or("the live socket closed")??;
                if message.to_text().is_ok_and(|text| text.contains(&word)) {
                    break;
                }
            }
            latencies.push(started.elapsed());
            adding.await??;
        }
        println!(
            "CLI add to a live client, 100,000 stored: p50 {:.1} ms, max {:.1} ms (10 adds, from the CLI process starting)",
            percentile(&mut latencies, 50),
            percentile(&mut latencies, 100),
        );
        Ok(())
    }
    .await;
    let _ = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    server.wait()?;
    outcome
}

fn percentile(samples: &mut [Duration], p: usize) -> f64 {
    samples.sort();
    let index = (samples.len() * p / 100).min(samples.len() - 1);
    samples[index].as_secs_f64() * 1000.0
}
