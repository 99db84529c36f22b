//! A run of neighbouring phrases with their words in one buffer, for the list to share
//! between versions and to search in one pass.

use std::cmp::Ordering;
use std::sync::Arc;

use memchr::memmem;

use super::cursor::Cursor;
use super::phrase::Phrase;

/// Phrases a chunk may hold before it is split in two.
pub(super) const CHUNK_MAX: usize = 1024;
/// Phrases a chunk gets when the list is built whole.
pub(super) const CHUNK_BUILD: usize = 512;
/// Ends every word in a chunk's buffer; no word may hold a control character, so a
/// match never runs from one word into the next.
const SEPARATOR: u8 = b'\n';

#[derive(Debug, Clone)]
pub(super) struct Chunk {
    pub(super) phrases: Vec<Arc<Phrase>>,
    /// Every word followed by [`SEPARATOR`].
    words: Vec<u8>,
    /// Where each word starts in `words`.
    starts: Vec<u32>,
}

impl Chunk {
    pub(super) fn new(phrases: Vec<Arc<Phrase>>) -> Self {
        let mut chunk = Self {
            phrases,
            words: Vec::new(),
            starts: Vec::new(),
        };
        chunk.reindex();
        chunk
    }

    pub(super) fn reindex(&mut self) {
        self.words.clear();
        self.starts.clear();
        for phrase in &self.phrases {
            self.starts.push(self.words.len() as u32);
            self.words.extend_from_slice(phrase.word.as_bytes());
            self.words.push(SEPARATOR);
        }
    }

    /// The first index whose phrase is at or after `cursor`.
    pub(super) fn position(&self, cursor: &Cursor) -> usize {
        self.phrases
            .partition_point(|phrase| cursor.cmp_to(phrase) == Ordering::Greater)
    }

    /// Indexes in `range` whose word contains the finder's needle, in order. A match that
    /// starts or ends inside a flag is none: `🇺🇸` is not in `🇦🇺🇸🇬`, nor `🏴` in `🏴󠁧󠁢󠁳󠁣󠁴󠁿`.
    pub(super) fn matches(
        &self,
        range: std::ops::Range<usize>,
        finder: &memmem::Finder<'_>,
    ) -> Vec<usize> {
        let byte = |index: usize| {
            self.starts
                .get(index)
                .map_or(self.words.len(), |&start| start as usize)
        };
        let (from, to) = (byte(range.start), byte(range.end));
        let needle = finder.needle().len();
        let mut found: Vec<usize> = Vec::new();
        let mut at = from;
        while let Some(offset) = finder.find(&self.words[at..to]) {
            let start = at + offset;
            if splits_flag(&self.words, start) || splits_flag(&self.words, start + needle) {
                // The next match may overlap this one.
                at = start + 1;
                continue;
            }
            let index = self.starts.partition_point(|&s| s as usize <= start) - 1;
            found.push(index);
            at = byte(index + 1);
        }
        found
    }
}

/// Whether `at` falls inside a flag: a tag character (U+E0020..=U+E007F) follows it, or a
/// regional indicator (U+1F1E6..=U+1F1FF) after an odd number of them, pairs of them
/// read from the start of the run.
fn splits_flag(words: &[u8], at: usize) -> bool {
    let tag = words.get(at..at + 4).is_some_and(|c| {
        c[..2] == [0xF3, 0xA0] && (c[2] == 0x81 || (c[2] == 0x80 && c[3] >= 0xA0))
    });
    if tag {
        return true;
    }
    let regional = |at: usize| {
        words
            .get(at..at + 4)
            .is_some_and(|c| c[..3] == [0xF0, 0x9F, 0x87] && (0xA6..=0xBF).contains(&c[3]))
    };
    if !regional(at) {
        return false;
    }
    let before = (1..=at / 4)
        .take_while(|run| regional(at - 4 * run))
        .count();
    before % 2 == 1
}
