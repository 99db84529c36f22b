//! A place in the list's order, as pages and clients name it.

use std::cmp::Ordering;
use std::fmt;

use serde::{Serialize, Serializer};

use super::phrase::Phrase;

/// Firestore's limit on a document id.
const MAX_ID_BYTES: usize = 1500;

/// A place in the newest-first order: a phrase's `created`, then its id. It stays a
/// valid place when its phrase is removed, so paging neither skips nor repeats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub created: u64,
    pub id: String,
}

impl Cursor {
    pub fn of(phrase: &Phrase) -> Self {
        Self {
            created: phrase.created,
            id: phrase.id.clone(),
        }
    }

    /// Reads `{created}-{id}`, as [`Cursor`]'s `Display` writes it.
    pub fn parse(text: &str) -> Result<Self, &'static str> {
        const PROBLEM: &str = "a cursor is `{number}-{id}`, as given by the previous page";
        let (created, id) = text.split_once('-').ok_or(PROBLEM)?;
        let created = created.parse().map_err(|_| PROBLEM)?;
        // Any id is a place in the order; only one no document could have is refused.
        if id.is_empty() || id.len() > MAX_ID_BYTES || id.contains('/') {
            return Err(PROBLEM);
        }
        Ok(Self {
            created,
            id: id.to_owned(),
        })
    }

    pub(super) fn cmp_to(&self, phrase: &Phrase) -> Ordering {
        order(self.created, &self.id, phrase.created, &phrase.id)
    }
}

/// Newest first, as the list is: a cursor is "less" than the places older than it.
impl Ord for Cursor {
    fn cmp(&self, other: &Self) -> Ordering {
        order(self.created, &self.id, other.created, &other.id)
    }
}

impl PartialOrd for Cursor {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Cursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.created, self.id)
    }
}

impl Serialize for Cursor {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Newest first; phrases created at the same moment in id order.
pub(super) fn order(a_created: u64, a_id: &str, b_created: u64, b_id: &str) -> Ordering {
    b_created.cmp(&a_created).then_with(|| a_id.cmp(b_id))
}

pub(super) fn phrase_order(a: &Phrase, b: &Phrase) -> Ordering {
    order(a.created, &a.id, b.created, &b.id)
}
