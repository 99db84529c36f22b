//! One minted phrase, as the list holds it and clients receive it.

use serde::{Deserialize, Serialize};

/// One minted phrase, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Phrase {
    /// The document id.
    pub id: String,
    /// The phrase itself, upper case, at most 20 characters.
    pub word: String,
    /// Who minted it.
    pub name: String,
    /// When it was minted, in microseconds since 1970 (Firestore's create time, or the
    /// embedded store's clock, one past the newest so that it is also the order of
    /// minting); the list is newest first. Below [`FIRST_TIME_US`] an order with no time:
    /// what a store made before it kept times held.
    #[serde(default)]
    pub created: u64,
    /// When it was last written, in microseconds since 1970, where the store says
    /// (Firestore's update time: the same on every replica and after a restart); 0 where
    /// it does not (the embedded store). Not sent to browsers: only the sitemap and the
    /// feed date edits.
    #[serde(skip)]
    pub edited: u64,
}

/// `created` from here on is a time (September 2001); below it, an order only.
pub const FIRST_TIME_US: u64 = 1_000_000_000_000_000;
/// And up to here (the year 3000): past it, a row written by hand in other units (such
/// as nanoseconds), which no date should be made of.
pub const LAST_TIME_US: u64 = 32_503_680_000_000_000;

impl Phrase {
    /// When it was minted, in Unix milliseconds, if `created` is a time.
    pub fn minted_ms(&self) -> Option<u64> {
        time_ms(self.created)
    }

    /// When it was last written, in Unix milliseconds, if its store keeps that.
    pub fn edited_ms(&self) -> Option<u64> {
        time_ms(self.edited)
    }
}

/// `micros` in Unix milliseconds, if it is a time (not an order, nor other units).
fn time_ms(micros: u64) -> Option<u64> {
    (FIRST_TIME_US..LAST_TIME_US)
        .contains(&micros)
        .then_some(micros / 1000)
}
