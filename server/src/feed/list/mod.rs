//! The minted phrases of one version, newest first, made to be shared.
//!
//! The list is a run of chunks of at most [`CHUNK_MAX`] phrases, each behind an `Arc`,
//! with the id and word indexes in persistent maps. A new version shares every chunk but
//! the one a change touches, so a change costs its own size (and a pointer per chunk),
//! never a copy of 100,000 phrases, while readers keep the version they started with.
//! Each chunk also keeps its words in one buffer, so finding the phrases that contain
//! some text is one `memmem` pass over contiguous bytes. The skeleton index beside them
//! finds the phrases that read like a word, at the same cost per change.

mod chunk;
mod cursor;
mod phrase;
mod skeletons;

use std::cmp::Ordering;
use std::sync::Arc;

use memchr::memmem;
use serde::Serialize;

use chunk::{CHUNK_BUILD, CHUNK_MAX, Chunk};
pub use cursor::Cursor;
use cursor::phrase_order;
pub use phrase::{FIRST_TIME_US, LAST_TIME_US, MAX_CREATED, Phrase};
use skeletons::Skeletons;

/// Phrases on a page of the grid and of the API by default: 1, 2, 3 and 4 columns all
/// fill their rows.
pub const PAGE_SIZE: usize = 48;

/// Where a page starts.
#[derive(Debug, Clone, Copy)]
pub enum Anchor<'a> {
    /// The newest phrases.
    First,
    /// The phrases just older than the cursor.
    After(&'a Cursor),
    /// The phrases just newer than the cursor.
    Before(&'a Cursor),
}

/// One page of the list (or of the phrases that match a find).
#[derive(Debug, Clone, Serialize)]
pub struct ListPage {
    /// Newest first.
    pub phrases: Vec<Arc<Phrase>>,
    /// Where the following (older) page starts, if there is one.
    pub next: Option<Cursor>,
    /// Where the preceding (newer) page ends, if there is one: ask with `before`.
    pub prev: Option<Cursor>,
    /// The phrase just newer than the first shown (`None`: the page starts at the
    /// newest): `after` it is the one address of what this page shows, however it was
    /// asked for (`before`, a cursor between phrases, one whose phrase was removed).
    pub start: Option<Cursor>,
}

/// Where a phrase is stored: its chunk, and its index in that chunk.
type Position = (usize, usize);

/// The phrases at one version. Cloning shares everything.
#[derive(Debug, Clone, Default)]
pub struct PhraseList {
    chunks: Vec<Arc<Chunk>>,
    len: usize,
    /// Each id's `created`, to find its phrase.
    created: imbl::HashMap<Arc<str>, u64>,
    /// How many phrases hold each word (other tools may store one twice).
    words: imbl::HashMap<Arc<str>, u32>,
    /// What each phrase reads as, for the look-alikes of a word.
    skeletons: Skeletons,
}

impl PhraseList {
    /// The list of `phrases`; of two with one id, the later wins.
    pub fn from_phrases(phrases: Vec<Phrase>) -> Self {
        let mut by_id = std::collections::HashMap::with_capacity(phrases.len());
        for phrase in phrases {
            by_id.insert(phrase.id.clone(), phrase);
        }
        let mut phrases: Vec<Phrase> = by_id.into_values().collect();
        phrases.sort_unstable_by(phrase_order);
        let mut list = Self {
            len: phrases.len(),
            ..Self::default()
        };
        for phrase in &phrases {
            list.created
                .insert(phrase.id.as_str().into(), phrase.created);
            *list.words.entry(phrase.word.as_str().into()).or_default() += 1;
        }
        let phrases: Vec<Arc<Phrase>> = phrases.into_iter().map(Arc::new).collect();
        list.skeletons = Skeletons::from_phrases(&phrases);
        let mut phrases = phrases.into_iter().peekable();
        while phrases.peek().is_some() {
            let chunk: Vec<Arc<Phrase>> = phrases.by_ref().take(CHUNK_BUILD).collect();
            list.chunks.push(Arc::new(Chunk::new(chunk)));
        }
        list
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether a phrase holds `word` (already normalised).
    pub fn contains_word(&self, word: &str) -> bool {
        self.words.contains_key(word)
    }

    pub fn get(&self, id: &str) -> Option<&Arc<Phrase>> {
        self.at(*self.created.get(id)?, id)
    }

    /// The phrase with `id`, found by its `created`.
    fn at(&self, created: u64, id: &str) -> Option<&Arc<Phrase>> {
        let cursor = Cursor {
            created,
            id: id.to_owned(),
        };
        let (chunk, index) = self.position(&cursor);
        self.chunks
            .get(chunk)?
            .phrases
            .get(index)
            .filter(|phrase| phrase.id == id)
    }

    /// The phrases that read as `skeleton` (a word's [`skeleton`](crate::text::skeleton)),
    /// the word itself included when it is minted, oldest first.
    pub fn alike<'a>(&'a self, skeleton: &'a str) -> impl Iterator<Item = &'a Arc<Phrase>> + 'a {
        (self.skeletons.alike(skeleton)).filter_map(|(created, id)| self.at(created, id))
    }

    /// Whether any phrase reads like a word whose skeleton is `skeleton`.
    pub fn reads_like_any(&self, skeleton: &str) -> bool {
        self.skeletons.alike(skeleton).next().is_some()
    }

    /// Every phrase, newest first.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Phrase>> {
        self.chunks.iter().flat_map(|chunk| chunk.phrases.iter())
    }

    /// Every phrase from the `skip`th newest on, newest first; skipping costs a step per
    /// chunk, not per phrase.
    pub fn iter_from(&self, mut skip: usize) -> impl Iterator<Item = &Arc<Phrase>> {
        let mut chunks = self.chunks.iter();
        let mut first: &[Arc<Phrase>] = &[];
        for chunk in chunks.by_ref() {
            if skip < chunk.phrases.len() {
                first = &chunk.phrases[skip..];
                break;
            }
            skip -= chunk.phrases.len();
        }
        first
            .iter()
            .chain(chunks.flat_map(|chunk| chunk.phrases.iter()))
    }

    /// How many phrases are newer than the phrase `id` (the oldest has rank `len() - 1`),
    /// in a step per chunk; `None` when there is no such phrase.
    pub fn rank(&self, id: &str) -> Option<usize> {
        Some(self.places_before(&Cursor {
            created: *self.created.get(id)?,
            id: id.to_owned(),
        }))
    }

    /// How many phrases were created after `created`, in a step per chunk.
    pub fn newer_than(&self, created: u64) -> usize {
        // The empty id sorts before every id at one time, so the cursor sits after every
        // phrase newer than `created` and before all the others.
        self.places_before(&Cursor {
            created,
            id: String::new(),
        })
    }

    /// How many phrases come before `cursor` in the list's order, in a step per chunk.
    fn places_before(&self, cursor: &Cursor) -> usize {
        let (chunk, index) = self.position(cursor);
        let before: usize = self.chunks[..chunk].iter().map(|c| c.phrases.len()).sum();
        before + index
    }

    /// Adds `phrase` or replaces the one with its id; false when it was there as it is.
    pub fn upsert(&mut self, phrase: Phrase) -> bool {
        match self.get(&phrase.id) {
            Some(old) if **old == phrase => return false,
            Some(_) => {
                self.remove(&phrase.id);
            }
            None => {}
        }
        self.created
            .insert(phrase.id.as_str().into(), phrase.created);
        *self.words.entry(phrase.word.as_str().into()).or_default() += 1;
        self.skeletons.insert(&phrase);
        self.len += 1;
        let cursor = Cursor::of(&phrase);
        let phrase = Arc::new(phrase);
        if self.chunks.is_empty() {
            self.chunks.push(Arc::new(Chunk::new(vec![phrase])));
            return true;
        }
        let (chunk, index) = match self.position(&cursor) {
            // After every phrase: at the end of the last chunk.
            (chunk, _) if chunk == self.chunks.len() => {
                (chunk - 1, self.chunks[chunk - 1].phrases.len())
            }
            position => position,
        };
        let target = Arc::make_mut(&mut self.chunks[chunk]);
        target.phrases.insert(index, phrase);
        if target.phrases.len() > CHUNK_MAX {
            let tail = target.phrases.split_off(target.phrases.len() / 2);
            target.reindex();
            self.chunks.insert(chunk + 1, Arc::new(Chunk::new(tail)));
        } else {
            target.reindex();
        }
        true
    }

    /// Removes the phrase with `id`; false when there is none.
    pub fn remove(&mut self, id: &str) -> bool {
        let Some(created) = self.created.remove(id) else {
            return false;
        };
        let cursor = Cursor {
            created,
            id: id.to_owned(),
        };
        let (chunk, index) = self.position(&cursor);
        let target = Arc::make_mut(&mut self.chunks[chunk]);
        let removed = target.phrases.remove(index);
        if target.phrases.is_empty() {
            self.chunks.remove(chunk);
        } else {
            target.reindex();
        }
        self.skeletons.remove(&removed);
        if let Some(count) = self.words.get_mut(removed.word.as_str()) {
            *count -= 1;
            if *count == 0 {
                self.words.remove(removed.word.as_str());
            }
        }
        self.len -= 1;
        true
    }

    /// `cursor` with its phrase's time as the list has it, when that differs: a link made
    /// before its phrase was given a time (a store upgraded to keep them) still leads from
    /// that phrase. `None` when the cursor is right or its phrase is gone.
    fn locate(&self, cursor: &Cursor) -> Option<Cursor> {
        let created = *self.created.get(cursor.id.as_str())?;
        (created != cursor.created).then(|| Cursor {
            created,
            id: cursor.id.clone(),
        })
    }

    /// The position of the first phrase at or after `cursor`.
    fn position(&self, cursor: &Cursor) -> Position {
        let chunk = self.chunks.partition_point(|chunk| {
            chunk
                .phrases
                .last()
                .is_some_and(|last| cursor.cmp_to(last) == Ordering::Greater)
        });
        match self.chunks.get(chunk) {
            Some(found) => (chunk, found.position(cursor)),
            None => (chunk, 0),
        }
    }

    /// Up to `limit` phrases from `anchor`, newest first, of those whose word contains
    /// `find` (already normalised; empty finds nothing out).
    pub fn page(&self, anchor: Anchor<'_>, limit: usize, find: &str) -> ListPage {
        let limit = limit.max(1);
        let located = match anchor {
            Anchor::After(cursor) | Anchor::Before(cursor) => self.locate(cursor),
            Anchor::First => None,
        };
        let anchor = match (anchor, &located) {
            (Anchor::After(_), Some(cursor)) => Anchor::After(cursor),
            (Anchor::Before(_), Some(cursor)) => Anchor::Before(cursor),
            (anchor, _) => anchor,
        };
        let finder = (!find.is_empty()).then(|| memmem::Finder::new(find.as_bytes()));
        let finder = finder.as_ref();
        match anchor {
            Anchor::First | Anchor::After(_) => {
                let start = match anchor {
                    Anchor::After(cursor) => {
                        let (chunk, index) = self.position(cursor);
                        let exact = self
                            .chunks
                            .get(chunk)
                            .and_then(|c| c.phrases.get(index))
                            .is_some_and(|phrase| cursor.cmp_to(phrase) == Ordering::Equal);
                        (chunk, index + usize::from(exact))
                    }
                    _ => (0, 0),
                };
                let mut phrases = self.scan_forward(start, limit + 1, finder);
                let older = phrases.len() > limit;
                phrases.truncate(limit);
                let next = older.then(|| Cursor::of(&phrases[limit - 1]));
                let start = self
                    .scan_backward(start, 1, finder)
                    .pop()
                    .map(|p| Cursor::of(&p));
                let newer = start.is_some();
                let prev = match (newer, phrases.first(), anchor) {
                    (false, ..) => None,
                    (true, Some(first), _) => Some(Cursor::of(first)),
                    (true, None, Anchor::After(cursor)) => Some(cursor.clone()),
                    (true, None, _) => None,
                };
                ListPage {
                    phrases,
                    next,
                    prev,
                    start,
                }
            }
            Anchor::Before(cursor) => {
                let end = self.position(cursor);
                let mut phrases = self.scan_backward(end, limit + 1, finder);
                let newer = phrases.len() > limit;
                let start = phrases.get(limit).map(|p| Cursor::of(p));
                phrases.truncate(limit);
                phrases.reverse();
                let prev = newer.then(|| Cursor::of(&phrases[0]));
                let older = !self.scan_forward(end, 1, finder).is_empty();
                let next = match (older, phrases.last()) {
                    (false, _) => None,
                    (true, Some(last)) => Some(Cursor::of(last)),
                    (true, None) => Some(cursor.clone()),
                };
                ListPage {
                    phrases,
                    next,
                    prev,
                    start,
                }
            }
        }
    }

    /// Up to `limit` matching phrases at or after `start`, in order.
    fn scan_forward(
        &self,
        start: Position,
        limit: usize,
        finder: Option<&memmem::Finder<'_>>,
    ) -> Vec<Arc<Phrase>> {
        let mut out = Vec::new();
        for (chunk_index, chunk) in self.chunks.iter().enumerate().skip(start.0) {
            let from = if chunk_index == start.0 { start.1 } else { 0 };
            let range = from..chunk.phrases.len();
            let indexes: Box<dyn Iterator<Item = usize>> = match finder {
                Some(finder) => Box::new(chunk.matches(range, finder).into_iter()),
                None => Box::new(range),
            };
            for index in indexes {
                if out.len() == limit {
                    return out;
                }
                out.push(chunk.phrases[index].clone());
            }
        }
        out
    }

    /// Up to `limit` matching phrases before `end`, nearest first.
    fn scan_backward(
        &self,
        end: Position,
        limit: usize,
        finder: Option<&memmem::Finder<'_>>,
    ) -> Vec<Arc<Phrase>> {
        let mut out = Vec::new();
        let last = end.0.min(self.chunks.len());
        for chunk_index in (0..=last).rev() {
            let Some(chunk) = self.chunks.get(chunk_index) else {
                continue;
            };
            let to = if chunk_index == end.0 {
                end.1
            } else {
                chunk.phrases.len()
            };
            let indexes: Box<dyn Iterator<Item = usize>> = match finder {
                Some(finder) => Box::new(chunk.matches(0..to, finder).into_iter().rev()),
                None => Box::new((0..to).rev()),
            };
            for index in indexes {
                if out.len() == limit {
                    return out;
                }
                out.push(chunk.phrases[index].clone());
            }
        }
        out
    }
}

