//! What the handlers share: one [`AppState`], with [`FromRef`] for the parts a handler
//! or middleware needs on its own.

use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::render::props::SiteProps;
use axum::extract::FromRef;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::feed::Feed;
use crate::live::hub::Hub;
use crate::live::socket_limits::SocketLimits;
use crate::metrics::Metrics;
use crate::net::connections::{self, Connections};
use crate::net::rate_limit::RateLimit;
use crate::render::assets::{CurrentUi, Ui};
use crate::render::card::{self, Cards};
use crate::render::listings::Listings;
use crate::render::page_cache::PageCache;
use crate::render::pool::{RenderError, RendererPool};
use crate::render::service::PageRenderer;
use crate::render::site_files::SiteFiles;

/// Everything the handlers share, behind one pointer: axum clones the state for every
/// request (the route's copy, then the `State` extractor's), and a clone of the fields
/// themselves cost some twenty atomic increments and two mutex locks (the cancellation
/// tokens) each time, on cache lines every core shares.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What [`AppState`] points to.
pub struct Shared {
    /// The effective configuration.
    pub config: Arc<Config>,
    /// Renders the pages on the threads that run React, and keeps them.
    pub pages: PageRenderer,
    /// The current phrase list.
    pub feed: Feed,
    /// Fans the feed out to every WebSocket.
    pub hub: Hub,
    /// Cancelled when the server stops, so long-lived sockets close with 1001.
    pub shutdown: CancellationToken,
    /// The WebSocket sessions, which outlive the connections they were upgraded from:
    /// the server waits on it for their close frames.
    pub sessions: TaskTracker,
    /// The UI build: the binary's, or (development) the newest in a folder.
    pub ui: CurrentUi,
    /// The site facts every page receives, built once from the configuration.
    site: Arc<SiteProps>,
    /// The sitemap and the Atom feed, made once per list version.
    pub listings: Arc<Listings>,
    /// robots.txt, icons and the Open Graph image.
    pub site_files: Arc<SiteFiles>,
    /// Each phrase's card image, drawn when first asked for.
    pub cards: Cards,
    /// Live sockets under their caps.
    pub sockets: Arc<SocketLimits>,
    /// Open TCP connections under the budget and in the reserve.
    pub connections: Arc<Connections>,
    /// Request, render and feed counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// Turns for the renders of `/words?check=` (each is a render of its own): one fewer
    /// than the renderers, at least one, so a flood of them always leaves the pages'
    /// own renders a renderer.
    pub check_renders: Arc<Semaphore>,
    /// Requests per client address.
    pub rate_limit: RateLimit,
    /// Set on SIGTERM: `/readyz` answers 503 while the host drains.
    pub draining: AtomicBool,
}

impl AppState {
    /// Starts the renderers (each loads the server bundle; this blocks for a moment)
    /// and the hub, counting in `metrics` (which the store's follower counts in too).
    /// Call it inside a tokio runtime.
    pub fn start(
        config: Arc<Config>,
        ui: Ui,
        feed: Feed,
        metrics: Arc<Metrics>,
    ) -> Result<Self, RenderError> {
        let renderer = RendererPool::start(ui.server_bundle.clone(), config.render.clone())?;
        let site = SiteProps::of(&config.site);
        let site_files = Arc::new(SiteFiles::new(&config, ui.icon_svg, ui.og_svg));
        let page_cache = Arc::new(PageCache::new(&metrics));
        page_cache.follow(&feed);
        let listings = Listings::follow(&feed, &metrics);
        let cards = Cards::new(card::painter(&ui.card), &metrics);
        let hub = Hub::start(feed.clone(), metrics.socket_messages.clone());
        hub.send_away_when_stale(config.store.ready_stale_after);
        let ui = CurrentUi::new(ui);
        Ok(Self(Arc::new(Shared {
            pages: PageRenderer::new(renderer, page_cache, metrics.clone(), ui.clone()),
            cards,
            metrics,
            check_renders: Arc::new(Semaphore::new(config.render.threads.max(2) - 1)),
            rate_limit: RateLimit::new(config.http.rate),
            draining: AtomicBool::new(false),
            sockets: SocketLimits::new(config.sockets),
            connections: Connections::new(
                connections::budget(config.http.max_connections),
                config.http.max_connections_per_ip,
            ),
            site_files,
            config,
            listings,
            hub,
            feed,
            shutdown: CancellationToken::new(),
            sessions: TaskTracker::new(),
            ui,
            site: Arc::new(site),
        })))
    }

    /// The site facts every page receives.
    pub fn site_props(&self) -> &SiteProps {
        &self.site
    }
}

macro_rules! part {
    ($($field:ident: $type:ty),* $(,)?) => {
        $(impl FromRef<AppState> for $type {
            fn from_ref(state: &AppState) -> Self {
                state.$field.clone()
            }
        })*
    };
}

part! {
    config: Arc<Config>,
    feed: Feed,
    metrics: Arc<Metrics>,
    site_files: Arc<SiteFiles>,
}
