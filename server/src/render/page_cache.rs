//! Rendered pages, kept per route and data, with bounded memory.
//!
//! `/` renders once for the life of the process; `/words` renders again only when the
//! phrase list changes. Each further page of it (`?after=`, `?before=`) is kept by
//! where it starts, whatever the version, together with the span of the list it shows,
//! and each phrase's page by the phrase as it is: a change evicts only the pages it
//! changed (that phrase's page, the list pages whose span it falls in, every list page
//! when the count each is headed with changed), not the rest.
//! Every page lives in one [`moka`] cache weighed by its size, so a crawler walking
//! 100,000 phrase pages keeps memory bounded; concurrent misses for one page wait for
//! one render (moka's `try_get_with`), while misses for different pages render at once,
//! each on a renderer thread of its own.
//!
//! Each page is stored with an ETag (weak for a page that carries the list's version:
//! [`CachedPage::carrying_version`]) and its compressed variants, each made once
//! when first asked for, so a cached hit costs no rendering and no compression.

use std::collections::{HashMap, VecDeque};
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use axum::http::HeaderValue;
use bytes::Bytes;
use moka::future::Cache;

use crate::feed::list::{Anchor, Cursor, ListPage, Phrase};
use crate::feed::{Change, Delta, Feed, Snapshot};
use crate::metrics::Metrics;
use crate::net::headers::PreparedHead;
use crate::render::negotiate::{self, Effort, Encoding};
use prometheus::IntCounter;

/// Which page, at which data.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PageKey {
    Home,
    Words {
        version: u64,
    },
    NotFound,
    /// The page of a phrase removed while this host ran (410).
    Removed,
    /// A further page of `/words` by where it starts (`after=…` or `before=…`), valid
    /// until a change falls in its [`Span`].
    Further(Arc<str>),
    /// A phrase's page, for the phrase as it is: a changed phrase is another key.
    Phrase(Arc<Phrase>),
}

impl PageKey {
    /// The route the page is rendered as.
    pub fn route(&self) -> &'static str {
        match self {
            PageKey::Home => "home",
            PageKey::Words { .. } | PageKey::Further(_) => "words",
            PageKey::NotFound | PageKey::Removed => "not_found",
            PageKey::Phrase(_) => "phrase",
        }
    }

    /// Where the last good render of a whole-route page is kept.
    fn slot(&self) -> Option<usize> {
        match self {
            PageKey::Home => Some(0),
            PageKey::Words { .. } => Some(1),
            PageKey::NotFound => Some(2),
            PageKey::Removed | PageKey::Further(_) | PageKey::Phrase(_) => None,
        }
    }
}

/// The stretch of the newest-first list a further page of `/words` shows: a change at
/// a place inside it changes the page; a change elsewhere does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The newest place the page depends on.
    pub newest: Bound<Cursor>,
    /// The oldest place it depends on (`Unbounded` for the list's last page).
    pub oldest: Bound<Cursor>,
}

impl Span {
    /// What `page`, the page of the list that starts at `anchor`, shows: from the phrase
    /// just newer than it (included: its address is named after that phrase) to its last
    /// phrase the way it runs, or to the end of the list when there is no page beyond.
    pub fn of_page(anchor: Anchor<'_>, page: &ListPage) -> Self {
        let newest = page.start.clone().map_or(Bound::Unbounded, Bound::Included);
        let oldest = match (anchor, &page.next, page.phrases.last()) {
            (Anchor::Before(cursor), ..) => Bound::Excluded(cursor.clone()),
            (_, Some(_), Some(last)) => Bound::Included(Cursor::of(last)),
            _ => Bound::Unbounded,
        };
        Span { newest, oldest }
    }

    /// Whether a phrase at `at` (added, removed or changed) belongs to the span.
    pub fn holds(&self, at: &Cursor) -> bool {
        let after_newest = match &self.newest {
            Bound::Included(newest) => at >= newest,
            Bound::Excluded(newest) => at > newest,
            Bound::Unbounded => true,
        };
        let before_oldest = match &self.oldest {
            Bound::Included(oldest) => at <= oldest,
            Bound::Excluded(oldest) => at < oldest,
            Bound::Unbounded => true,
        };
        after_newest && before_oldest
    }
}

/// A finished document as it is kept and served: a page's HTML (or a sitemap's, the
/// feed's XML) with its validators. Each compressed variant is made the first time a
/// client asks for it: a miss then costs one compression, not two.
#[derive(Debug)]
pub struct CachedPage {
    pub html: Bytes,
    /// A validator per encoding (identity, gzip, brotli): the quoted start of the
    /// SHA-256 of `html` (less the list's version: [`CachedPage::carrying_version`]),
    /// with the coding's name after it for a compressed variant. Each
    /// variant is a representation of its own (RFC 9110, 8.8.3): a cache that holds two
    /// and asks with both tags learns from the 304's tag which one to serve.
    etags: [(Box<str>, HeaderValue); 3],
    /// For a further page of `/words`: what of the list it shows, from which version.
    shows: Option<(Span, u64)>,
    /// Set once a change fell in `shows`: the page is rendered again when next asked for.
    stale: AtomicBool,
    gzip: OnceLock<Bytes>,
    br: OnceLock<Bytes>,
    /// The whole response head per encoding (identity, gzip, brotli), made the first
    /// time it is sent: a cached hit clones it rather than building it header by header.
    heads: [OnceLock<PreparedHead>; 3],
    /// The head of a 304 per encoding, status line and all.
    not_modified: [OnceLock<Bytes>; 3],
}