impl PartialEq for PhraseList {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for PhraseList {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::skeleton;

    fn phrase(created: u64, id: &str, word: &str) -> Phrase {
        Phrase {
            id: id.into(),
            word: word.into(),
            name: "n".into(),
            created,
            edited: 0,
        }
    }

    fn words(page: &ListPage) -> Vec<&str> {
        page.phrases.iter().map(|p| p.word.as_str()).collect()
    }

    /// `n` phrases W0…W(n-1), created in that order (so W(n-1) is the newest).
    fn numbered(n: u64) -> PhraseList {
        PhraseList::from_phrases(
            (0..n)
                .map(|i| phrase(i + 1, &format!("id{i}"), &format!("W{i}")))
                .collect(),
        )
    }

    #[test]
    fn newest_first_with_ties_in_id_order_and_the_last_of_an_id_winning() {
        let list = PhraseList::from_phrases(vec![
            phrase(1, "a", "OLD"),
            phrase(3, "c", "NEW"),
            phrase(3, "b", "TIE"),
            phrase(2, "a", "A AGAIN"),
        ]);
        let all: Vec<&str> = list.iter().map(|p| p.word.as_str()).collect();
        assert_eq!(all, ["TIE", "NEW", "A AGAIN"]);
        assert!(list.contains_word("A AGAIN") && !list.contains_word("OLD"));
    }

