//! Where phrases come from.
//!
//! A [`PhraseSource`] keeps the shared [`Feed`] up to date and can write phrases for the
//! operator CLI. With no Firestore configured the host uses [`LocalStore`], a JSON file
//! in the data folder, so a fresh clone runs with no cloud account.

pub mod firestore;
pub mod local;
pub mod saved;

use futures_util::future::BoxFuture;

use crate::snapshot::{Feed, Phrase};

/// Why a store operation failed, in words an operator can act on.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("the phrase {word:?} is already taken (by {name})")]
    Taken { word: String, name: String },
    #[error("no phrase has the id {0:?}")]
    NoSuchId(String),
    #[error(transparent)]
    Word(#[from] crate::text::WordError),
    #[error("{0}")]
    Backend(String),
}

/// A store of phrases that keeps a [`Feed`] current.
pub trait PhraseSource: Send + Sync {
    /// Loads the phrases once and then keeps `feed` current until the process ends.
    fn start(&self, feed: Feed) -> BoxFuture<'_, Result<(), StoreError>>;
    /// Every phrase, in document order.
    fn list(&self) -> BoxFuture<'_, Result<Vec<Phrase>, StoreError>>;
    /// Adds a phrase (already validated); refuses a word already taken.
    fn add(&self, word: String, name: String) -> BoxFuture<'_, Result<Phrase, StoreError>>;
    /// Removes the phrase with `id`.
    fn remove(&self, id: String) -> BoxFuture<'_, Result<Phrase, StoreError>>;
}
