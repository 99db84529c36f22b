//! The phrase pages listed for machines: the sitemap (an index of child sitemaps of at
//! most 50,000 URLs once the collection is larger) and the Atom feed of the newest
//! phrases. Each document is made when first asked for, once however many ask at once,
//! off the async threads, and kept with its ETag until a change falls in it.
//!
//! Child sitemaps are [`shelves`]: stretches of the list, oldest first, that keep their
//! phrases and their names, so a change makes again only the child it falls in (an
//! addition, the last) and a crawler's `If-None-Match` matches every other. A `lastmod`
//! is a phrase's creation time (Firestore's create time, or the embedded store's); for
//! a phrase with none (a row a program gave an order and no time) the host says when it
//! first saw it, or, for what it loaded at start, when it started.

mod shelves;

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::Site;
use crate::feed::list::Phrase;
use crate::feed::{Change, Delta, Feed, Snapshot, now_ms};
use crate::render::page_cache::CachedPage;
use shelves::{Altered, Label, Shelves};

/// The most URLs one sitemap may hold (sitemaps.org).
pub const SITEMAP_URLS: usize = 50_000;
/// The sitemap protocol's bound on a URL: fewer characters than this.
const SITEMAP_URL_CHARS: usize = 2048;

/// Entries in the Atom feed.
pub const FEED_ENTRIES: usize = 50;

/// Phrases whose first sighting is remembered: more than the feed shows.
const SEEN: usize = 1024;

/// One of the documents, as a path names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Document {
    /// `/sitemap.xml`: every URL, or the index once they are more than one sitemap holds.
    Sitemap,
    /// `/sitemaps/pages.xml`: the site's own pages, under an index.
    SitePages,
    /// `/sitemaps/phrases-{label}.xml`: a shelf of at most 50,000 phrases.
    Phrases(Label),
    /// `/feed.atom`.
    Atom,
}