    #[test]
    fn ranks_and_iteration_from_a_rank_agree_with_the_whole_list() {
        let mut list = numbered(3000);
        for i in (0..3000).step_by(7) {
            list.remove(&format!("id{i}"));
        }
        list.upsert(phrase(1500, "late", "LATE"));
        let all: Vec<&Arc<Phrase>> = list.iter().collect();
        for (rank, phrase) in all.iter().enumerate() {
            assert_eq!(list.rank(&phrase.id), Some(rank));
        }
        for skip in [
            0,
            1,
            511,
            512,
            513,
            1800,
            all.len() - 1,
            all.len(),
            all.len() + 5,
        ] {
            let from: Vec<&Arc<Phrase>> = list.iter_from(skip).collect();
            assert_eq!(from, all.get(skip..).unwrap_or_default(), "{skip}");
        }
        assert_eq!(list.rank("id7"), None);
    }

    #[test]
    fn paging_forward_then_back_visits_every_phrase_once() {
        let list = numbered(5000);
        let mut seen = Vec::new();
        let mut page = list.page(Anchor::First, 48, "");
        assert!(page.prev.is_none());
        loop {
            seen.extend(page.phrases.iter().map(|p| p.id.clone()));
            let Some(next) = page.next.clone() else { break };
            page = list.page(Anchor::After(&next), 48, "");
        }
        assert_eq!(seen.len(), 5000);
        let unique: std::collections::HashSet<_> = seen.iter().collect();
        assert_eq!(unique.len(), 5000);
        assert_eq!(seen[0], "id4999");

        let mut back = Vec::new();
        while let Some(prev) = page.prev.clone() {
            page = list.page(Anchor::Before(&prev), 48, "");
            back.extend(page.phrases.iter().rev().map(|p| p.id.clone()));
        }
        assert_eq!(back.len() + 5000 % 48, 5000);
        assert_eq!(back.last().map(String::as_str), Some("id4999"));
    }

