//! The Dinos host: serves the site's HTML (React rendered inside an embedded JS engine),
//! its static assets, a JSON API and the live phrase feed.
//!
//! - [`config`]: the typed configuration, parsed once.
//! - [`text`]: upper-casing and character counting shared by every check.
//! - [`snapshot`]: the versioned phrase list every reader shares.
//! - [`store`]: where phrases come from (embedded JSON store, Firestore).
//! - [`renderer`]: JS engines on their own threads, behind a bounded queue.
//! - [`page_cache`]: rendered pages per route and data version.
//! - [`shell`]: the HTML document around React's markup; [`escape`]: inert JSON, URL checks.
//! - [`pages`]: what each route renders.
//! - [`hub`]: the phrase feed fanned out; [`live`]: the WebSocket per browser.
//! - [`metrics`]: counters, the request span and `/metrics`.
//! - [`app`]: the router and handlers; [`http`]: negotiation and headers; [`error`]: outcomes.
//! - [`assets`]: the UI build embedded in the binary; [`site_files`]: robots, sitemap, icons.

pub mod app;
pub mod assets;
pub mod config;
pub mod error;
pub mod escape;
pub mod http;
pub mod hub;
pub mod live;
pub mod metrics;
pub mod page_cache;
pub mod pages;
pub mod renderer;
pub mod shell;
pub mod site_files;
pub mod snapshot;
pub mod store;
pub mod text;

use std::net::SocketAddr;

use tokio::net::TcpListener;

/// Serves `state` on `listener` until `shutdown` completes: then stops accepting,
/// closes every WebSocket with 1001 (so browsers reconnect elsewhere) and finishes
/// in-flight requests.
pub async fn serve(
    listener: TcpListener,
    state: app::AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sockets = state.shutdown.clone();
    let stopping = state.shutdown.clone();
    let hub = state.hub.clone();
    let deadline = state.config.shutdown_timeout;
    let app = app::router(state).into_make_service_with_connect_info::<SocketAddr>();
    let server = axum::serve(listener, app).with_graceful_shutdown(async move {
        shutdown.await;
        sockets.cancel();
    });
    // In-flight requests get `shutdown_timeout` to finish; then the process goes anyway.
    tokio::select! {
        served = server => served?,
        () = async {
            stopping.cancelled().await;
            tokio::time::sleep(deadline).await;
        } => tracing::warn!(deadline_s = deadline.as_secs(), "requests still running at the shutdown deadline"),
    }
    // Upgraded sockets outlive the HTTP server; give their close frames a moment.
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(2);
    while hub.listeners() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    Ok(())
}
