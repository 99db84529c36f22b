//! `lastwords serve`: binds, starts the store and the renderers, and serves until a signal.

use std::sync::Arc;

use crate::assets::Ui;
use crate::config::Config;
use crate::listener;
use crate::server;
use crate::snapshot::Feed;
use crate::state::AppState;

pub async fn run(config: Arc<Config>) -> anyhow::Result<()> {
    let ui = Ui::embedded().map_err(anyhow::Error::msg)?;
    let listener = listener::open_listener(&config.http).map_err(anyhow::Error::msg)?;
    let bound = listener.local_addr()?;
    let config = {
        let mut config = Config::clone(&config);
        config.listening_on(bound);
        Arc::new(config)
    };
    let feed = Feed::new();
    super::feed_from_store(&config.store, &feed).await?;
    let state = {
        let config = config.clone();
        let feed = feed.clone();
        tokio::task::spawn_blocking(move || AppState::start(config, ui, feed)).await??
    };
    // The cards' fonts are unpacked and their backdrop drawn now, off any request, so
    // the first card shared after a deploy comes as fast as any other.
    let painter = state.cards.painter();
    tokio::task::spawn_blocking(move || painter.warm());
    // Listening for signals before saying "serving": a signal sent on that line is heard.
    let stop = server::shutdown_signals()?;
    tracing::info!(
        url = %format!("http://{bound}"),
        public_url = %config.site.public_url,
        "serving"
    );
    server::serve(listener, state, stop).await?;
    feed.stop_tasks().await;
    tracing::info!("stopped");
    Ok(())
}