    #[test]
    fn a_cursor_survives_additions_and_the_removal_of_its_own_phrase() {
        let mut list = numbered(200);
        let first = list.page(Anchor::First, 48, "");
        let cursor = first.next.clone().unwrap();
        // New phrases go on top; the phrase the cursor names goes away.
        for i in 0..30 {
            assert!(list.upsert(phrase(1000 + i, &format!("new{i}"), &format!("NEW{i}"))));
        }
        assert!(list.remove(&cursor.id));
        let second = list.page(Anchor::After(&cursor), 48, "");
        assert_eq!(second.phrases[0].word, "W151");
        assert_eq!(list.len(), 229);
    }

    #[test]
    fn a_link_made_before_its_phrases_were_timed_leads_from_the_same_phrase() {
        let mut list = numbered(200);
        let first = list.page(Anchor::First, 48, "");
        let next = first.next.clone().unwrap();
        let second = list.page(Anchor::After(&next), 48, "");
        let back = second.prev.clone().unwrap();
        // The store gave every phrase a time, in the same order (an upgraded store).
        for p in list.iter().cloned().collect::<Vec<_>>() {
            let mut timed = (*p).clone();
            timed.created += FIRST_TIME_US;
            list.upsert(timed);
        }
        assert_eq!(
            words(&list.page(Anchor::After(&next), 48, "")),
            words(&second)
        );
        assert_eq!(
            words(&list.page(Anchor::Before(&back), 48, "")),
            words(&first)
        );
    }

