//! The phrase pages listed for machines: the sitemap (an index of child sitemaps of at
//! most 50,000 URLs once the collection is larger) and the Atom feed of the newest
//! phrases. Each document is made when first asked for, once however many ask at once,
//! off the async threads, and kept with its ETag until a change falls in it.
//!
//! Child sitemaps hold the phrases oldest first, so an addition changes only the last
//! one, and a change costs the children from its own on, never the ones before: the
//! follower works out which from the change's place in the list. A `lastmod` is a phrase's creation time when the source says it (Firestore's
//! create time); the embedded store keeps an order, not a time, so there the host says
//! when it first saw the phrase, or, for what it loaded at start, when it started.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::Site;
use crate::feed::list::Phrase;
use crate::feed::{Change, Delta, Feed, Snapshot, now_ms};
use crate::render::page_cache::CachedPage;

/// The most URLs one sitemap may hold (sitemaps.org).
pub const SITEMAP_URLS: usize = 50_000;

/// Entries in the Atom feed.
pub const FEED_ENTRIES: usize = 50;

/// Phrases whose first sighting is remembered: more than the feed shows.
const SEEN: usize = 1024;

/// Firestore's create times are microseconds since 1970; anything from 2001 on is one.
/// The embedded store's order numbers stay far below.
const FIRST_TIME_US: u64 = 1_000_000_000_000_000;

/// One of the documents, as a path names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Document {
    /// `/sitemap.xml`: every URL, or the index once they are more than one sitemap holds.
    Sitemap,
    /// `/sitemaps/pages.xml`: the site's own pages, under an index.
    SitePages,
    /// `/sitemaps/phrases-{n}.xml`, from 1: the `n`th 50,000 phrases, oldest first.
    Phrases(usize),
    /// `/feed.atom`.
    Atom,
}

impl Document {
    /// The document a path under `/sitemaps/` names.
    pub fn child(file: &str) -> Option<Self> {
        if file == "pages.xml" {
            return Some(Document::SitePages);
        }
        let n: usize = file
            .strip_prefix("phrases-")?
            .strip_suffix(".xml")?
            .parse()
            .ok()?;
        // "phrases-01.xml" is not a name the index gives.
        (n >= 1 && file == format!("phrases-{n}.xml")).then_some(Document::Phrases(n))
    }
}

/// A made document, with its validator and compressed variants made when first asked.
pub type Made = Arc<CachedPage>;

/// When phrases were first seen, and each document made for the current version.
pub struct Listings {
    /// When this process started: the `lastmod` of what it loaded then.
    started_ms: u64,
    /// When the list last changed, for the feed's `updated`.
    changed_ms: std::sync::atomic::AtomicU64,
    seen: Mutex<Seen>,
    made: Mutex<Kept>,
    /// `metrics`' count of documents made (not found kept): what a change costs a crawler.
    makes: prometheus::IntCounter,
}

/// The documents made for one version of the list, each made by whoever asks first
/// while the others wait for it.
#[derive(Default)]
struct Kept {
    version: u64,
    documents: HashMap<Document, Arc<OnceLock<Option<Made>>>>,
}

#[derive(Default)]
struct Seen {
    order: VecDeque<Arc<str>>,
    at: HashMap<Arc<str>, u64>,
}

