//! Every phrase's confusable skeleton, so a free word that reads like a minted one (a
//! zero for an O, a Cyrillic І for a Latin I) is found in one lookup.
//!
//! One persistent ordered set of (skeleton, created, id): phrases that read alike sit
//! side by side, oldest first, and a new version shares all of it but the path a change
//! touches. Two phrases may share a skeleton (that is the point), so each holds its own
//! entry and removing one leaves the other.

use std::sync::Arc;

use super::phrase::Phrase;
use crate::text::skeleton;

/// A phrase as the index holds it: what it reads as, then its place in the list.
type Entry = (Arc<str>, u64, Arc<str>);

#[derive(Debug, Clone, Default)]
pub(super) struct Skeletons {
    entries: imbl::OrdSet<Entry>,
}

impl Skeletons {
    pub(super) fn from_phrases<'a>(phrases: impl IntoIterator<Item = &'a Arc<Phrase>>) -> Self {
        Self {
            entries: phrases.into_iter().map(|p| entry(p)).collect(),
        }
    }

    pub(super) fn insert(&mut self, phrase: &Phrase) {
        self.entries.insert(entry(phrase));
    }

    pub(super) fn remove(&mut self, phrase: &Phrase) {
        self.entries.remove(&entry(phrase));
    }

    /// (created, id) of every phrase whose skeleton is `skeleton`, oldest first.
    pub(super) fn alike<'a>(&'a self, skeleton: &'a str) -> impl Iterator<Item = (u64, &'a str)> {
        let from: Entry = (skeleton.into(), 0, "".into());
        self.entries
            .range(from..)
            .take_while(move |(read, ..)| &**read == skeleton)
            .map(|(_, created, id)| (*created, &**id))
    }

    /// Every entry in order, for tests to compare with one worked out from scratch.
    #[cfg(test)]
    pub(super) fn entries(&self) -> Vec<(String, u64, String)> {
        (self.entries.iter())
            .map(|(read, created, id)| (read.to_string(), *created, id.to_string()))
            .collect()
    }
}

fn entry(phrase: &Phrase) -> Entry {
    (
        skeleton(&phrase.word).into(),
        phrase.created,
        phrase.id.as_str().into(),
    )
}