impl CachedPage {
    pub fn new(html: String) -> Self {
        let digest = negotiate::digest(&[html.as_bytes()]);
        Self::validated(html, &digest, "")
    }

    /// A page that carries the list version it was cut from (`"version":N` in its props,
    /// where the live feed resumes from). Versions count a host process's changes, not
    /// the list's: after a restart, or from another host behind the same load balancer,
    /// the same page comes with another number. Its validator leaves the number out, so
    /// a browser or a crawler that revalidates there gets a 304 rather than the page
    /// again, and is weak (RFC 9110, 8.8.1) since the bodies it names differ in those
    /// digits. A browser that keeps its copy resumes from a version the host may not
    /// know and is sent a snapshot, as is one whose page another host made.
    pub fn carrying_version(html: String, version: u64) -> Self {
        let number = format!("\"version\":{version}");
        // Props are JSON with every string escaped: `"version":` is only ever their key.
        let Some(at) = html.find(&number) else {
            return Self::new(html);
        };
        let bytes = html.as_bytes();
        let digest = negotiate::digest(&[&bytes[..at], &bytes[at + number.len()..]]);
        Self::validated(html, &digest, "W/")
    }

    fn validated(html: String, digest: &str, weak: &str) -> Self {
        let etags = [
            format!("{weak}\"{digest}\""),
            format!("{weak}\"{digest}-gzip\""),
            format!("{weak}\"{digest}-br\""),
        ]
        .map(|tag| {
            // Hex digits and a coding's name in quotes: always a valid header value.
            let header = HeaderValue::from_str(&tag).unwrap_or(HeaderValue::from_static("\"\""));
            (tag.into_boxed_str(), header)
        });
        Self {
            etags,
            // A rendered document's buffer grew as it was written, to up to twice its
            // length: a kept page holds only its bytes.
            html: Bytes::from(html.into_bytes().into_boxed_slice()),
            shows: None,
            stale: AtomicBool::new(false),
            gzip: OnceLock::new(),
            br: OnceLock::new(),
            heads: Default::default(),
            not_modified: Default::default(),
        }
    }

    /// The validator of the page in `encoding`.
    pub fn etag(&self, encoding: Encoding) -> &str {
        &self.etags[index(encoding)].0
    }

    /// [`CachedPage::etag`] as a header value.
    pub fn etag_header(&self, encoding: Encoding) -> &HeaderValue {
        &self.etags[index(encoding)].1
    }

    /// The page, made from the list at `version`, valid while no change falls in `span`.
    pub fn showing(self, span: Span, version: u64) -> Self {
        Self {
            shows: Some((span, version)),
            ..self
        }
    }

    fn is_stale(&self) -> bool {
        self.stale.load(Ordering::Acquire)
    }

    /// The body in `encoding` if it is already made (identity always is).
    pub fn ready(&self, encoding: Encoding) -> Option<Bytes> {
        match encoding {
            Encoding::Identity => Some(self.html.clone()),
            Encoding::Gzip => self.gzip.get().cloned(),
            Encoding::Brotli => self.br.get().cloned(),
        }
    }

    /// The body in `encoding`, compressing it now if no one asked before. Takes about
    /// a millisecond of CPU for the words page: call it off the async threads.
    pub fn encode(&self, encoding: Encoding) -> Bytes {
        match encoding {
            Encoding::Identity => self.html.clone(),
            Encoding::Gzip => self
                .gzip
                .get_or_init(|| negotiate::compressed(&self.html, encoding, Effort::Kept))
                .clone(),
            Encoding::Brotli => self
                .br
                .get_or_init(|| negotiate::compressed(&self.html, encoding, Effort::Kept))
                .clone(),
        }
    }

    /// The response headers of the page in `encoding`, made by `make` the first time.
    pub fn head(&self, encoding: Encoding, make: impl FnOnce() -> PreparedHead) -> &PreparedHead {
        self.heads[index(encoding)].get_or_init(make)
    }

    /// The head of the page's 304 in `encoding`, made by `make` the first time.
    pub fn not_modified(&self, encoding: Encoding, make: impl FnOnce() -> Bytes) -> &Bytes {
        self.not_modified[index(encoding)].get_or_init(make)
    }

    /// What the page costs the cache: the HTML and room for its two compressed variants.
    fn weight(&self) -> u32 {
        u32::try_from(self.html.len().saturating_mul(3) / 2).unwrap_or(u32::MAX)
    }
}

/// Where `encoding`'s validator, head and 304 are kept.
fn index(encoding: Encoding) -> usize {
    match encoding {
        Encoding::Identity => 0,
        Encoding::Gzip => 1,
        Encoding::Brotli => 2,
    }
}

/// What the cache may weigh at once (HTML, with room for its compressed variants): a
/// phrase's page weighs some 29 KB (19 KB of HTML, 5 KB each brotli and gzip), so some
/// 2,200 of them. What a crawler walks past once makes room for what visitors keep
/// asking for (moka's TinyLFU admission). Under a crawl the process holds about twice
/// this above its idle size (allocator arenas, the compressors' buffers): see
/// docs/benchmarks.md.
const MAX_BYTES: u64 = 64 * 1024 * 1024;