impl Listings {
    /// Starts noting when phrases arrive in `feed`.
    pub fn follow(feed: &Feed, metrics: &crate::metrics::Metrics) -> Arc<Self> {
        let started_ms = now_ms();
        let mut deltas = feed.deltas();
        let mut before = feed.current();
        let listings = Arc::new(Self {
            started_ms,
            changed_ms: started_ms.into(),
            seen: Mutex::default(),
            made: Mutex::new(Kept {
                version: before.version,
                documents: HashMap::new(),
            }),
            makes: metrics.listings_made.clone(),
        });
        let noting = listings.clone();
        feed.spawn_task(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match deltas.recv().await {
                    Ok(delta) => {
                        noting.note(delta.changes.as_deref().unwrap_or_default());
                        noting.keep_unchanged(&before, &delta);
                        before = delta.after.clone();
                    }
                    // The deltas that follow start from a version this task never saw, so
                    // the next one drops every document.
                    Err(RecvError::Lagged(_)) => noting.note(&[]),
                    Err(RecvError::Closed) => return,
                }
            }
        });
        listings
    }

    /// Moves the documents `delta` leaves as they were on to its version; drops the rest.
    fn keep_unchanged(&self, before: &Snapshot, delta: &Delta) {
        let first_changed = match &delta.changes {
            Some(changes) if before.version == delta.from => {
                first_changed_child(before, delta, changes)
            }
            _ => 0,
        };
        let Ok(mut kept) = self.made.lock() else {
            return;
        };
        if kept.version != delta.from {
            kept.documents.clear();
        }
        kept.version = delta.version;
        // The rest are small, and whether they exist at all can change with the count.
        kept.documents.retain(
            |document, _| matches!(document, Document::Phrases(n) if n - 1 < first_changed),
        );
    }

    fn note(&self, changes: &[Change]) {
        let now = now_ms();
        self.changed_ms
            .store(now, std::sync::atomic::Ordering::Relaxed);
        let Ok(mut seen) = self.seen.lock() else {
            return;
        };
        for change in changes {
            if let Change::Upsert { phrase } = change
                && !seen.at.contains_key(phrase.id.as_str())
            {
                let id: Arc<str> = phrase.id.as_str().into();
                seen.at.insert(id.clone(), now);
                seen.order.push_back(id);
                if seen.order.len() > SEEN
                    && let Some(oldest) = seen.order.pop_front()
                {
                    seen.at.remove(&oldest);
                }
            }
        }
    }

    /// When `phrase` was minted, as well as the host can tell, in Unix milliseconds.
    fn minted_ms(&self, phrase: &Phrase) -> u64 {
        self.minted_ms_in(self.seen.lock().ok().as_deref(), phrase)
    }

    fn minted_ms_in(&self, seen: Option<&Seen>, phrase: &Phrase) -> u64 {
        if phrase.created >= FIRST_TIME_US {
            return phrase.created / 1000;
        }
        seen.and_then(|seen| seen.at.get(phrase.id.as_str()).copied())
            .unwrap_or(self.started_ms)
    }

    /// `document` for `snapshot`, made now unless it was for this version; `None` when
    /// there is no such document (a child past the last, or under no index).
    pub fn document(&self, site: &Site, snapshot: &Snapshot, document: Document) -> Option<Made> {
        let slot = match self.made.lock() {
            Ok(mut kept) if kept.version == snapshot.version => {
                kept.documents.entry(document).or_default().clone()
            }
            // A list the follower has not reached yet, or one it has left: made for this
            // request alone.
            _ => Arc::default(),
        };
        slot.get_or_init(|| self.make(site, snapshot, document))
            .clone()
    }

    fn make(&self, site: &Site, snapshot: &Snapshot, document: Document) -> Option<Made> {
        let body = match document {
            Document::Sitemap if snapshot.list.len() + 2 <= SITEMAP_URLS => {
                self.urlset(site, snapshot, true, 0..snapshot.list.len())
            }
            Document::Sitemap => self.index(site, snapshot),
            Document::SitePages if snapshot.list.len() + 2 > SITEMAP_URLS => {
                self.urlset(site, snapshot, true, 0..0)
            }
            Document::Phrases(n) if snapshot.list.len() + 2 > SITEMAP_URLS => {
                let from = (n - 1).checked_mul(SITEMAP_URLS)?;
                if from >= snapshot.list.len() {
                    return None;
                }
                let to = (from + SITEMAP_URLS).min(snapshot.list.len());
                self.urlset(site, snapshot, false, from..to)
            }
            Document::SitePages | Document::Phrases(_) => return None,
            Document::Atom => self.atom(site, snapshot),
        };
        self.makes.inc();
        Some(Arc::new(CachedPage::new(body)))
    }

    /// A `<urlset>`: the site's pages if `pages`, and the phrases at oldest-first
    /// positions `range`.
    fn urlset(
        &self,
        site: &Site,
        snapshot: &Snapshot,
        pages: bool,
        range: std::ops::Range<usize>,
    ) -> String {
        let mut xml = String::with_capacity(64 + range.len() * 120);
        xml.push_str(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
        );
        if pages {
            for path in ["/".to_owned(), site.words_path()] {
                let _ = writeln!(
                    xml,
                    "  <url><loc>{}</loc></url>",
                    escape_xml(&site.absolute_url(&path))
                );
            }
        }
        let len = snapshot.list.len();
        // Newest first in the list: oldest-first positions from..to are these.
        let newest_first = (len - range.end)..(len - range.start);
        let phrases: Vec<&Arc<Phrase>> = snapshot
            .list
            .iter_from(newest_first.start)
            .take(newest_first.len())
            .collect();
        let seen = self.seen.lock().ok();
        for phrase in phrases.into_iter().rev() {
            let _ = writeln!(
                xml,
                "  <url><loc>{}</loc><lastmod>{}</lastmod></url>",
                escape_xml(&site.absolute_url(&site.phrase_path(&phrase.id))),
                rfc3339(self.minted_ms_in(seen.as_deref(), phrase)),
            );
        }
        xml.push_str("</urlset>\n");
        xml
    }

    fn index(&self, site: &Site, snapshot: &Snapshot) -> String {
        let mut xml = String::from(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
        );
        let _ = writeln!(
            xml,
            "  <sitemap><loc>{}</loc><lastmod>{}</lastmod></sitemap>",
            escape_xml(&site.absolute_url("/sitemaps/pages.xml")),
            rfc3339(self.started_ms),
        );
        let len = snapshot.list.len();
        let children = len.div_ceil(SITEMAP_URLS);
        // The newest phrase of each child, whose time is the child's lastmod.
        let newest: Vec<u64> = (0..children)
            .map(|n| {
                let oldest_first_end = ((n + 1) * SITEMAP_URLS).min(len);
                snapshot
                    .list
                    .iter_from(len - oldest_first_end)
                    .next()
                    .map_or(self.started_ms, |phrase| self.minted_ms(phrase))
            })
            .collect();
        for (n, lastmod) in newest.into_iter().enumerate() {
            let _ = writeln!(
                xml,
                "  <sitemap><loc>{}</loc><lastmod>{}</lastmod></sitemap>",
                escape_xml(&site.absolute_url(&format!("/sitemaps/phrases-{}.xml", n + 1))),
                rfc3339(lastmod),
            );
        }
        xml.push_str("</sitemapindex>\n");
        xml
    }

    fn atom(&self, site: &Site, snapshot: &Snapshot) -> String {
        let product = &site.product_name;
        let words = site.absolute_url(&site.words_path());
        let entries: Vec<&Arc<Phrase>> = snapshot.list.iter().take(FEED_ENTRIES).collect();
        let updated = entries
            .iter()
            .map(|phrase| self.minted_ms(phrase))
            .max()
            .unwrap_or_else(|| self.changed_ms.load(std::sync::atomic::Ordering::Relaxed));
        let mut xml = String::with_capacity(1024 + entries.len() * 600);
        xml.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
        let _ = writeln!(xml, "  <id>{}</id>", escape_xml(&words));
        let _ = writeln!(
            xml,
            "  <title>{}</title>",
            escape_xml(&format!("New Last {product} — {}", crate::site::NAME))
        );
        let _ = writeln!(
            xml,
            "  <subtitle>{}</subtitle>",
            escape_xml(&format!(
                "The newest Last {product} minted by the {} community.",
                crate::site::NAME
            ))
        );
        let _ = writeln!(xml, "  <updated>{}</updated>", rfc3339(updated));
        let _ = writeln!(
            xml,
            "  <link rel=\"alternate\" type=\"text/html\" href=\"{}\"/>",
            escape_xml(&words)
        );
        let _ = writeln!(
            xml,
            "  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}\"/>",
            escape_xml(&site.absolute_url(crate::render::site_files::ATOM_FEED))
        );
        let _ = writeln!(xml, "  <author><name>{}</name></author>", crate::site::NAME);
        for phrase in entries {
            let url = site.absolute_url(&site.phrase_path(&phrase.id));
            let word = escape_xml(&phrase.word);
            let name = escape_xml(&phrase.name);
            let _ = write!(
                xml,
                "  <entry>\n    <id>{url}</id>\n    <title>{word}</title>\n    <updated>{time}</updated>\n    <author><name>{name}</name></author>\n    <link rel=\"alternate\" type=\"text/html\" href=\"{url}\"/>\n    <summary>{summary}</summary>\n  </entry>\n",
                url = escape_xml(&url),
                time = rfc3339(self.minted_ms(phrase)),
                summary = escape_xml(&format!(
                    "“{}”, Last {product} by {}",
                    phrase.word, phrase.name
                )),
            );
        }
        xml.push_str("</feed>\n");
        xml
    }
}

