//! The fast path: a cached page or card answered on the connection, before the router.
//!
//! A cached `/`, `/words`, phrase page or card is most of what the host serves, and
//! the router's layers (a boxed future and a boxed service clone per `from_fn`, the
//! timeout's timer, the concurrency limit's permit, the handler's copy of the request
//! headers) cost more than the answer itself. Here a plain GET of one of those pages,
//! already cached in the encoding asked for, is answered with the page's prepared
//! head (the same headers the router would send, made once per page and encoding) and
//! its bytes, after the same guards: the Host check (on the connection, before this),
//! the refusal of malformed requests, the rate limit, and the count in `/metrics`.
//! Everything else goes to the router as before: other methods (HEAD too), a query,
//! `If-None-Match`, a miss, an encoding not yet made, a refusal to give, or request
//! logging at `debug` (the router's request span).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::http::{HeaderMap, HeaderValue, Method, Request, header};
use bytes::Bytes;

use super::card::{self, card_head};
use super::pages::{PAGE_CACHE_CONTROL, page_head};
use crate::metrics::RouteCount;
use crate::net::headers::{self, PreparedHead};
use crate::render::card::Card;
use crate::render::negotiate::{Encoding, preferred_encoding};
use crate::render::page_cache::{CachedPage, PageKey};
use crate::state::AppState;

/// A response ready to send: its headers (hyper adds Date and Content-Length) and body,
/// with status 200.
#[derive(Debug)]
pub struct Prepared {
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// What the fast path knows of the site's routes: shared by every connection, never
/// cloned per request (the paths are owned strings).
pub struct FastPath {
    state: AppState,
    /// `/`'s count in `/metrics`.
    home: RouteCount,
    /// `/words` and `/Words`, with the counts of their templates.
    words: [Words; 2],
}

struct Words {
    path: String,
    list: RouteCount,
    phrase: RouteCount,
    card: RouteCount,
}

/// A cached page in one encoding, or a card: a body and the head made for it.
pub enum Hit {
    Page {
        page: Arc<CachedPage>,
        encoding: Encoding,
        body: Bytes,
    },
    Card(Arc<Card>),
}

impl Hit {
    /// The head and the body; a head and a body of two versions cannot meet, both
    /// being the same page's (or card's).
    pub fn parts(&self, hsts: bool) -> (&PreparedHead, &Bytes) {
        match self {
            Hit::Page {
                page,
                encoding,
                body,
            } => (page_head(page, *encoding, body, hsts), body),
            Hit::Card(card) => (card_head(card, hsts), &card.png),
        }
    }

    /// The validator of what [`Hit::parts`] sends.
    pub fn etag(&self) -> &str {
        match self {
            Hit::Page { page, encoding, .. } => page.etag(*encoding),
            Hit::Card(card) => &card.etag,
        }
    }

    /// The head of a 304 as the router sends it for this page or card, but the Date:
    /// the validator, a card's caching, and the security headers (HSTS when `hsts`).
    /// Made once per page version and per card.
    pub fn not_modified(&self, hsts: bool) -> &Bytes {
        let make = |cache_control: HeaderValue, page: bool, etag: &HeaderValue| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CACHE_CONTROL, cache_control);
            if page {
                headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
            } else {
                headers::embeddable(&mut headers);
            }
            headers.insert(header::ETAG, etag.clone());
            headers::add_security_headers(&mut headers, hsts);
            let mut wire = b"HTTP/1.1 304 Not Modified\r\n".to_vec();
            headers::write_lines(&headers, &mut wire);
            Bytes::from(wire)
        };
        match self {
            Hit::Page { page, encoding, .. } => page.not_modified(*encoding, || {
                make(PAGE_CACHE_CONTROL, true, page.etag_header(*encoding))
            }),
            Hit::Card(card) => {
                card.not_modified(|| make(card::CACHE_CONTROL, false, &card.etag_header))
            }
        }
    }

    fn prepared(&self, hsts: bool) -> Prepared {
        let (head, body) = self.parts(hsts);
        Prepared {
            headers: head.headers.clone(),
            body: body.clone(),
        }
    }
}

/// A fast answer's count in `/metrics`, by its status.
pub struct Tally<'a> {
    route: &'a RouteCount,
    started: Instant,
}

impl Tally<'_> {
    pub fn count(self, not_modified: bool) {
        if not_modified {
            self.route.observe_not_modified(self.started.elapsed());
        } else {
            self.route.observe(self.started.elapsed());
        }
    }
}

