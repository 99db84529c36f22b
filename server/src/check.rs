//! A word checked against the phrase list, as the checker shows it.

use serde::Serialize;

use crate::snapshot::Snapshot;
use crate::text::{ContentError, NormalizedWord};

/// The outcome of checking a word, shown by the checker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// What the visitor typed.
    pub input: String,
    /// Upper-cased, as phrases are stored.
    pub normalized: String,
    /// Characters (grapheme clusters) of `normalized`.
    pub length: usize,
    pub status: CheckStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Empty,
    Available,
    Taken,
    TooLong,
    /// Holds something no phrase may (an invisible, control or unassigned character).
    Invalid,
    /// The list has not loaded yet, so nobody can tell.
    Unavailable,
}

impl Check {
    pub fn new(input: &str, snapshot: &Snapshot) -> Self {
        let NormalizedWord { word, length } = NormalizedWord::new(input);
        let status = match NormalizedWord::validated(input) {
            Err(ContentError::Empty { .. }) => CheckStatus::Empty,
            Err(ContentError::TooLong { .. }) => CheckStatus::TooLong,
            Err(_) => CheckStatus::Invalid,
            Ok(_) if !snapshot.loaded => CheckStatus::Unavailable,
            Ok(_) if snapshot.is_taken(&word) => CheckStatus::Taken,
            Ok(_) => CheckStatus::Available,
        };
        Self {
            input: input.into(),
            normalized: word,
            length,
            status,
        }
    }
}
