//! `lastwords serve`: binds, starts the store and the renderers, and serves until a signal.

use std::sync::Arc;

use crate::config::Config;
use crate::net::listener;
use crate::render::assets::Ui;
use crate::server;

pub async fn run(config: Arc<Config>) -> anyhow::Result<()> {
    clock_in_range()?;
    let ui = Ui::load(config.ui_dir.as_deref()).map_err(anyhow::Error::msg)?;
    let listener = listener::open_listener(&config.http).map_err(anyhow::Error::msg)?;
    let bound = listener.local_addr()?;
    let config = {
        let mut config = Config::clone(&config);
        config.listening_on(bound);
        Arc::new(config)
    };
    let state = crate::app::start(config.clone(), ui).await?;
    let feed = state.feed.clone();
    // The cards' fonts are unpacked and their backdrop drawn now, off any request, so
    // the first card shared after a deploy comes as fast as any other.
    let painter = state.cards.painter();
    tokio::task::spawn_blocking(move || painter.warm());
    // Listening for signals before saying "serving": a signal sent on that line is heard.
    let stop = server::shutdown_signals()?;
    // What an operator reading one line wants to know of the host that started.
    let snapshot = feed.current();
    let store = match &config.store.firestore {
        Some(firestore) => format!("firestore {}/{}", firestore.project, firestore.collection),
        None => format!("embedded {}", config.store.data_dir.display()),
    };
    tracing::info!(
        url = %format!("http://{bound}"),
        public_url = %config.site.public_url,
        version = env!("CARGO_PKG_VERSION"),
        engine = if cfg!(feature = "v8") { "v8" } else { "quickjs" },
        env = config.environment.name(),
        store,
        phrases = snapshot.loaded.then_some(snapshot.list.len()),
        "serving"
    );
    server::serve(listener, state, stop).await?;
    feed.stop_tasks().await;
    tracing::info!("stopped");
    Ok(())
}

/// The HTTP server dates every answer and cannot outside 1970–9999: with the clock there
/// it would say "serving" and drop every connection, `/healthz` included.
fn clock_in_range() -> anyhow::Result<()> {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let now = SystemTime::now();
    let last = UNIX_EPOCH + Duration::from_secs(253_402_300_799);
    if now < UNIX_EPOCH || now > last {
        let seconds = match now.duration_since(UNIX_EPOCH) {
            Ok(after) => format!("{} s after", after.as_secs()),
            Err(before) => format!("{} s before", before.duration().as_secs()),
        };
        anyhow::bail!(
            "the system clock reads {seconds} 1970-01-01, outside 1970 to 9999, where HTTP dates \
             are; set it right (NTP) and start again"
        );
    }
    Ok(())
}