/// Which cached answer a path asks for.
enum Target<'w, 'p> {
    Home,
    Words(&'w Words),
    Phrase(&'w Words, &'p str),
    Card(&'w Words, &'p str),
}

impl FastPath {
    pub fn new(state: AppState) -> Self {
        let metrics = &state.metrics;
        let words = |path: String| Words {
            list: metrics.route_ok(&path),
            phrase: metrics.route_ok(&format!("{path}/{{id}}")),
            card: metrics.route_ok(&format!("{path}/{{id}}/card.png")),
            path,
        };
        let lower = state.config.site.words_path();
        let capitalised = format!("/{}", state.config.site.product_name);
        Self {
            home: metrics.route_ok("/"),
            words: [words(lower), words(capitalised)],
            state,
        }
    }

    /// The cached answer to `request` from `client`, or `None` for the router to answer.
    pub async fn answer<B>(&self, request: &Request<B>, client: IpAddr) -> Option<Prepared> {
        if request.method() != Method::GET
            || request.uri().query().is_some()
            || request.headers().contains_key(header::IF_NONE_MATCH)
            || Self::logging()
        {
            return None;
        }
        let started = Instant::now();
        let target = self.target(request.uri().path())?;
        if headers::problem(request).is_some() {
            return None;
        }
        let encoding = preferred_encoding(request.headers());
        let (hit, tally) = self.hit(target, encoding, client, started).await?;
        tally.count(false);
        Some(hit.prepared(self.hsts()))
    }

    /// Whether responses carry HSTS.
    pub fn hsts(&self) -> bool {
        self.state.config.hsts()
    }

    /// Whether requests are logged at `debug`, which only the router's request span does.
    pub fn logging() -> bool {
        tracing::enabled!(target: "lastwords::metrics", tracing::Level::DEBUG)
    }

    /// The cached answer to a GET of `path` (no query, checked by the caller as
    /// [`headers::problem`] does) in `encoding`, from `client`, and its count in
    /// `/metrics`, to be made once the caller knows whether it answers 200 or 304.
    pub async fn cached(
        &self,
        path: &str,
        encoding: Encoding,
        client: IpAddr,
    ) -> Option<(Hit, Tally<'_>)> {
        let started = Instant::now();
        let target = self.target(path)?;
        self.hit(target, encoding, client, started).await
    }

    async fn hit<'a>(
        &'a self,
        target: Target<'a, '_>,
        encoding: Encoding,
        client: IpAddr,
        started: Instant,
    ) -> Option<(Hit, Tally<'a>)> {
        let state = &self.state;
        let (route, hit) = match target {
            Target::Card(words, id) => {
                let snapshot = state.feed.current();
                let card = state.cards.cached(snapshot.list.get(id)?).await?;
                (&words.card, Hit::Card(card))
            }
            page => {
                let (route, key) = match page {
                    Target::Home => (&self.home, PageKey::Home),
                    Target::Words(words) => (
                        &words.list,
                        PageKey::Words {
                            version: state.feed.current().version,
                        },
                    ),
                    Target::Phrase(words, id) => (
                        &words.phrase,
                        PageKey::Phrase(state.feed.current().list.get(id)?.clone()),
                    ),
                    Target::Card(..) => return None,
                };
                let page = state.pages.cache().cached(&key).await?;
                let body = page.ready(encoding)?;
                (
                    route,
                    Hit::Page {
                        page,
                        encoding,
                        body,
                    },
                )
            }
        };
        // Past its rate the router answers: 429 with Retry-After, counted there.
        state.rate_limit.check(client).ok()?;
        Some((hit, Tally { route, started }))
    }

    fn target<'w, 'p>(&'w self, path: &'p str) -> Option<Target<'w, 'p>> {
        if path == "/" {
            return Some(Target::Home);
        }
        let (words, rest) = self.words.iter().find_map(|words| {
            let rest = path.strip_prefix(words.path.as_str())?;
            Some((words, rest))
        })?;
        if rest.is_empty() {
            return Some(Target::Words(words));
        }
        let id = rest.strip_prefix('/')?;
        let (id, card) = match id.strip_suffix("/card.png") {
            Some(id) => (id, true),
            None => (id, false),
        };
        // An id the router would percent-decode, or one with a slash, is left to it.
        if id.is_empty() || id.contains(['/', '%']) {
            return None;
        }
        Some(if card {
            Target::Card(words, id)
        } else {
            Target::Phrase(words, id)
        })
    }
}