/// Removed phrases remembered, so that their pages answer 410 rather than 404.
const MAX_GONE: u64 = 100_000;

/// Versions whose changes are remembered, for a further page rendered from a list a
/// change has since replaced.
const RECENT_VERSIONS: usize = 256;

/// An error that every waiter of one render receives, each its own copy.
pub trait RenderFailure: Send + Sync + 'static {
    fn again(&self) -> Self;
}

impl RenderFailure for std::convert::Infallible {
    fn again(&self) -> Self {
        *self
    }
}

impl RenderFailure for crate::error::AppError {
    /// Every waiter of a failed render gets the outcome; an internal cause is logged
    /// once, so the copies carry its message only.
    fn again(&self) -> Self {
        match self {
            crate::error::AppError::BadRequest { reason } => {
                crate::error::AppError::bad_request(reason.clone())
            }
            crate::error::AppError::Busy => crate::error::AppError::Busy,
            crate::error::AppError::Unavailable(what) => crate::error::AppError::Unavailable(what),
            crate::error::AppError::Internal(cause) => {
                crate::error::AppError::Internal(anyhow::anyhow!("{cause:#}"))
            }
        }
    }
}

/// Why a render's page is not in the cache.
enum Miss<E> {
    Failed(E),
    /// A change fell in its span while it rendered: served once, not kept.
    Stale(Arc<CachedPage>),
}

/// The fewest further pages watched before those gone from the cache are swept out.
const SWEEP_FROM: usize = 1024;

/// The further pages of `/words` in the cache and the changes of recent versions: each
/// change marks the pages whose span it falls in (a span check per list page, off the
/// request path), and a page rendered from an older list is checked against the
/// changes since when it arrives. One lock, so no change slips between the two.
#[derive(Default)]
struct Watch {
    /// The places each recent version changed, oldest first; `None`: too many to say.
    recent: VecDeque<(u64, Option<Vec<Cursor>>)>,
    /// Versions up to this one are not in `recent`: a page from before it is stale.
    known_from: u64,
    /// The further pages, by key; gone from the cache, they are dropped at the next change,
    /// or when the list has doubled since it was last swept (a client asking for page after
    /// made-up page while nothing changes).
    pages: Vec<(Arc<str>, std::sync::Weak<CachedPage>)>,
    sweep_at: usize,
}

impl Watch {
    fn stale(&self, span: &Span, version: u64) -> bool {
        version < self.known_from
            || self
                .recent
                .iter()
                .filter(|(changed, _)| *changed > version)
                .any(|(_, places)| {
                    places
                        .as_ref()
                        .is_none_or(|places| places.iter().any(|at| span.holds(at)))
                })
    }
}

/// Every rendered page, the removed phrases, and counters for the metrics.
pub struct PageCache {
    pages: Cache<PageKey, Arc<CachedPage>>,
    /// Per whole route, its newest good page: served when a fresh render fails.
    latest: RwLock<HashMap<usize, (PageKey, Arc<CachedPage>)>>,
    /// Ids of phrases removed while this process ran (and not added back).
    gone: Cache<Arc<str>, ()>,
    watch: Mutex<Watch>,
    /// Counts [`Self::clear`]s: a page whose render began before one is served, not kept.
    cleared: AtomicU64,
    /// `metrics`' counts of pages found and rendered.
    hits: IntCounter,
    misses: IntCounter,
}

impl PageCache {
    /// A cache of at most [`MAX_BYTES`] of pages, counted in `metrics`.
    pub fn new(metrics: &Metrics) -> Self {
        Self::with_capacity(MAX_BYTES, metrics)
    }

    /// A cache that weighs at most `bytes` of pages.
    pub fn with_capacity(bytes: u64, metrics: &Metrics) -> Self {
        Self {
            pages: Cache::builder()
                .max_capacity(bytes)
                .weigher(|_, page: &Arc<CachedPage>| page.weight())
                .support_invalidation_closures()
                .build(),
            latest: RwLock::default(),
            gone: Cache::new(MAX_GONE),
            watch: Mutex::default(),
            cleared: AtomicU64::new(0),
            hits: metrics.cache_hits.clone(),
            misses: metrics.cache_misses.clone(),
        }
    }

    /// The page for `key`, rendering it with `render` on a miss. Misses for one key wait
    /// for one render; misses for different keys render at once.
    pub async fn get_or_render<F, Fut, E>(
        &self,
        key: PageKey,
        render: F,
    ) -> Result<Arc<CachedPage>, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<CachedPage, E>>,
        E: RenderFailure,
    {
        let slot = key.slot();
        // The whole routes' pages are read from their slot: the hot path is one read
        // lock, and a new version of `/words` never waits on moka's admission (which
        // may turn away a key it has seen less than the pages it holds).
        if let Some(page) = self.latest_for(&key) {
            self.hits.inc();
            return Ok(page);
        }
        let cleared = self.cleared.load(Ordering::Acquire);
        let page = self.fetch(key.clone(), render, cleared).await?;
        if let Some(slot) = slot
            && let Ok(mut latest) = self.latest.write()
            // Under the lock `clear` empties the slots with: no page from before it stays.
            && self.cleared.load(Ordering::Acquire) == cleared
        {
            latest.insert(slot, (key, page.clone()));
        }
        Ok(page)
    }