impl Document {
    /// The document a path under `/sitemaps/` names.
    pub fn child(file: &str) -> Option<Self> {
        if file == "pages.xml" {
            return Some(Document::SitePages);
        }
        let n: Label = file
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

/// The list as the follower last reached it, and the documents made for it, each made
/// by whoever asks first while the others wait for it.
struct Kept {
    snapshot: Arc<Snapshot>,
    shelves: Shelves,
    documents: HashMap<Document, Arc<OnceLock<Option<Made>>>>,
}

impl Kept {
    fn new(snapshot: Arc<Snapshot>) -> Self {
        Self {
            shelves: Shelves::pack(&snapshot.list, SITEMAP_URLS),
            snapshot,
            documents: HashMap::new(),
        }
    }
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
        let listings = Arc::new(Self {
            started_ms,
            changed_ms: started_ms.into(),
            seen: Mutex::default(),
            made: Mutex::new(Kept::new(feed.current())),
            makes: metrics.listings_made.clone(),
        });
        let noting = listings.clone();
        feed.spawn_task(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match deltas.recv().await {
                    Ok(delta) => {
                        match delta.changes.as_deref() {
                            Some(changes) => noting.note(changes),
                            None => noting.note_arrivals(&delta.after),
                        }
                        noting.keep_unchanged(&delta);
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

    /// Moves the shelves and the children `delta` leaves as they were on to its version;
    /// drops the rest.
    fn keep_unchanged(&self, delta: &Delta) {
        let Ok(mut kept) = self.made.lock() else {
            return;
        };
        let altered = match &delta.changes {
            Some(changes) if kept.snapshot.version == delta.from => {
                let ids = changes.iter().map(|change| match change {
                    Change::Upsert { phrase } => phrase.id.as_str(),
                    Change::Remove { id } => id.as_str(),
                });
                let before = kept.snapshot.clone();
                kept.shelves.follow(&before.list, &delta.after.list, ids)
            }
            // A change too big to list, or one after versions this follower missed.
            _ => {
                kept.shelves = Shelves::pack(&delta.after.list, SITEMAP_URLS);
                Altered::All
            }
        };
        kept.snapshot = delta.after.clone();
        // The rest are small, and whether they exist at all can change with the count.
        kept.documents
            .retain(|document, _| match (document, &altered) {
                (Document::Phrases(label), Altered::Only(labels)) => !labels.contains(label),
                _ => false,
            });
    }

    fn note(&self, changes: &[Change]) {
        self.note_ids(changes.iter().filter_map(|change| match change {
            Change::Upsert { phrase } => Some(phrase.id.as_str()),
            Change::Remove { .. } => None,
        }));
    }

    /// Notes the phrases of a change too big to list (an import of hundreds) that the list
    /// before it did not hold, the newest that are remembered; none after a first load,
    /// whose phrases were there before this host.
    fn note_arrivals(&self, after: &Snapshot) {
        let before = match self.made.lock() {
            Ok(kept) => kept.snapshot.clone(),
            Err(_) => return,
        };
        if !before.loaded {
            return self.note_ids(std::iter::empty());
        }
        let arrived: Vec<&str> = after
            .list
            .iter()
            .filter(|phrase| before.list.get(&phrase.id).is_none())
            .take(SEEN)
            .map(|phrase| phrase.id.as_str())
            .collect();
        // Oldest first, as they would have come one by one.
        self.note_ids(arrived.into_iter().rev());
    }

    fn note_ids<'a>(&self, ids: impl Iterator<Item = &'a str>) {
        let now = now_ms();
        self.changed_ms
            .store(now, std::sync::atomic::Ordering::Relaxed);
        let Ok(mut seen) = self.seen.lock() else {
            return;
        };
        for id in ids {
            if !seen.at.contains_key(id) {
                let id: Arc<str> = id.into();
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
        if let Some(minted) = phrase.minted_ms() {
            return minted;
        }
        seen.and_then(|seen| seen.at.get(phrase.id.as_str()).copied())
            .unwrap_or(self.started_ms)
    }

    /// `document` for the list the follower reached (microseconds behind `snapshot`, so
    /// that the index and its children always agree), made now unless it was made for
    /// that list; `None` when there is no such document (a child that is not on the
    /// index, or one under no index).
    pub fn document(
        &self,
        site: &Site,
        snapshot: &Arc<Snapshot>,
        document: Document,
    ) -> Option<Made> {
        let (slot, snapshot, shelves) = match self.made.lock() {
            Ok(mut kept) if kept.snapshot.loaded || !snapshot.loaded => {
                // Only documents that exist get a slot: any number names a child, and
                // asking for a billion of them must not keep a billion empty slots.
                if let Document::Phrases(label) = document
                    && !kept.shelves.labels().contains(&label)
                {
                    return None;
                }
                let slot = kept.documents.entry(document).or_default().clone();
                (slot, kept.snapshot.clone(), kept.shelves.clone())
            }
            // The follower has not reached the first list yet: made for this request alone.
            _ => (
                Arc::default(),
                snapshot.clone(),
                Shelves::pack(&snapshot.list, SITEMAP_URLS),
            ),
        };
        slot.get_or_init(|| self.make(site, &snapshot, &shelves, document))
            .clone()
    }

    fn make(
        &self,
        site: &Site,
        snapshot: &Snapshot,
        shelves: &Shelves,
        document: Document,
    ) -> Option<Made> {
        let body = match document {
            Document::Sitemap if snapshot.list.len() + 2 <= SITEMAP_URLS => {
                self.urlset(site, snapshot, true, 0..snapshot.list.len())
            }
            Document::Sitemap => self.index(site, snapshot, shelves),
            Document::SitePages if snapshot.list.len() + 2 > SITEMAP_URLS => {
                self.urlset(site, snapshot, true, 0..0)
            }
            Document::Phrases(label) if snapshot.list.len() + 2 > SITEMAP_URLS => {
                self.urlset(site, snapshot, false, shelves.places(label)?)
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
            let url = site.absolute_url(&site.phrase_path(&phrase.id));
            // The protocol's limit; search engines refuse a file with a longer URL.
            if url.len() >= SITEMAP_URL_CHARS {
                continue;
            }
            let _ = writeln!(
                xml,
                "  <url><loc>{}</loc><lastmod>{}</lastmod></url>",
                escape_xml(&url),
                rfc3339(self.minted_ms_in(seen.as_deref(), phrase)),
            );
        }
        xml.push_str("</urlset>\n");
        xml
    }

    fn index(&self, site: &Site, snapshot: &Snapshot, shelves: &Shelves) -> String {
        let mut xml = String::from(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
        );
        // The list page shows the newest phrase: when it was minted, not when this host
        // started, which would date the child anew at every restart.
        let newest = snapshot.list.iter().next();
        let _ = writeln!(
            xml,
            "  <sitemap><loc>{}</loc><lastmod>{}</lastmod></sitemap>",
            escape_xml(&site.absolute_url("/sitemaps/pages.xml")),
            rfc3339(newest.map_or(self.started_ms, |phrase| self.minted_ms(phrase))),
        );
        let len = snapshot.list.len();
        for &label in shelves.labels() {
            // The child's newest phrase, whose time is its lastmod.
            let lastmod = shelves
                .places(label)
                .and_then(|places| snapshot.list.iter_from(len.checked_sub(places.end)?).next())
                .map_or(self.started_ms, |phrase| self.minted_ms(phrase));
            let _ = writeln!(
                xml,
                "  <sitemap><loc>{}</loc><lastmod>{}</lastmod></sitemap>",
                escape_xml(&site.absolute_url(&format!("/sitemaps/phrases-{label}.xml"))),
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
