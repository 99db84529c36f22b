//! The phrase pages listed for machines: the sitemap (an index of child sitemaps of at
//! most 50,000 URLs once the collection is larger) and the Atom feed of the newest
//! phrases. Each document is made when first asked for, once however many ask at once,
//! off the async threads, and kept with its ETag until a change falls in it.
//!
//! Child sitemaps are [`shelves`]: the phrases created in one span of time, oldest
//! first, named by the span, so every replica names the same children with the same
//! phrases, a change makes again only the child it falls in (an addition, the newest)
//! and a crawler's `If-None-Match` matches every other. A `lastmod`
//! is a phrase's creation time (Firestore's create time, or the embedded store's); for
//! a phrase with none (a row a program gave an order and no time) the host says when it
//! first saw it, or, for what it loaded at start, when it started. A change that leaves
//! no phrase to date it (a removal, a phrase edited) dates its child and its URL when
//! the host saw it, so a crawler learns the child changed; the host keeps those dates
//! while it runs, and after a restart the child goes back to its newest phrase's time,
//! earlier than any crawl since, so nothing is fetched for nothing.

mod shelves;

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::Site;
use crate::feed::list::{Cursor, Phrase, PhraseList};
use crate::feed::{Change, Delta, Feed, Snapshot, now_ms, rfc3339};
use crate::render::page_cache::CachedPage;
use shelves::{Label, Shelves};

/// The most URLs one sitemap may hold (sitemaps.org).
pub const SITEMAP_URLS: usize = 50_000;
/// The most bytes one sitemap may hold (sitemaps.org: 50 MiB, uncompressed).
const SITEMAP_BYTES: usize = 50 * 1024 * 1024;
/// The longest `<url>` line a sitemap holds, so that 50,000 of them and the document's
/// own lines stay under [`SITEMAP_BYTES`]: a URL of up to about 980 characters, where
/// the protocol allows 2,047, but a phrase's id may take 1,500 bytes, which percent-
/// encoded is 4,500 characters or more, and 50,000 such made a child search engines
/// refuse whole. Longer URLs are left out; their pages are still linked from the list.
const SITEMAP_LINE_BYTES: usize = (SITEMAP_BYTES - 256) / SITEMAP_URLS;

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
        let label = file.strip_prefix("phrases-")?.strip_suffix(".xml")?;
        Label::parse(label).map(Document::Phrases)
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
    /// Where and when, while this process ran, a change left no phrase to date it: one
    /// place per child, the latest. A place, not a label, so that a span cut again or
    /// put back together dates the child that holds it.
    left: Vec<(Cursor, u64)>,
    /// When such a change last altered the site's pages (which count the phrases).
    pages_left: Option<u64>,
    documents: HashMap<Document, Arc<OnceLock<Option<Made>>>>,
}

/// The dates of what left, by child, and of the site's pages (`None`).
type Dated = HashMap<Option<Label>, u64>;

impl Kept {
    fn new(snapshot: Arc<Snapshot>) -> Self {
        Self {
            shelves: Shelves::pack(&snapshot.list, SITEMAP_URLS),
            snapshot,
            left: Vec::new(),
            pages_left: None,
            documents: HashMap::new(),
        }
    }

    /// Notes what left at `places` now, keeping the latest place of each child.
    fn note_left(&mut self, places: Vec<Cursor>) {
        if !places.is_empty() {
            let now = now_ms();
            self.pages_left = Some(now);
            self.left
                .extend(places.into_iter().map(|place| (place, now)));
        }
        let mut latest: HashMap<Label, (Cursor, u64)> = HashMap::new();
        for (place, at) in self.left.drain(..) {
            let Some(label) = self.shelves.label_at(place.created) else {
                continue;
            };
            if latest.get(&label).is_none_or(|(_, known)| *known <= at) {
                latest.insert(label, (place, at));
            }
        }
        self.left = latest.into_values().collect();
    }