    /// The page of `/words` that starts `at` (`after=…` or `before=…`), rendered by
    /// `render` from the list at `version` (with [`CachedPage::showing`] its span) on a miss,
    /// or when a change fell in the span of the one kept.
    pub async fn get_or_render_further<F, Fut, E>(
        &self,
        at: &str,
        render: F,
    ) -> Result<Arc<CachedPage>, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<CachedPage, E>>,
        E: RenderFailure,
    {
        let key = PageKey::Further(at.into());
        if let Some(page) = self.pages.get(&key).await
            && page.is_stale()
        {
            self.pages.invalidate(&key).await;
        }
        let cleared = self.cleared.load(Ordering::Acquire);
        self.fetch(key, render, cleared).await
    }

    /// The page for `key` from the cache or from `render`, kept unless it is stale or
    /// the cache was cleared since `cleared` was read.
    async fn fetch<F, Fut, E>(
        &self,
        key: PageKey,
        render: F,
        cleared: u64,
    ) -> Result<Arc<CachedPage>, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<CachedPage, E>>,
        E: RenderFailure,
    {
        let rendered = AtomicBool::new(false);
        let further = match &key {
            PageKey::Further(at) => Some(at.clone()),
            _ => None,
        };
        let result = self
            .pages
            .try_get_with(key.clone(), async {
                rendered.store(true, Ordering::Relaxed);
                let page = Arc::new(render().await.map_err(Miss::Failed)?);
                if self.cleared.load(Ordering::Acquire) != cleared {
                    return Err(Miss::Stale(page));
                }
                match further {
                    Some(at) if !self.watching(at.clone(), &page) => Err(Miss::Stale(page)),
                    _ => Ok(page),
                }
            })
            .await;
        // A clear between the check above and moka keeping the page: it goes now.
        if result.is_ok() && self.cleared.load(Ordering::Acquire) != cleared {
            self.pages.invalidate(&key).await;
        }
        let counter = if rendered.load(Ordering::Relaxed) {
            &self.misses
        } else {
            &self.hits
        };
        counter.inc();
        result.or_else(|miss| match &*miss {
            Miss::Stale(page) => Ok(page.clone()),
            Miss::Failed(error) => Err(error.again()),
        })
    }

    /// Watches a further page for changes in its span; false if one already came.
    fn watching(&self, at: Arc<str>, page: &Arc<CachedPage>) -> bool {
        let Ok(mut watch) = self.watch.lock() else {
            return false;
        };
        match &page.shows {
            Some((span, version)) if !watch.stale(span, *version) => {
                if watch.pages.len() >= watch.sweep_at {
                    watch.pages.retain(|(_, page)| page.strong_count() > 0);
                    watch.sweep_at = (2 * watch.pages.len()).max(SWEEP_FROM);
                }
                watch.pages.push((at, Arc::downgrade(page)));
                true
            }
            _ => false,
        }
    }

    fn latest_for(&self, key: &PageKey) -> Option<Arc<CachedPage>> {
        let latest = self.latest.read().ok()?;
        match latest.get(&key.slot()?) {
            Some((stored, page)) if stored == key => Some(page.clone()),
            _ => None,
        }
    }

    /// The page for `key` if it is cached and needs no render, counted as a hit; `None`
    /// for a miss (and for a further page of `/words`, which may be stale), which the
    /// caller leaves to [`Self::get_or_render`].
    pub async fn cached(&self, key: &PageKey) -> Option<Arc<CachedPage>> {
        let page = match key.slot() {
            Some(_) => self.latest_for(key),
            None if matches!(key, PageKey::Further(_)) => None,
            None => self.pages.get(key).await,
        }?;
        self.hits.inc();
        Some(page)
    }

    /// The newest page of the route of `key`, whatever its version: served when a
    /// fresh render fails, because an old list beats an error page.
    pub fn last_good(&self, key: &PageKey) -> Option<Arc<CachedPage>> {
        let latest = self.latest.read().ok()?;
        latest.get(&key.slot()?).map(|(_, page)| page.clone())
    }

    /// Drops every page and every last good one (development: a new UI build renders
    /// every page differently). A render that began before is served, not kept.
    pub fn clear(&self) {
        self.cleared.fetch_add(1, Ordering::AcqRel);
        if let Ok(mut latest) = self.latest.write() {
            latest.clear();
        }
        self.pages.invalidate_all();
    }

    /// Whether the phrase `id` was removed while this process ran (and not added back).
    /// Marks `ids` gone: phrases removed before this process started.
    pub async fn remember_gone(&self, ids: Vec<String>) {
        for id in ids {
            self.gone.insert(id.into(), ()).await;
        }
    }

    pub fn is_gone(&self, id: &str) -> bool {
        self.gone.contains_key(id)
    }

    /// Pages cached now, for the metrics.
    pub fn entries(&self) -> u64 {
        self.pages.entry_count()
    }