    #[test]
    fn upserts_split_chunks_and_removals_drop_them_keeping_order_and_indexes() {
        let mut list = PhraseList::default();
        for i in 0..3000u64 {
            list.upsert(phrase(i, &format!("{i:05}"), &format!("P{i}")));
        }
        assert!(list.chunks.len() >= 3);
        assert!(list.chunks.iter().all(|c| c.phrases.len() <= CHUNK_MAX));
        let ids: Vec<u64> = list.iter().map(|p| p.created).collect();
        assert!(ids.windows(2).all(|w| w[0] > w[1]));
        assert!(
            !list.upsert(phrase(7, "00007", "P7")),
            "unchanged is no change"
        );
        assert!(list.upsert(phrase(7, "00007", "EDITED")));
        assert!(list.contains_word("EDITED") && !list.contains_word("P7"));
        assert_eq!(list.get("00007").unwrap().word, "EDITED");
        for i in 0..3000u64 {
            assert!(list.remove(&format!("{i:05}")));
        }
        assert!(list.is_empty() && list.chunks.is_empty() && !list.contains_word("P1"));
        assert!(!list.remove("00001"));
    }

    #[test]
    fn find_pages_through_matches_only_and_never_across_words() {
        let mut phrases: Vec<Phrase> = (0..3000u64)
            .map(|i| phrase(i, &format!("{i:05}"), &format!("X{i}")))
            .collect();
        phrases.push(phrase(5000, "ab", "AB"));
        phrases.push(phrase(5001, "cd", "CD"));
        let list = PhraseList::from_phrases(phrases);
        // "B\nC" would match across AB and CD if words ran together.
        assert!(list.page(Anchor::First, 10, "BC").phrases.is_empty());
        let first = list.page(Anchor::First, 10, "99");
        assert_eq!(words(&first)[..3], ["X2999", "X2998", "X2997"]);
        let mut all = words(&first).len();
        let mut page = first;
        while let Some(next) = page.next.clone() {
            page = list.page(Anchor::After(&next), 10, "99");
            assert!(page.phrases.iter().all(|p| p.word.contains("99")));
            assert!(page.prev.is_some());
            all += page.phrases.len();
        }
        let expected = (0..3000).filter(|i| i.to_string().contains("99")).count();
        assert_eq!(all, expected);
        let back = list.page(Anchor::Before(page.prev.as_ref().unwrap()), 10, "99");
        assert!(back.phrases.iter().all(|p| p.word.contains("99")));
        assert_eq!(back.phrases.len(), 10);
    }