/// The first child sitemap (from 0) that `changes` alter, going from `before` to
/// `delta.after`: a phrase added, removed or moved at an oldest-first place shifts every
/// place after it. `usize::MAX` when they alter none.
fn first_changed_child(before: &Snapshot, delta: &Delta, changes: &[Change]) -> usize {
    let oldest_first = |list: &crate::feed::list::PhraseList, id: &str| {
        list.rank(id).map(|rank| list.len() - 1 - rank)
    };
    let mut first = usize::MAX;
    for change in changes {
        let id = match change {
            Change::Upsert { phrase } => phrase.id.as_str(),
            Change::Remove { id } => id.as_str(),
        };
        let places = [
            oldest_first(&before.list, id),
            oldest_first(&delta.after.list, id),
        ];
        for place in places.into_iter().flatten() {
            first = first.min(place / SITEMAP_URLS);
        }
    }
    first
}

/// Text or an attribute value in XML: the five markup characters escaped, and what
/// XML 1.0 cannot hold at all (controls but tab and newlines, U+FFFE, U+FFFF) left out.
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c < ' ' || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Unix milliseconds as RFC 3339 in UTC, to the second: `2026-11-25T19:30:00Z`.
pub fn rfc3339(ms: u64) -> String {
    let seconds = ms / 1000;
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_635_000_123), "2026-11-25T19:30:00Z");
    }

    #[test]
    fn xml_text_is_escaped_and_what_xml_cannot_hold_is_left_out() {
        assert_eq!(
            escape_xml("<a href=\"x\">'&'</a>\u{0}\u{1b}\u{FFFF}ok"),
            "&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;ok"
        );
    }

    #[test]
    fn only_names_the_index_gives_are_children() {
        assert_eq!(Document::child("pages.xml"), Some(Document::SitePages));
        assert_eq!(Document::child("phrases-2.xml"), Some(Document::Phrases(2)));
        for bad in [
            "phrases-0.xml",
            "phrases-01.xml",
            "phrases-+1.xml",
            "phrases-1.xml.gz",
            "x.xml",
        ] {
            assert_eq!(Document::child(bad), None, "{bad}");
        }
    }
}