    /// Whether `phrase` arrived late: created before the newest phrase `before` held in
    /// its child, whose time is the child's lastmod.
    fn came_late(&self, before: &PhraseList, phrase: &Phrase) -> bool {
        self.shelves
            .label_at(phrase.created)
            .and_then(|label| shelves::newest_in(before, label))
            .is_some_and(|newest| newest.created > phrase.created)
    }

    fn dated(&self) -> Dated {
        let mut dated: Dated = self
            .left
            .iter()
            .filter_map(|(place, at)| Some((Some(self.shelves.label_at(place.created)?), *at)))
            .collect();
        if let Some(at) = self.pages_left {
            dated.insert(None, at);
        }
        dated
    }
}

#[derive(Default)]
struct Seen {
    order: VecDeque<Arc<str>>,
    at: HashMap<Arc<str>, u64>,
    /// Phrases edited while this process ran (their page changed), and when: the newest
    /// [`SEEN`].
    edited: VecDeque<Arc<str>>,
    edited_at: HashMap<Arc<str>, u64>,
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
                        if let Some(changes) = delta.changes.as_deref() {
                            noting.note(changes);
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
    /// drops the rest. Notes when the phrases of a change too big to list (an import of
    /// hundreds) came.
    fn keep_unchanged(&self, delta: &Delta) {
        let Ok(mut kept) = self.made.lock() else {
            return;
        };
        let before = kept.snapshot.clone();
        let listed = match &delta.changes {
            Some(changes) if before.version == delta.from => Some(changes),
            _ => None,
        };
        // What left no phrase behind to date it: removed, or edited in place.
        let mut traceless = Vec::new();
        let mut edited = Vec::new();
        let mut left = |old: &Arc<Phrase>| match delta.after.list.get(&old.id) {
            None => traceless.push(Cursor::of(old)),
            Some(new) if new != old => {
                traceless.push(Cursor::of(old));
                edited.push(new.id.clone());
            }
            Some(_) => {}
        };
        match listed {
            Some(changes) => changes
                .iter()
                .filter_map(|change| before.list.get(change.id()))
                .for_each(&mut left),
            None if before.loaded => before.list.iter().for_each(&mut left),
            None => {}
        }
        let altered = match listed {
            Some(changes) => {
                let ids = changes.iter().map(Change::id);
                Some(kept.shelves.follow(&before.list, &delta.after.list, ids))
            }
            // A change too big to list, or one after versions this follower missed.
            None => {
                kept.shelves = Shelves::pack(&delta.after.list, SITEMAP_URLS);
                None
            }
        };
        // A phrase created before its child's newest (a row another program wrote, one
        // that arrived late) leaves the child's lastmod, its newest's time, as it was:
        // dated when it came instead, so a crawler reading the index fetches the child.
        let arrived: Vec<&Arc<Phrase>> = match listed {
            Some(changes) => changes
                .iter()
                .filter_map(|change| delta.after.list.get(change.id()))
                .filter(|phrase| before.list.get(&phrase.id).is_none())
                .collect(),
            None if before.loaded => delta
                .after
                .list
                .iter()
                .filter(|phrase| before.list.get(&phrase.id).is_none())
                .collect(),
            None => Vec::new(),
        };
        if delta.changes.is_none() {
            // The newest that are remembered, oldest first as they would have come one by
            // one; none after a first load, whose phrases were there before this host.
            let newest: Vec<&str> = arrived.iter().take(SEEN).map(|p| p.id.as_str()).collect();
            self.note_ids(newest.into_iter().rev());
        }
        traceless.extend(
            arrived
                .into_iter()
                .filter(|phrase| kept.came_late(&before.list, phrase))
                .map(|phrase| Cursor::of(phrase)),
        );
        kept.note_left(traceless);
        self.note_edited(edited);
        kept.snapshot = delta.after.clone();
        // The rest are small, and whether they exist at all can change with the count.
        let Kept {
            shelves, documents, ..
        } = &mut *kept;
        documents.retain(|document, _| match (document, &altered) {
            (Document::Phrases(label), Some(altered)) => {
                shelves.has(*label) && !altered.contains(label)
            }
            _ => false,
        });
    }

    fn note_edited(&self, ids: Vec<String>) {
        if ids.is_empty() {
            return;
        }
        let now = now_ms();
        let Ok(mut seen) = self.seen.lock() else {
            return;
        };
        for id in ids {
            let id: Arc<str> = id.into();
            if seen.edited_at.insert(id.clone(), now).is_none() {
                seen.edited.push_back(id);
                if seen.edited.len() > SEEN
                    && let Some(oldest) = seen.edited.pop_front()
                {
                    seen.edited_at.remove(&oldest);
                }
            }
        }
    }

    fn note(&self, changes: &[Change]) {
        self.note_ids(changes.iter().filter_map(|change| match change {
            Change::Upsert { phrase } => Some(phrase.id.as_str()),
            Change::Remove { .. } => None,
        }));
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

    /// When `phrase` was minted or last edited, as well as the host can tell, in Unix
    /// milliseconds: its date in the sitemap and the feed.
    fn minted_ms(&self, phrase: &Phrase) -> u64 {
        self.minted_ms_in(self.seen.lock().ok().as_deref(), phrase)
    }

    fn minted_ms_in(&self, seen: Option<&Seen>, phrase: &Phrase) -> u64 {
        let minted = phrase.minted_ms().unwrap_or_else(|| {
            seen.and_then(|seen| seen.at.get(phrase.id.as_str()).copied())
                .unwrap_or(self.started_ms)
        });
        // The store's time where it keeps one, so that every replica and every restart
        // dates an edit alike; else when this process saw it.
        let edited = phrase
            .edited_ms()
            .or_else(|| seen.and_then(|seen| seen.edited_at.get(phrase.id.as_str()).copied()));
        minted.max(edited.unwrap_or(0))
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
        let (slot, snapshot, shelves, dated) = match self.made.lock() {
            Ok(mut kept) if kept.snapshot.loaded || !snapshot.loaded => {
                // Only documents that exist get a slot: any number names a child, and
                // asking for a billion of them must not keep a billion empty slots.
                if let Document::Phrases(label) = document
                    && !kept.shelves.has(label)
                {
                    return None;
                }
                let slot = kept.documents.entry(document).or_default().clone();
                let dated = match document {
                    Document::Sitemap => kept.dated(),
                    _ => Dated::new(),
                };
                (slot, kept.snapshot.clone(), kept.shelves.clone(), dated)
            }
            // The follower has not reached the first list yet: made for this request alone.
            _ => (
                Arc::default(),
                snapshot.clone(),
                Shelves::pack(&snapshot.list, SITEMAP_URLS),
                Dated::new(),
            ),
        };
        slot.get_or_init(|| self.make(site, &snapshot, &shelves, &dated, document))
            .clone()
    }

    fn make(
        &self,
        site: &Site,
        snapshot: &Snapshot,
        shelves: &Shelves,
        dated: &Dated,
        document: Document,
    ) -> Option<Made> {
        let body = match document {
            Document::Sitemap if snapshot.list.len() + 2 <= SITEMAP_URLS => {
                self.urlset(site, snapshot, true, 0..snapshot.list.len())
            }
            Document::Sitemap => self.index(site, snapshot, shelves, dated),
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
        let mut line = String::new();
        for phrase in phrases.into_iter().rev() {
            line.clear();
            let _ = writeln!(
                line,
                "  <url><loc>{}</loc><lastmod>{}</lastmod></url>",
                escape_xml(&site.absolute_url(&site.phrase_path(&phrase.id))),
                rfc3339(self.minted_ms_in(seen.as_deref(), phrase)),
            );
            if line.len() <= SITEMAP_LINE_BYTES {
                xml.push_str(&line);
            }
        }
        xml.push_str("</urlset>\n");
        xml
    }

    fn index(&self, site: &Site, snapshot: &Snapshot, shelves: &Shelves, dated: &Dated) -> String {
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
            rfc3339(
                newest
                    .map_or(self.started_ms, |phrase| self.minted_ms(phrase))
                    .max(dated.get(&None).copied().unwrap_or(0))
            ),
        );
        let len = snapshot.list.len();
        for label in shelves.labels() {
            // The child's newest phrase, whose time is its lastmod.
            let lastmod = shelves
                .places(label)
                .and_then(|places| snapshot.list.iter_from(len.checked_sub(places.end)?).next())
                .map_or(self.started_ms, |phrase| self.minted_ms(phrase))
                .max(dated.get(&Some(label)).copied().unwrap_or(0));
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
                // Set apart as in the pages' titles: a Hebrew name would otherwise
                // carry the sentence around it right to left.
                summary = escape_xml(&format!(
                    "“{}”, Last {product} by {}",
                    crate::render::head::isolated(&phrase.word),
                    crate::render::head::isolated(&phrase.name)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn minted(id: &str, word: &str, created_ms: u64) -> Phrase {
        Phrase {
            id: id.into(),
            word: word.into(),
            name: "n".into(),
            created: created_ms * 1000,
            edited: 0,
        }
    }

    /// `/sitemap.xml` as the listings make it for the feed's list.
    fn sitemap(listings: &Listings, feed: &Feed) -> String {
        let site = crate::config::Settings::default().resolve().unwrap().site;
        let made = listings
            .document(&site, &feed.current(), Document::Sitemap)
            .unwrap();
        std::str::from_utf8(&made.html).unwrap().to_owned()
    }

    /// The sitemap's lastmod of each URL, by URL.
    fn lastmods(listings: &Listings, feed: &Feed) -> HashMap<String, String> {
        sitemap(listings, feed)
            .split("<url><loc>")
            .skip(1)
            .filter_map(|url| {
                let (loc, rest) = url.split_once("</loc>")?;
                let lastmod = rest.strip_prefix("<lastmod>")?.split_once("</lastmod>")?.0;
                Some((loc.rsplit('/').next()?.to_owned(), lastmod.to_owned()))
            })
            .collect()
    }

    #[tokio::test]
    async fn a_url_too_long_for_a_full_sitemap_to_fit_its_bytes_is_left_out() {
        let feed = Feed::new();
        let (fits, long) = ("f".repeat(900), "l".repeat(1200));
        feed.replace(vec![
            minted("short", "SHORT", 1_600_000_000_000),
            minted(&fits, "FITS", 1_600_000_001_000),
            minted(&long, "LONG", 1_600_000_002_000),
        ]);
        let listings = Listings::follow(&feed, &crate::metrics::Metrics::new());
        let listed = lastmods(&listings, &feed);
        assert!(listed.contains_key("short") && listed.contains_key(&fits));
        assert!(!listed.contains_key(&long), "a 1,200-character id");
        // 50,000 of the longest lines kept, and the document's own, fit in 50 MiB.
        let xml = sitemap(&listings, &feed);
        let longest = xml.lines().map(|line| line.len() + 1).max().unwrap();
        assert!(longest <= SITEMAP_LINE_BYTES);
        let own: usize = xml
            .lines()
            .filter(|l| !l.contains("<url>"))
            .map(|l| l.len() + 1)
            .sum();
        assert!(own + SITEMAP_URLS * SITEMAP_LINE_BYTES <= SITEMAP_BYTES);
    }

    /// A late phrase does not change its child's newest: the index dates the child when
    /// the phrase came, and no other.
    #[tokio::test]
    async fn a_phrase_older_than_its_childs_newest_dates_the_child_when_it_came() {
        let feed = Feed::new();
        let long_ago = 1_600_000_000_000;
        feed.replace(
            (0..SITEMAP_URLS as u64 + 1)
                .map(|i| minted(&format!("p{i}"), &format!("P{i}"), long_ago + i * 1000))
                .collect(),
        );
        let listings = Listings::follow(&feed, &crate::metrics::Metrics::new());
        let settle = async |version: u64| {
            while listings.made.lock().unwrap().snapshot.version < version {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        };
        settle(feed.current().version).await;
        let children = || {
            sitemap(&listings, &feed)
                .split("/sitemaps/phrases-")
                .skip(1)
                .map(|child| {
                    let (span, rest) = child.split_once(".xml</loc><lastmod>").unwrap();
                    let label = Label::parse(span).unwrap();
                    (label, rest.split_once("</lastmod>").unwrap().0.to_owned())
                })
                .collect::<Vec<_>>()
        };
        let before = children();
        assert!(before.len() >= 2, "{before:?}");

        let came = now_ms() / 1000 * 1000;
        let late = minted("late", "LATE", long_ago + 10_500);
        let holder = before
            .iter()
            .position(|(label, _)| label.holds(late.created))
            .unwrap();
        settle(feed.apply(vec![Change::Upsert { phrase: late }]).version).await;
        let after = children();
        assert_eq!(after.len(), before.len());
        for (i, ((label, was), (again, now))) in before.iter().zip(&after).enumerate() {
            assert_eq!(label, again);
            if i == holder {
                assert!(*now >= rfc3339(came), "{now}, came at {}", rfc3339(came));
            } else {
                assert_eq!(now, was, "{label}");
            }
        }

        // Phrases newer than every other, several at once, are no late ones: their child
        // is dated by the newest of them.
        let top = long_ago + (SITEMAP_URLS as u64 + 10) * 1000;
        let batch = (0..3)
            .map(|i| Change::Upsert {
                phrase: minted(&format!("new{i}"), &format!("NEW{i}"), top + i),
            })
            .collect();
        settle(feed.apply(batch).version).await;
        let (_, newest) = children().pop().unwrap();
        assert_eq!(newest, rfc3339(top + 2));
    }

    #[tokio::test]
    async fn an_edited_phrase_is_dated_when_it_was_edited_not_when_it_was_minted() {
        let feed = Feed::new();
        let long_ago = 1_600_000_000_000;
        feed.replace(vec![
            minted("a", "A", long_ago),
            minted("b", "B", long_ago + 1000),
        ]);
        let listings = Listings::follow(&feed, &crate::metrics::Metrics::new());
        let settle = async |version: u64| {
            while listings.made.lock().unwrap().snapshot.version < version {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        };
        settle(feed.current().version).await;
        let before = lastmods(&listings, &feed);
        assert_eq!(before["a"], rfc3339(long_ago));

        let edited_at = now_ms() / 1000 * 1000;
        let after = feed.apply(vec![Change::Upsert {
            phrase: minted("a", "A AGAIN", long_ago),
        }]);
        settle(after.version).await;
        let after = lastmods(&listings, &feed);
        assert!(
            after["a"] >= rfc3339(edited_at),
            "{} before {}",
            after["a"],
            rfc3339(edited_at)
        );
        assert_eq!(
            after["b"], before["b"],
            "a phrase not edited keeps its date"
        );
    }

    #[tokio::test]
    async fn an_edit_its_store_dates_is_dated_alike_by_a_host_that_saw_it_and_one_started_after() {
        let feed = Feed::new();
        let (long_ago, edited_ms) = (1_600_000_000_000, 1_650_000_000_000);
        feed.replace(vec![minted("a", "A", long_ago)]);
        let watching = Listings::follow(&feed, &crate::metrics::Metrics::new());
        let after = feed.apply(vec![Change::Upsert {
            phrase: Phrase {
                edited: edited_ms * 1000,
                ..minted("a", "A AGAIN", long_ago)
            },
        }]);
        while watching.made.lock().unwrap().snapshot.version < after.version {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let started_after = Listings::follow(&feed, &crate::metrics::Metrics::new());
        assert_eq!(lastmods(&watching, &feed)["a"], rfc3339(edited_ms));
        assert_eq!(lastmods(&started_after, &feed)["a"], rfc3339(edited_ms));
    }

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
        assert_eq!(
            Document::child("phrases-8-15.xml"),
            Label::parse("8-15").map(Document::Phrases)
        );
        assert!(Document::child("phrases-8-15.xml").is_some());
        for bad in [
            "phrases-8-14.xml",
            "phrases-08-15.xml",
            "phrases-1.xml",
            "phrases-8-15.xml.gz",
            "x.xml",
        ] {
            assert_eq!(Document::child(bad), None, "{bad}");
        }
    }
}
