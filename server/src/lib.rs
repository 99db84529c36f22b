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

use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt as _;

/// Serves `state` on `listener` until `shutdown` completes: then stops accepting,
/// closes every WebSocket with 1001 (so browsers reconnect elsewhere) and gives
/// in-flight requests `shutdown_timeout` to finish.
pub async fn serve(
    listener: TcpListener,
    state: app::AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let sockets = state.shutdown.clone();
    let hub = state.hub.clone();
    let deadline = state.config.shutdown_timeout;
    // A client gets the request timeout to send its headers too, so connections that
    // trickle bytes (slowloris) are closed instead of piling up.
    let header_timeout = state.config.request_timeout;
    let router = app::router(state);
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, usually: wait for some to close.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service =
            router
                .clone()
                .map_request(move |mut request: axum::extract::Request<Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    request
                });
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), TowerToHyperService::new(service))
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    sockets.cancel();
    // In-flight requests get `shutdown_timeout` to finish; then the process goes anyway.
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(deadline) => {
            tracing::warn!(deadline_s = deadline.as_secs(), "requests still running at the shutdown deadline");
        }
    }
    // Upgraded sockets outlive their connections; give their close frames a moment.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(2);
    while hub.listeners() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}
