//! The Dinos host: serves the site's HTML (React rendered inside an embedded JS engine),
//! its static assets, a JSON API and the live phrase feed.
//!
//! The host in four rooms, with what stands around them. Each line imports only from
//! the lines above it, except `config`, which names the option types the rooms define:
//!
//! - Leaves that import nothing of the crate: [`text`] (the content rules, counting, the
//!   look-alike skeleton), [`site`] (the site's own facts), [`escape`] (inert JSON, URL
//!   checks), [`error`] (every outcome a client can see, as a response), [`metrics`]
//!   (every series `/metrics` serves; the parts that count hold its counters).
//! - [`feed`]: the versioned phrase list every reader shares ([`feed::Feed`]), the list
//!   itself ([`feed::list`]), its pages ([`feed::paging`]), a word checked against it
//!   ([`feed::check`], [`feed::alternatives`]).
//! - [`live`]: the feed fanned out to browsers: the hub, the caps on live sockets, one
//!   WebSocket's framing and session.
//! - [`store`]: where the feed comes from (the embedded SQLite store, Firestore) and where
//!   the operator's CLI writes, chosen once as a [`store::Backend`].
//! - [`render`]: React on JS engines behind a bounded queue, the page cache, the render
//!   service that runs a page's render through both, the HTML shell, each page's head
//!   for search engines, the props, content encodings, the UI build (embedded in the
//!   binary, or in development read from a folder), the cards, the sitemap and feed,
//!   robots and icons.
//! - [`net`]: under the accept loop: the listener, the connection budget and deadlines,
//!   who a request comes from and how fast it may ask, the headers of every response.
//! - [`config`]: one typed configuration, each setting declared once; it gathers each
//!   room's option type (`PoolOptions`, `SocketCaps`, `FirestoreSettings`, the proxies
//!   and the rate), and each room reads its own group.
//! - [`state`]: what the handlers share; [`routes`]: the router, its request layer and
//!   its handlers; [`server`]: the accept loop and a graceful stop; [`app`]: the running
//!   app, built one way for the binary, the tests and the benches (in development it
//!   follows the UI build's folder too).
//! - [`cli`]: each subcommand of the binary (serve, phrases, healthcheck, config).

pub mod app;
pub mod cli;
pub mod config;
pub mod error;
pub mod escape;
pub mod feed;
pub mod live;
pub mod metrics;
pub mod net;
pub mod render;
pub mod routes;
pub mod server;
pub mod site;
pub mod state;
pub mod store;
pub mod text;
