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
/// And up to here (the year 2200): past it, a row written by hand in other units (such
/// as nanoseconds) or by a clock far off, which no date should be made of.
pub const LAST_TIME_US: u64 = 7_258_118_400_000_000;
/// The largest `created` handed on, JavaScript's largest exact integer: a browser that
/// read a larger one as its cursor or order refused every list after it (a row in
/// nanoseconds, a phrase minted by a clock set to 2300), so the store's readers cap it.
pub const MAX_CREATED: u64 = (1 << 53) - 1;

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
