//! Rendered pages, kept per route and data version.
//!
//! `/` renders once for the life of the process; `/words` renders again only when the
//! phrase list changes, and each further page of it (`?after=`, `?before=`) is kept
//! for the current version too, a bounded number of them. Each page is stored with a strong ETag and its compressed
//! variants, each made once when first asked for, so a cached hit costs no rendering
//! and no compression. Concurrent misses for the same route wait for one render
//! instead of starting their own.

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use axum::http::HeaderValue;
use bytes::Bytes;

use crate::negotiate::Encoding;

/// Which page, at which data version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PageKey {
    Home,
    Words { version: u64 },
    NotFound,
}

impl PageKey {
    /// The route the page is rendered as.
    pub fn route(self) -> &'static str {
        match self {
            PageKey::Home => "home",
            PageKey::Words { .. } => "words",
            PageKey::NotFound => "not_found",
        }
    }

    fn slot(self) -> usize {
        match self {
            PageKey::Home => 0,
            PageKey::Words { .. } => 1,
            PageKey::NotFound => 2,
        }
    }
}

/// A finished HTML document with its validator. Each compressed variant is made the
/// first time a client asks for it: a miss then costs one compression, not two.
#[derive(Debug)]
pub struct Page {
    pub html: Bytes,
    /// A strong validator: the quoted start of the SHA-256 of `html`.
    pub etag: String,
    /// `etag` as a header value, made once rather than for every response.
    pub etag_header: HeaderValue,
    gzip: OnceLock<Bytes>,
    br: OnceLock<Bytes>,
}

impl Page {
    pub fn new(html: String) -> Self {
        let etag = crate::negotiate::strong_etag(html.as_bytes());
        Self {
            // Hex digits in quotes: always a valid header value.
            etag_header: HeaderValue::from_str(&etag).unwrap_or(HeaderValue::from_static("\"\"")),
            etag,
            html: Bytes::from(html),
            gzip: OnceLock::new(),
            br: OnceLock::new(),
        }
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
            Encoding::Gzip => self.gzip.get_or_init(|| gzip(&self.html)).clone(),
            Encoding::Brotli => self.br.get_or_init(|| brotli(&self.html)).clone(),
        }
    }
}

fn gzip(html: &[u8]) -> Bytes {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(9));
    let _ = encoder.write_all(html);
    Bytes::from(encoder.finish().unwrap_or_default())
}

fn brotli(mut html: &[u8]) -> Bytes {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        // Quality 9 cost 15 ms per miss of the words page (scripts/bench); 5 is far cheaper.
        quality: 5,
        ..Default::default()
    };
    let _ = brotli::BrotliCompress(&mut html, &mut out, &params);
    Bytes::from(out)
}

/// Further pages of `/words` kept at once: a crawler walking 100,000 phrases asks for
/// some 2,000, and a page is a few tens of KB in each encoding.
const MAX_FURTHER_PAGES: usize = 512;

/// The newest page of each route, and counters for the metrics.
#[derive(Default)]
pub struct PageCache {
    /// Per route, the newest page and the key it was rendered for.
    latest: RwLock<HashMap<usize, (PageKey, Arc<Page>)>>,
    /// Further pages of `/words` by where they start, all of one version.
    further: RwLock<(u64, HashMap<String, Arc<Page>>)>,
    /// One render at a time per route (further pages share the words route's turn).
    rendering: [tokio::sync::Mutex<()>; 3],
    pub hits: AtomicU64,
    pub misses: AtomicU64,
}

impl PageCache {
    /// The page for `key`, rendering it with `render` on a miss.
    pub async fn get_or_render<F, Fut, E>(&self, key: PageKey, render: F) -> Result<Arc<Page>, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Page, E>>,
    {
        if let Some(page) = self.lookup(key) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(page);
        }
        let _one_at_a_time = self.rendering[key.slot()].lock().await;
        if let Some(page) = self.lookup(key) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(page);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let page = Arc::new(render().await?);
        if let Ok(mut latest) = self.latest.write() {
            latest.insert(key.slot(), (key, page.clone()));
        }
        Ok(page)
    }

    /// The page of `/words` at `version` that starts at `at`, rendering it on a miss.
    pub async fn get_or_render_further<F, Fut, E>(
        &self,
        version: u64,
        at: &str,
        render: F,
    ) -> Result<Arc<Page>, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Page, E>>,
    {
        let lookup = || {
            let further = self.further.read().ok()?;
            (further.0 == version)
                .then(|| further.1.get(at).cloned())
                .flatten()
        };
        if let Some(page) = lookup() {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(page);
        }
        let _one_at_a_time = self.rendering[PageKey::Words { version }.slot()]
            .lock()
            .await;
        if let Some(page) = lookup() {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(page);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let page = Arc::new(render().await?);
        if let Ok(mut further) = self.further.write() {
            // Pages of an older list are never asked for again.
            if further.0 != version || further.1.len() >= MAX_FURTHER_PAGES {
                *further = (version, HashMap::new());
            }
            further.1.insert(at.to_owned(), page.clone());
        }
        Ok(page)
    }

    /// The newest page of the route of `key`, whatever its version: served when a
    /// fresh render fails, because an old list beats an error page.
    pub fn last_good(&self, key: PageKey) -> Option<Arc<Page>> {
        let latest = self.latest.read().ok()?;
        latest.get(&key.slot()).map(|(_, page)| page.clone())
    }

    fn lookup(&self, key: PageKey) -> Option<Arc<Page>> {
        let latest = self.latest.read().ok()?;
        match latest.get(&key.slot()) {
            Some((stored, page)) if *stored == key => Some(page.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    #[tokio::test]
    async fn renders_once_per_version() {
        let cache = PageCache::default();
        let renders = AtomicU64::new(0);
        let render = || async {
            renders.fetch_add(1, Ordering::SeqCst);
            Ok::<_, Infallible>(Page::new("<p>words</p>".into()))
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
        assert_eq!(cache.hits.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn further_pages_are_kept_per_place_for_the_current_version_only() {
        let cache = PageCache::default();
        let renders = AtomicU64::new(0);
        let render = || async {
            renders.fetch_add(1, Ordering::SeqCst);
            Ok::<_, Infallible>(Page::new("<p>page</p>".into()))
        };
        for (version, at) in [(1, "a"), (1, "b"), (1, "a"), (2, "a"), (1, "a"), (2, "a")] {
            cache
                .get_or_render_further(version, at, render)
                .await
                .unwrap();
        }
        // 1/a, 1/b, 2/a, then 1/a again (version 1 was dropped for 2), then 2/a anew.
        assert_eq!(renders.load(Ordering::SeqCst), 5);
        for n in 0..MAX_FURTHER_PAGES + 1 {
            cache
                .get_or_render_further(3, &n.to_string(), render)
                .await
                .unwrap();
        }
        assert!(cache.further.read().unwrap().1.len() <= MAX_FURTHER_PAGES);
    }

    #[test]
    fn the_etag_follows_the_content() {
        assert_eq!(Page::new("a".into()).etag, Page::new("a".into()).etag);
        assert_ne!(Page::new("a".into()).etag, Page::new("b".into()).etag);
    }

    #[test]
    fn compresses_each_encoding_once_when_first_asked() {
        let page = Page::new("<p>words</p>".repeat(100));
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