    #[test]
    fn cursors_read_back_what_they_write_and_refuse_anything_else() {
        let cursor = Cursor {
            created: 42,
            id: "a-b".into(),
        };
        assert_eq!(cursor.to_string(), "42-a-b");
        assert_eq!(Cursor::parse("42-a-b").unwrap(), cursor);
        for bad in [
            "",
            "42",
            "x-a",
            "-a",
            "42-",
            "42-a/b",
            "99999999999999999999999-a",
        ] {
            assert!(Cursor::parse(bad).is_err(), "{bad:?}");
        }
    }

    fn alike_ids(list: &PhraseList, word: &str) -> Vec<String> {
        let read = skeleton(word);
        list.alike(&read).map(|p| p.id.clone()).collect()
    }

    /// The skeleton index as it would be built from scratch from the list's phrases.
    fn index_from_scratch(list: &PhraseList) -> Vec<(String, u64, String)> {
        let mut entries: Vec<(String, u64, String)> = list
            .iter()
            .map(|p| (skeleton(&p.word), p.created, p.id.clone()))
            .collect();
        entries.sort();
        entries
    }

    #[test]
    fn the_skeleton_index_follows_adds_removes_and_edits_of_phrases_that_read_alike() {
        let mut list = PhraseList::from_phrases(vec![phrase(1, "a", "DINO ROAR")]);
        assert_eq!(alike_ids(&list, "DIN0 ROAR"), ["a"]);
        // Two phrases with one skeleton: both are found, oldest first.
        assert!(list.upsert(phrase(2, "b", "D\u{0406}NO ROAR")));
        assert!(list.upsert(phrase(3, "c", "RAWR")));
        assert_eq!(alike_ids(&list, "DIN0 ROAR"), ["a", "b"]);
        // Removing one leaves the other.
        assert!(list.remove("a"));
        assert_eq!(alike_ids(&list, "DINO ROAR"), ["b"]);
        // An edit moves the phrase from its old skeleton to its new one.
        assert!(list.upsert(phrase(2, "b", "RAWR!")));
        assert!(alike_ids(&list, "DINO ROAR").is_empty());
        assert!(!list.reads_like_any(&skeleton("DINO ROAR")));
        assert_eq!(alike_ids(&list, "RAWR!"), ["b"]);
        // The same word stored twice (other tools may) holds two entries.
        assert!(list.upsert(phrase(4, "d", "RAWR")));
        assert_eq!(alike_ids(&list, "RAWR"), ["c", "d"]);
        assert!(list.remove("c"));
        assert_eq!(alike_ids(&list, "RAWR"), ["d"]);
        assert_eq!(list.skeletons.entries(), index_from_scratch(&list));
        // An older version keeps its own index.
        let before = list.clone();
        assert!(list.remove("d"));
        assert_eq!(alike_ids(&before, "RAWR"), ["d"]);
        assert!(alike_ids(&list, "RAWR").is_empty());
    }

    #[test]
    fn the_skeleton_index_always_equals_one_built_from_scratch() {
        // Words from a few confusable letters, so many share a skeleton.
        const LETTERS: [&str; 6] = ["O", "0", "I", "1", "\u{0406}", "\u{041E}"];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        let mut list = PhraseList::default();
        for step in 0..3000u64 {
            let id = format!("id{}", next(40));
            match next(4) {
                0 => {
                    list.remove(&id);
                }
                _ => {
                    let word: String = (0..=next(2))
                        .map(|_| LETTERS[next(LETTERS.len() as u64) as usize])
                        .collect();
                    // Sometimes an edit in place (same created), sometimes a re-mint.
                    let created = list
                        .get(&id)
                        .filter(|_| next(2) == 0)
                        .map_or(step, |p| p.created);
                    list.upsert(phrase(created, &id, &word));
                }
            }
            if step % 50 == 0 {
                assert_eq!(
                    list.skeletons.entries(),
                    index_from_scratch(&list),
                    "step {step}"
                );
                for probe in ["OO", "0I", "I", "\u{041E}1"] {
                    let mut expected: Vec<(u64, String)> = list
                        .iter()
                        .filter(|p| skeleton(&p.word) == skeleton(probe))
                        .map(|p| (p.created, p.id.clone()))
                        .collect();
                    expected.sort();
                    let expected: Vec<String> = expected.into_iter().map(|(_, id)| id).collect();
                    assert_eq!(alike_ids(&list, probe), expected, "step {step}, {probe}");
                }
            }
        }
        assert_eq!(list.skeletons.entries(), index_from_scratch(&list));
        assert_eq!(
            PhraseList::from_phrases(list.iter().map(|p| (**p).clone()).collect())
                .skeletons
                .entries(),
            index_from_scratch(&list)
        );
    }
}
