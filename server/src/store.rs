//! Where phrases come from and where the operator CLI writes them.
//!
//! With no Firestore configured the host uses [`embedded::EmbeddedStore`], an SQLite
//! database in the data folder, so a fresh clone runs with no cloud account; with a
//! project it follows `firestore`. Both take only a [`NewPhrase`], which exists only
//! once the content rules (`crate::text`) have passed, so no way in can skip them.
//!
//! Firestore is a cargo feature, on by default: without it (`scripts/run` and
//! `scripts/dev`, which serve the embedded store) the build skips its client, a sixth of
//! a clean build.

pub mod embedded;
#[cfg(feature = "firestore")]
pub mod firestore;
pub mod saved;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;

use crate::feed::{Feed, Phrase};
use crate::metrics::Metrics;
use crate::text::{ContentError, NormalizedWord, quoted, terminal_safe, validated_name};
use embedded::{EmbeddedStore, Seed};
#[cfg(feature = "firestore")]
use firestore::FirestoreStore;

/// Where the collection lives.
#[derive(Debug, Clone)]
pub struct FirestoreSettings {
    pub project: String,
    pub database: String,
    pub collection: String,
    /// How long the listener waits before reconnecting after an error.
    pub retry_delay: Duration,
}

/// The configured store: the one place that tells the two kinds apart.
#[derive(Debug, Clone)]
pub enum Backend {
    /// The SQLite database in this folder.
    Embedded { data_dir: PathBuf },
    /// A Firestore collection; the folder keeps the last list seen, for a restart while
    /// Firestore does not answer.
    Firestore {
        settings: FirestoreSettings,
        data_dir: PathBuf,
    },
}

impl Backend {
    pub fn of(store: &crate::config::Store) -> Self {
        let data_dir = store.data_dir.clone();
        match &store.firestore {
            Some(settings) => Backend::Firestore {
                settings: settings.clone(),
                data_dir,
            },
            None => Backend::Embedded { data_dir },
        }
    }

    /// Keeps `feed` current from the store, counting what it skips or sends again in
    /// `metrics`. Firestore is followed in the background (the host serves the saved
    /// list, or an "unavailable" page, until it answers); the embedded store must load
    /// now, and is created with sample phrases when missing if `samples` (never in
    /// production: a volume lost or not mounted would be served as a site of made-up
    /// phrases, taken for real).
    /// Follows the store into `feed`. Returns the ids of phrases the store says were
    /// removed before this start (the embedded store keeps them; Firestore does not),
    /// at most `gone_limit`.
    pub async fn follow(
        &self,
        feed: &Feed,
        metrics: &Metrics,
        samples: bool,
        gone_limit: u64,
    ) -> anyhow::Result<Vec<String>> {
        match self {
            #[cfg(feature = "firestore")]
            Backend::Firestore { settings, data_dir } => {
                use anyhow::Context as _;
                std::fs::create_dir_all(data_dir).with_context(|| {
                    format!("cannot create the data folder {}", data_dir.display())
                })?;
                saved::restore_and_keep(data_dir, feed);
                firestore::follow(settings.clone(), feed.clone(), metrics);
                Ok(Vec::new())
            }
            #[cfg(not(feature = "firestore"))]
            Backend::Firestore { .. } => Err(built_without_firestore()),
            Backend::Embedded { data_dir } => {
                let store = if samples {
                    EmbeddedStore::open_or_create(data_dir, Seed::Samples)?.0
                } else {
                    EmbeddedStore::open(data_dir)?
                };
                Ok(store.start(feed.clone(), metrics, gone_limit)?)
            }
        }
    }

    /// The store for the operator CLI. An embedded store must exist: the CLI never
    /// makes one up, except `phrases init`.
    pub async fn writer(&self) -> anyhow::Result<Arc<dyn PhraseStore>> {
        Ok(match self {
            #[cfg(feature = "firestore")]
            Backend::Firestore { settings, .. } => Arc::new(
                FirestoreStore::connect(settings.clone(), firestore::Patience::COMMAND).await?,
            ),
            #[cfg(not(feature = "firestore"))]
            Backend::Firestore { .. } => return Err(built_without_firestore()),
            Backend::Embedded { data_dir } => Arc::new(EmbeddedStore::open(data_dir)?),
        })
    }
}

#[cfg(not(feature = "firestore"))]
fn built_without_firestore() -> anyhow::Error {
    anyhow::anyhow!(
        "a Firestore project is configured, but this host was built without Firestore (scripts/run builds it so): build it with scripts/build, or `cargo build` with the default features, or choose the embedded store (--store embedded)"
    )
}

/// Why a store operation failed, in words an operator can act on.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("{path}: {reason}")]
    Database { path: String, reason: String },
    #[error(transparent)]
    Refused(#[from] embedded::inspect::Refusal),
    #[error("there is no phrase store at {path}: {hint}")]
    Missing { path: String, hint: String },
    // Quoted as written (Bengali's vowel signs, Arabic's marks), not as Rust's Debug
    // escapes them; what a terminal could act on is escaped.
    #[error("the phrase {} is already taken (by {})", quoted(.word), quoted(.name))]
    Taken { word: String, name: String },
    #[error("no phrase has the id {}", quoted(.0))]
    NoSuchId(String),
    #[error(transparent)]
    Content(#[from] ContentError),
    #[error("{0}")]
    Backend(String),
    /// An import in several commits stopped at one: those before it were committed.
    #[error("{cause} (after {committed} phrases were committed)")]
    Partial {
        committed: usize,
        cause: Box<StoreError>,
    },
}

/// A phrase that follows the content rules, ready to be stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPhrase {
    /// Normalised: NFC, spaces folded, upper case.
    pub word: String,
    /// NFC, spaces folded, trimmed.
    pub name: String,
}

