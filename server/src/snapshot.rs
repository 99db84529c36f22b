//! The minted phrases as one immutable, versioned value.
//!
//! Every source (the embedded store, Firestore) produces whole phrase lists; [`Feed`]
//! turns each into a new [`Snapshot`] with a fresh version, so readers (the render
//! cache, the JSON API, every WebSocket) compare one number to know what changed.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

/// One minted phrase, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Phrase {
    /// The document id; phrases are ordered by it, like a Firestore collection.
    pub id: String,
    /// The phrase itself, upper case, at most 20 characters.
    pub word: String,
    /// Who minted it.
    pub name: String,
}

/// The whole list at one version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    /// Grows by one with every change. The high bits are chosen at random when the
    /// process starts, so a browser that saw another process (or replica) never
    /// mistakes that process's version for one of ours.
    pub version: u64,
    /// In document-id order (byte order of UTF-8, the same as code point order).
    pub phrases: Vec<Phrase>,
    /// False until the source delivered its first list; pages then say the list is
    /// temporarily unavailable instead of showing an empty one.
    #[serde(skip)]
    pub loaded: bool,
}

impl Snapshot {
    /// Whether `word` (already normalised) is minted.
    pub fn is_taken(&self, word: &str) -> bool {
        self.phrases.iter().any(|phrase| phrase.word == word)
    }
}

/// Sorts phrases into document order and drops repeated ids (the last one wins).
pub fn into_document_order(mut phrases: Vec<Phrase>) -> Vec<Phrase> {
    phrases.reverse();
    phrases.sort_by(|a, b| a.id.cmp(&b.id));
    phrases.dedup_by(|later, earlier| later.id == earlier.id);
    phrases
}

/// Holds the current snapshot and hands it to every reader.
#[derive(Debug, Clone)]
pub struct Feed {
    sender: Arc<watch::Sender<Arc<Snapshot>>>,
}

impl Default for Feed {
    fn default() -> Self {
        Self::new()
    }
}

impl Feed {
    pub fn new() -> Self {
        // 21 random bits above a 32-bit counter keeps every version a safe JS integer.
        let epoch = u64::from(rand_u32() & 0x1f_ffff) << 32;
        let (sender, _) = watch::channel(Arc::new(Snapshot {
            version: epoch,
            phrases: Vec::new(),
            loaded: false,
        }));
        Self {
            sender: Arc::new(sender),
        }
    }

    /// The snapshot as it is now.
    pub fn current(&self) -> Arc<Snapshot> {
        self.sender.borrow().clone()
    }

    /// A receiver that wakes on every new snapshot.
    pub fn subscribe(&self) -> watch::Receiver<Arc<Snapshot>> {
        self.sender.subscribe()
    }

    /// Publishes a new list; does nothing (and keeps the version) when it is unchanged.
    /// Returns the snapshot now current.
    pub fn publish(&self, phrases: Vec<Phrase>) -> Arc<Snapshot> {
        let phrases = into_document_order(phrases);
        self.sender.send_if_modified(|current| {
            if current.loaded && current.phrases == phrases {
                return false;
            }
            *current = Arc::new(Snapshot {
                version: current.version + 1,
                phrases,
                loaded: true,
            });
            true
        });
        self.current()
    }
}

fn rand_u32() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    // RandomState is seeded from the OS per process; enough to tell processes apart.
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    hasher.finish() as u32
}

/// A phrase by "n", for tests.
#[cfg(test)]
pub fn test_phrase(id: &str, word: &str) -> Phrase {
    Phrase {
        id: id.into(),
        word: word.into(),
        name: "n".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::test_phrase as phrase;
    use super::*;

    #[test]
    fn publishing_orders_by_id_and_bumps_the_version_only_on_change() {
        let feed = Feed::new();
        let start = feed.current().version;
        let first = feed.publish(vec![phrase("b", "B"), phrase("a", "A")]);
        assert_eq!(first.version, start + 1);
        assert_eq!(first.phrases[0].id, "a");
        let same = feed.publish(vec![phrase("a", "A"), phrase("b", "B")]);
        assert_eq!(same.version, start + 1);
        let changed = feed.publish(vec![phrase("a", "A")]);
        assert_eq!(changed.version, start + 2);
        assert!(changed.is_taken("A") && !changed.is_taken("B"));
    }

    #[test]
    fn versions_are_safe_javascript_integers() {
        assert!(Feed::new().current().version < (1 << 53));
    }
}
