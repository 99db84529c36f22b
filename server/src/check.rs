//! A word checked against the phrase list, and text to find in it: one decision for the
//! page's no-script answer and for the JSON API.

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
    /// Why the word cannot be a phrase, for the API to say.
    #[serde(skip)]
    pub problem: Option<ContentError>,
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
        let validated = NormalizedWord::validated(input);
        let status = match &validated {
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
            problem: validated.err(),
        }
    }
}

/// Longest text a find looks for, in bytes: more than any phrase may hold.
const MAX_FIND_BYTES: usize = 400;

/// `input` as a find looks for it (normalised like a phrase, so `ab` finds `AB`), or why
/// it cannot be looked for. Empty finds everything.
pub fn find_text(input: &str) -> Result<String, String> {
    if input.len() > MAX_FIND_BYTES {
        return Err(format!(
            "the text to find is longer than {MAX_FIND_BYTES} bytes; no phrase could hold it"
        ));
    }
    match NormalizedWord::validated(input) {
        Ok(valid) => Ok(valid.word),
        Err(ContentError::Empty { .. }) => Ok(String::new()),
        // Longer than a phrase finds nothing, which is an answer, not an error.
        Err(ContentError::TooLong { .. }) => Ok(NormalizedWord::new(input).word),
        Err(error) => Err(error.to_string()),
    }
}