    /// What the pages cached now weigh (their bytes, compressed variants included), the
    /// cache's own bookkeeping brought up to date first.
    pub async fn bytes(&self) -> u64 {
        self.pages.run_pending_tasks().await;
        self.pages.weighted_size()
    }

    /// Follows `feed`, evicting what each change changed.
    pub fn follow(self: &Arc<Self>, feed: &Feed) {
        let mut deltas = feed.deltas();
        let mut before = feed.current();
        if let Ok(mut watch) = self.watch.lock() {
            watch.known_from = before.version;
        }
        let cache = self.clone();
        let feed_now = feed.clone();
        feed.spawn_task(async move {
            loop {
                match deltas.recv().await {
                    Ok(delta) if delta.from == before.version => {
                        cache.apply(&before, &delta).await;
                        before = delta.after.clone();
                    }
                    Ok(delta) if delta.version <= before.version => {}
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        let now = feed_now.current();
                        cache.lost_track(&before, &now).await;
                        before = now;
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
            }
        });
    }

    /// Evicts what `delta` changed from `before`: each changed phrase's page, the first
    /// page of `/words` of the version before, and the further pages whose span a change
    /// falls in, or every one when the count changed (each is headed with it).
    pub async fn apply(&self, before: &Snapshot, delta: &Delta) {
        self.pages
            .invalidate(&PageKey::Words {
                version: delta.from,
            })
            .await;
        let Some(changes) = &delta.changes else {
            self.lost_track(before, &delta.after).await;
            return;
        };
        let mut places = Vec::with_capacity(changes.len() * 2);
        for change in changes {
            let id = match change {
                Change::Upsert { phrase } => {
                    places.push(Cursor::of(phrase));
                    self.gone.invalidate(phrase.id.as_str()).await;
                    &phrase.id
                }
                Change::Remove { id } => {
                    self.gone.insert(id.as_str().into(), ()).await;
                    id
                }
            };
            if let Some(old) = before.list.get(id) {
                places.push(Cursor::of(old));
                self.pages.invalidate(&PageKey::Phrase(old.clone())).await;
            }
        }
        let same_count = before.list.len() == delta.after.list.len();
        let stale = self.mark(delta.version, same_count.then_some(places));
        for key in stale {
            self.pages.invalidate(&PageKey::Further(key)).await;
        }
    }

    /// After changes no one can list (a first load, a resync, a lag, one of more than
    /// [`crate::feed::MAX_DELTA`] phrases): every further page is stale, each phrase page
    /// is checked against the list, and the phrases `before` had that `now` has not are
    /// gone (410), as one by one they would be.
    async fn lost_track(&self, before: &Snapshot, now: &Snapshot) {
        for phrase in before.list.iter() {
            if now.list.get(&phrase.id).is_none() {
                self.gone.insert(phrase.id.as_str().into(), ()).await;
            }
        }
        let stale = self.mark(now.version, None);
        if let Ok(mut watch) = self.watch.lock() {
            watch.known_from = now.version;
            watch.recent.clear();
        }
        for key in stale {
            self.pages.invalidate(&PageKey::Further(key)).await;
        }
        let list = now.list.clone();
        // Runs in moka's housekeeping, not on a request.
        let _ = self.pages.invalidate_entries_if(move |key, _| match key {
            PageKey::Phrase(phrase) => list.get(&phrase.id) != Some(phrase),
            _ => false,
        });
    }

    /// Remembers what `version` changed and marks the further pages it falls in stale;
    /// returns their keys.
    fn mark(&self, version: u64, places: Option<Vec<Cursor>>) -> Vec<Arc<str>> {
        let Ok(mut watch) = self.watch.lock() else {
            return Vec::new();
        };
        let mut stale = Vec::new();
        watch.pages.retain(|(key, page)| {
            let Some(page) = page.upgrade() else {
                return false;
            };
            let hit = match (&page.shows, &places) {
                (Some((span, _)), Some(places)) => places.iter().any(|at| span.holds(at)),
                _ => true,
            };
            if hit {
                page.stale.store(true, Ordering::Release);
                stale.push(key.clone());
            }
            !hit
        });
        if watch.recent.len() == RECENT_VERSIONS
            && let Some((oldest, _)) = watch.recent.pop_front()
        {
            watch.known_from = oldest;
        }
        watch.recent.push_back((version, places));
        stale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;
    use std::sync::atomic::AtomicU64;
    use std::time::Duration;

    fn phrase(id: &str, created: u64) -> Phrase {
        Phrase {
            id: id.into(),
            word: id.to_uppercase(),
            name: "n".into(),
            created,
            edited: 0,
        }
    }

    fn html(text: &str) -> Result<CachedPage, Infallible> {
        Ok(CachedPage::new(format!("<p>{text}</p>")))
    }

    /// Places `from`..=`to` of the list `p9`(newest)…`p0`(oldest), as a further page shows them.
    fn span(newest: Option<&Phrase>, oldest: Option<&Phrase>) -> Span {
        Span {
            newest: newest.map_or(Bound::Unbounded, |p| Bound::Excluded(Cursor::of(p))),
            oldest: oldest.map_or(Bound::Unbounded, |p| Bound::Included(Cursor::of(p))),
        }
    }

    #[tokio::test]
    async fn renders_once_per_version() {
        let cache = PageCache::new(&Metrics::new());
        let renders = AtomicU64::new(0);
        let render = || async {
            renders.fetch_add(1, Ordering::SeqCst);
            html("words")
        };
        let first = cache
            .get_or_render(PageKey::Words { version: 1 }, render)
            .await
            .unwrap();
        let again = cache
            .get_or_render(PageKey::Words { version: 1 }, render)
            .await
            .unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        cache
            .get_or_render(PageKey::Words { version: 2 }, render)
            .await
            .unwrap();
        assert_eq!(renders.load(Ordering::SeqCst), 2);
        assert_eq!(cache.hits.get(), 1);
        assert!(cache.last_good(&PageKey::Words { version: 9 }).is_some());
    }

    #[tokio::test]
    async fn different_pages_render_at_once_and_one_page_renders_once() {
        let cache = Arc::new(PageCache::new(&Metrics::new()));
        // Each render waits for the other: behind one lock neither would ever finish.
        let both = Arc::new(tokio::sync::Barrier::new(2));
        let further = |at: &'static str| {
            let (cache, both) = (cache.clone(), both.clone());
            tokio::spawn(async move {
                cache
                    .get_or_render_further(at, || async move {
                        both.wait().await;
                        Ok::<_, Infallible>(CachedPage::new(at.into()).showing(span(None, None), 1))
                    })
                    .await
            })
        };
        let (a, b) = (further("after=a"), further("after=b"));
        let pages = tokio::time::timeout(Duration::from_secs(5), async { (a.await, b.await) });
        let (a, b) = pages.await.expect("two pages render at once");
        assert_eq!(&a.unwrap().unwrap().html[..], b"after=a");
        assert_eq!(&b.unwrap().unwrap().html[..], b"after=b");

        let phrase_page = |phrase: Arc<Phrase>, both: Arc<tokio::sync::Barrier>| {
            let cache = cache.clone();
            tokio::spawn(async move {
                cache
                    .get_or_render(PageKey::Phrase(phrase.clone()), || async move {
                        both.wait().await;
                        html(&phrase.id)
                    })
                    .await
            })
        };
        let both = Arc::new(tokio::sync::Barrier::new(2));
        let (x, y) = (Arc::new(phrase("x", 1)), Arc::new(phrase("y", 2)));
        let pages = tokio::time::timeout(Duration::from_secs(5), async {
            let (x, y) = (phrase_page(x, both.clone()), phrase_page(y, both.clone()));
            (x.await, y.await)
        });
        let (x, y) = pages.await.expect("two phrase pages render at once");
        assert!(x.unwrap().is_ok() && y.unwrap().is_ok());

        // Many asking for one uncached page: one render, every one gets it.
        let renders = Arc::new(AtomicU64::new(0));
        let z = Arc::new(phrase("z", 3));
        let askers: Vec<_> = (0..8)
            .map(|_| {
                let (cache, renders, z) = (cache.clone(), renders.clone(), z.clone());
                tokio::spawn(async move {
                    cache
                        .get_or_render(PageKey::Phrase(z), || async {
                            renders.fetch_add(1, Ordering::SeqCst);
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            html("z")
                        })
                        .await
                })
            })
            .collect();
        for asker in askers {
            asker.await.unwrap().unwrap();
        }
        assert_eq!(renders.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_change_evicts_only_the_pages_it_changed() {
        let feed = Feed::new();
        let phrases: Vec<Phrase> = (0..10).map(|n| phrase(&format!("p{n}"), n)).collect();
        feed.replace(phrases.clone());
        let cache = Arc::new(PageCache::new(&Metrics::new()));
        cache.follow(&feed);
        let renders = Arc::new(Mutex::new(Vec::<String>::new()));
        let ask_further = |at: &'static str, shows: Span| {
            let (cache, renders, feed) = (cache.clone(), renders.clone(), feed.clone());
            async move {
                cache
                    .get_or_render_further(at, || async move {
                        let version = feed.current().version;
                        renders.lock().unwrap().push(at.into());
                        Ok::<_, Infallible>(CachedPage::new(at.into()).showing(shows, version))
                    })
                    .await
                    .unwrap()
            }
        };
        let ask_phrase = |phrase: &Phrase| {
            let (cache, renders) = (cache.clone(), renders.clone());
            let phrase = Arc::new(phrase.clone());
            async move {
                cache
                    .get_or_render(PageKey::Phrase(phrase.clone()), || async move {
                        renders.lock().unwrap().push(phrase.id.clone());
                        html(&phrase.id)
                    })
                    .await
                    .unwrap()
            }
        };
        let p = |n: usize| &phrases[n];
        // Newest first: p9 … p0. "after=p8" shows p7…p5; "after=p5" shows p4 to the end.
        let (newer, older) = (span(Some(p(8)), Some(p(5))), span(Some(p(5)), None));
        for _ in 0..2 {
            ask_further("after=p8", newer.clone()).await;
            ask_further("after=p5", older.clone()).await;
            ask_phrase(p(1)).await;
            ask_phrase(p(6)).await;
        }
        assert_eq!(renders.lock().unwrap().len(), 4, "each page rendered once");

        // p1 is renamed: its old page is evicted and the list page showing it renders
        // anew; nothing else does.
        let renamed = Phrase {
            name: "renamed".into(),
            ..p(1).clone()
        };
        feed.apply(vec![Change::Upsert {
            phrase: renamed.clone(),
        }]);
        let evicted = async {
            while cache
                .pages
                .contains_key(&PageKey::Phrase(Arc::new(p(1).clone())))
            {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), evicted)
            .await
            .expect("the renamed phrase's page is evicted");
        renders.lock().unwrap().clear();
        ask_further("after=p8", newer.clone()).await;
        ask_further("after=p5", older.clone()).await;
        ask_phrase(p(6)).await;
        ask_phrase(&renamed).await;
        assert_eq!(*renders.lock().unwrap(), ["after=p5", "p1"]);

        // p6 is removed: its page goes, and every list page, each headed with the count.
        feed.apply(vec![Change::Remove { id: "p6".into() }]);
        let gone = async {
            while !cache.is_gone("p6") {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), gone)
            .await
            .expect("the change is followed");
        assert!(
            !cache
                .pages
                .contains_key(&PageKey::Phrase(Arc::new(p(6).clone())))
        );
        renders.lock().unwrap().clear();
        ask_further("after=p8", newer.clone()).await;
        ask_further("after=p5", older.clone()).await;
        ask_phrase(&renamed).await;
        assert_eq!(*renders.lock().unwrap(), ["after=p8", "after=p5"]);

        // Added back, it is no longer gone.
        feed.apply(vec![Change::Upsert {
            phrase: p(6).clone(),
        }]);
        let back = async {
            while cache.is_gone("p6") {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), back)
            .await
            .expect("an added phrase is not gone");
    }

    #[tokio::test]
    async fn phrases_removed_in_one_change_too_big_to_list_are_gone_too() {
        let feed = Feed::new();
        let many = crate::feed::MAX_DELTA + 1;
        let phrases: Vec<Phrase> = (0..many + 2)
            .map(|n| phrase(&format!("p{n}"), n as u64))
            .collect();
        feed.replace(phrases.clone());
        let cache = Arc::new(PageCache::new(&Metrics::new()));
        cache.follow(&feed);
        feed.apply(
            (0..many)
                .map(|n| Change::Remove {
                    id: format!("p{n}"),
                })
                .collect(),
        );
        let gone = async {
            while !(0..many).all(|n| cache.is_gone(&format!("p{n}"))) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(5), gone)
            .await
            .expect("every removed phrase is gone");
        assert!(
            !cache.is_gone(&format!("p{many}")),
            "a phrase kept is not gone"
        );
    }

    #[tokio::test]
    async fn a_page_a_change_fell_in_while_it_rendered_is_served_but_not_kept() {
        let feed = Feed::new();
        let phrases: Vec<Phrase> = (0..4).map(|n| phrase(&format!("p{n}"), n)).collect();
        feed.replace(phrases.clone());
        let cache = Arc::new(PageCache::new(&Metrics::new()));
        cache.follow(&feed);
        let rendered_at = feed.current().version;
        let mut deltas = feed.deltas();
        feed.apply(vec![Change::Remove { id: "p1".into() }]);
        deltas.recv().await.unwrap();
        // Let the follower see it too.
        while !cache.is_gone("p1") {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let renders = AtomicU64::new(0);
        for _ in 0..2 {
            cache
                .get_or_render_further("after=p3", || async {
                    renders.fetch_add(1, Ordering::SeqCst);
                    Ok::<_, Infallible>(
                        CachedPage::new("old".into())
                            .showing(span(Some(&phrases[3]), None), rendered_at),
                    )
                })
                .await
                .unwrap();
        }
        assert_eq!(
            renders.load(Ordering::SeqCst),
            2,
            "the stale page was not kept"
        );
    }

    #[tokio::test]
    async fn a_clear_drops_every_page_and_one_rendering_across_it_is_not_kept() {
        let cache = PageCache::new(&Metrics::new());
        let renders = AtomicU64::new(0);
        let render = |text: &'static str| {
            let renders = &renders;
            move || async move {
                renders.fetch_add(1, Ordering::SeqCst);
                html(text)
            }
        };
        let phrase_key = PageKey::Phrase(Arc::new(phrase("p", 1)));
        cache
            .get_or_render(PageKey::Home, render("old"))
            .await
            .unwrap();
        cache
            .get_or_render(phrase_key.clone(), render("old"))
            .await
            .unwrap();
        cache.clear();
        assert!(cache.cached(&PageKey::Home).await.is_none());
        assert!(cache.cached(&phrase_key).await.is_none());
        assert!(cache.last_good(&PageKey::Home).is_none());

        // Begun before a clear, ended after it: served once, then rendered again.
        for key in [PageKey::Home, phrase_key.clone()] {
            let across = cache
                .get_or_render(key.clone(), || async {
                    cache.clear();
                    html("across")
                })
                .await
                .unwrap();
            assert_eq!(&across.html[..], b"<p>across</p>");
            assert!(cache.cached(&key).await.is_none(), "{key:?}");
            let fresh = cache
                .get_or_render(key.clone(), render("new"))
                .await
                .unwrap();
            assert_eq!(&fresh.html[..], b"<p>new</p>");
            assert!(cache.cached(&key).await.is_some(), "{key:?}");
        }
        assert_eq!(renders.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn a_span_holds_the_places_between_its_bounds() {
        let (a, b, c, d) = (
            phrase("a", 4),
            phrase("b", 3),
            phrase("c", 2),
            phrase("d", 1),
        );
        let shows = span(Some(&a), Some(&c));
        let holds = |p: &Phrase| shows.holds(&Cursor::of(p));
        assert!(!holds(&a) && holds(&b) && holds(&c) && !holds(&d));
        assert!(span(Some(&b), None).holds(&Cursor::of(&d)));
    }

    #[tokio::test]
    async fn memory_stays_bounded_by_weight() {
        let cache = PageCache::with_capacity(64 * 1024, &Metrics::new());
        for n in 0..200 {
            let key = PageKey::Phrase(Arc::new(phrase(&n.to_string(), n)));
            cache
                .get_or_render(key, || async {
                    Ok::<_, Infallible>(CachedPage::new("x".repeat(4096)))
                })
                .await
                .unwrap();
        }
        cache.pages.run_pending_tasks().await;
        assert!(cache.pages.weighted_size() <= 64 * 1024);
        assert!(cache.entries() < 200);
    }

    #[tokio::test]
    async fn made_up_pages_while_nothing_changes_leave_nothing_behind() {
        // Each a page of its own to the cache, however many a client makes up.
        let cache = PageCache::with_capacity(64 * 1024, &Metrics::new());
        for n in 0..20_000 {
            let at = format!("after={n}-{}", "x".repeat(1400));
            cache
                .get_or_render_further(&at, || async {
                    Ok::<_, Infallible>(
                        CachedPage::new("x".repeat(4096)).showing(span(None, None), 1),
                    )
                })
                .await
                .unwrap();
        }
        cache.pages.run_pending_tasks().await;
        let watched = cache.watch.lock().unwrap().pages.len();
        assert!(
            watched <= 2 * SWEEP_FROM.max(cache.entries() as usize),
            "{watched} pages watched, {} cached",
            cache.entries()
        );
    }

    #[test]
    fn the_etag_follows_the_content_and_names_the_encoding() {
        let (a, again, b) = (
            CachedPage::new("a".into()),
            CachedPage::new("a".into()),
            CachedPage::new("b".into()),
        );
        let encodings = [Encoding::Identity, Encoding::Gzip, Encoding::Brotli];
        for encoding in encodings {
            assert_eq!(a.etag(encoding), again.etag(encoding));
            assert_ne!(a.etag(encoding), b.etag(encoding));
            assert_eq!(a.etag_header(encoding), a.etag(encoding));
        }
        let tags: std::collections::HashSet<_> = encodings.map(|e| a.etag(e)).into();
        assert_eq!(tags.len(), 3, "{tags:?}");
        assert_eq!(
            a.etag(Encoding::Identity),
            crate::render::negotiate::strong_etag(b"a")
        );
        assert!(a.etag(Encoding::Brotli).ends_with("-br\""));
    }

    #[test]
    fn a_page_carrying_a_version_has_one_validator_whatever_the_number() {
        let page = |version: u64, word: &str| {
            CachedPage::carrying_version(
                format!(r#"<p>{word}</p><script>{{"version":{version},"word":"{word}"}}</script>"#),
                version,
            )
        };
        // Another process's numbering, one with fewer digits, and one that ends the same.
        let (here, there, short, suffix) = (
            page(7 << 32, "A"),
            page(9 << 32 | 3, "A"),
            page(5, "A"),
            page(15, "A"),
        );
        for encoding in [Encoding::Identity, Encoding::Gzip, Encoding::Brotli] {
            for other in [&there, &short, &suffix] {
                assert_eq!(here.etag(encoding), other.etag(encoding));
            }
            assert_ne!(here.etag(encoding), page(7 << 32, "B").etag(encoding));
            assert!(
                here.etag(encoding).starts_with("W/\""),
                "{}",
                here.etag(encoding)
            );
        }
        assert_ne!(here.html, there.html);
        // Only the props' key is left out: the same digits elsewhere in the page count.
        let elsewhere =
            CachedPage::carrying_version(r#"<p>5</p><script>{"version":5}</script>"#.into(), 5);
        let other =
            CachedPage::carrying_version(r#"<p>6</p><script>{"version":5}</script>"#.into(), 5);
        assert_ne!(
            elsewhere.etag(Encoding::Identity),
            other.etag(Encoding::Identity)
        );
    }

    #[test]
    fn compresses_each_encoding_once_when_first_asked() {
        let page = CachedPage::new("<p>words</p>".repeat(100));
        assert_eq!(page.ready(Encoding::Identity), Some(page.html.clone()));
        assert_eq!(page.ready(Encoding::Brotli), None);
        let br = page.encode(Encoding::Brotli);
        assert!(br.len() < page.html.len());
        assert_eq!(page.ready(Encoding::Brotli), Some(br.clone()));
        assert_eq!(page.encode(Encoding::Brotli).as_ptr(), br.as_ptr());
        assert_eq!(page.ready(Encoding::Gzip), None);
        let mut html = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(&page.encode(Encoding::Gzip)[..]),
            &mut html,
        )
        .unwrap();
        assert_eq!(html.as_bytes(), &page.html[..]);
    }
}
