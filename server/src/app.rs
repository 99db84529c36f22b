//! The running app, built one way for the binary, the tests and the benches: the store
//! followed into a feed, the renderers started, the state shared by every handler.
//! [`crate::routes::router`] makes the router of it; [`crate::server::serve`] serves it.

use std::sync::Arc;

use crate::config::Config;
use crate::feed::Feed;
use crate::metrics::Metrics;
use crate::render::assets::Ui;
use crate::state::AppState;
use crate::store::Backend;

/// Starts following `config`'s store and the renderers of `ui`.
pub async fn start(config: Arc<Config>, ui: Ui) -> anyhow::Result<AppState> {
    let feed = Feed::new();
    let metrics = Arc::new(Metrics::new());
    Backend::of(&config.store).follow(&feed, &metrics).await?;
    // Starting a JS engine per renderer thread blocks.
    let state =
        tokio::task::spawn_blocking(move || AppState::start(config, ui, feed, metrics)).await??;
    Ok(state)
}