impl NewPhrase {
    /// Applies every content rule to a phrase and its author as typed.
    pub fn validated(word: &str, name: &str) -> Result<Self, ContentError> {
        Ok(Self {
            word: NormalizedWord::validated(word)?.word,
            name: validated_name(name)?,
        })
    }
}

/// What became of one phrase of an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddOutcome {
    Added(Phrase),
    /// The word was minted already, by `name`.
    Taken {
        word: String,
        name: String,
    },
}

/// What an add did, and every phrase of the store as it read them to decide, when it
/// read them all (Firestore, where documents written by other tools carry no guard): the
/// CLI's look for phrases that read alike takes those rather than read the store again,
/// which on Firestore is a billed read of each document.
#[derive(Debug)]
pub struct Added<T> {
    pub done: T,
    pub read: Option<Vec<Phrase>>,
}

/// A store the operator CLI reads and writes.
pub trait PhraseStore: Send + Sync {
    /// Every phrase that follows the content rules.
    fn list(&self) -> BoxFuture<'_, Result<Vec<Phrase>, StoreError>>;
    /// Every phrase's id, word and name as stored, oldest first, for looks that need no
    /// more: a store that checks each row against the content rules to list it may skip
    /// that here (the CLI's look for phrases that read alike, after every add).
    fn words(&self) -> BoxFuture<'_, Result<Vec<Phrase>, StoreError>> {
        self.list()
    }
    /// Adds a phrase; refuses a word already taken, atomically, whoever else is adding.
    fn add(&self, phrase: NewPhrase) -> BoxFuture<'_, Result<Added<Phrase>, StoreError>>;
    /// Adds many phrases, each as [`PhraseStore::add`] would, in as few round trips as
    /// the store allows; one outcome per phrase, in order.
    fn add_many(
        &self,
        phrases: Vec<NewPhrase>,
    ) -> BoxFuture<'_, Result<Added<Vec<AddOutcome>>, StoreError>>;
    /// Removes the phrase with `id`.
    fn remove(&self, id: String) -> BoxFuture<'_, Result<Phrase, StoreError>>;
}

/// The entries of a JSON array, each still unparsed: the array's shape is checked whole,
/// but what is inside an entry (a lone surrogate's escape, which no string can hold) is
/// left for the entry's own parse to refuse.
pub fn json_entries(text: &str) -> serde_json::Result<Vec<&serde_json::value::RawValue>> {
    serde_json::from_str(text)
}

/// Why an entry [`json_entries`] gave did not parse, without the position, which counts
/// from the entry's start rather than the file's.
pub fn entry_error(error: &serde_json::Error) -> String {
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    message
        .strip_suffix(&position)
        .unwrap_or(&message)
        .to_owned()
}

/// A 20-character id like the ones Firestore generates.
pub fn new_document_id() -> String {
    const ALPHABET: &[u8; 62] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    // Bytes from 248 (four times 62) up are drawn again, so every character is as likely.
    let mut id = String::with_capacity(20);
    let mut bytes = [0u8; 32];
    while id.len() < 20 {
        getrandom::fill(&mut bytes).expect("the system's random source answers");
        let wanted = 20 - id.len();
        id.extend(
            bytes
                .iter()
                .filter(|&&byte| byte < 248)
                .take(wanted)
                .map(|&byte| char::from(ALPHABET[usize::from(byte % 62)])),
        );
    }
    id
}

/// Whether `id` can name a document as Firestore allows: 1 to 1,500 bytes, no `/`, not
/// `.` or `..`, and (our rule) nothing invisible or a terminal would act on, and not only
/// spaces: its page's address would show nothing. Pages escape ids like any other text.
pub fn is_document_id(id: &str) -> bool {
    (1..=1500).contains(&id.len())
        && id != "."
        && id != ".."
        && !id.contains('/')
        && terminal_safe(id) == id
        && !id.chars().any(crate::text::default_ignorable)
        && !id.chars().all(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{HashMap, HashSet};

    #[test]
    fn document_ids_are_twenty_characters_each_as_likely_and_never_repeat() {
        let ids: Vec<String> = (0..10_000).map(|_| new_document_id()).collect();
        assert!(ids.iter().all(|id| id.len() == 20 && is_document_id(id)));
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len());
        let mut counts = HashMap::new();
        for c in ids.iter().flat_map(|id| id.chars()) {
            *counts.entry(c).or_insert(0u32) += 1;
        }
        // 200,000 characters over 62: each near 3,226, give or take 56. The first eight a
        // quarter again as likely (near 3,900), as `byte % 62` over all 256 bytes would
        // make them, is far outside these bounds.
        assert_eq!(counts.len(), 62);
        assert!(
            counts.values().all(|&n| (2_950..=3_500).contains(&n)),
            "{counts:?}"
        );
    }
}
