//! The Dinos host: serves the site's HTML (React rendered inside an embedded JS engine),
//! its static assets, a JSON API and the live phrase feed.
//!
//! Modules are listed from the bottom up; each imports only those above it in this list.
//!
//! - [`text`]: upper-casing and character counting shared by every check.
//! - [`site`]: the site's own facts (its name, what it is).
//! - [`escape`]: inert JSON, URL checks.
//! - [`snapshot`]: the versioned phrase list every reader shares; [`check`]: a word
//!   checked against it, with the minted phrase it reads like and
//!   [`alternatives`] when it is taken.
//! - [`store`]: where phrases come from (embedded SQLite store, Firestore), chosen once
//!   as a [`store::Backend`].
//! - [`config`]: the typed configuration, parsed once.
//! - [`renderer`]: JS engines on their own threads, behind a bounded queue.
//! - [`negotiate`]: content encodings and validators; [`page_cache`]: rendered pages per
//!   route and data, evicted by what each change changed.
//! - [`assets`]: the UI build embedded in the binary; [`shell`]: the HTML document around
//!   React's markup; [`site_files`]: robots, icons; [`listings`]: the sitemap and the
//!   Atom feed of phrase pages.
//! - [`card`]: each phrase's card image, drawn with resvg and cached.
//! - [`hub`]: the phrase feed fanned out; [`socket_limits`]: the caps on live sockets;
//!   [`websocket`]: one socket's framing and session.
//! - [`client`]: who a request comes from (behind trusted proxies too);
//!   [`rate_limit`]: requests per client address.
//! - [`listener`]: the listening socket and the open-file limit; [`connections`]: the
//!   connection budget and each connection's deadlines.
//! - [`metrics`]: counters and the request span.
//! - [`headers`]: the headers every response carries and requests refused early.
//! - [`error`]: every outcome a client can see, as a response.
//! - [`state`]: what the handlers share; [`app`]: the running app, built one way for
//!   the binary, the tests and the benches.
//! - [`routes`]: the router and its handlers.
//! - [`server`]: the accept loop and a graceful stop.
//! - [`cli`]: each subcommand of the binary (serve, phrases, healthcheck, config check).

pub mod alternatives;
pub mod app;
pub mod assets;
pub mod card;
pub mod check;
pub mod cli;
pub mod client;
pub mod config;
pub mod connections;
pub mod error;
pub mod escape;
pub mod headers;
pub mod hub;
pub mod listener;
pub mod listings;
pub mod metrics;
pub mod negotiate;
pub mod page_cache;
pub mod paging;
pub mod phrase_list;
pub mod props;
pub mod rate_limit;
pub mod renderer;
pub mod routes;
pub mod server;
pub mod shell;
pub mod site;
pub mod site_files;
pub mod snapshot;
pub mod socket_limits;
pub mod state;
pub mod store;
pub mod text;
pub mod websocket;
