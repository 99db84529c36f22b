//! Fans the phrase feed out to every browser.
//!
//! One task turns each new snapshot into a versioned change message, encodes it once,
//! and broadcasts the same bytes to every socket. It keeps a short log of recent
//! changes so a browser that reconnects with the version it has gets only what it
//! missed. A socket that falls behind the broadcast buffer is not waited for: it gets a
//! fresh snapshot when it catches up.

use std::collections::VecDeque;
use std::sync::{Arc, RwLock};

use axum::extract::ws::Utf8Bytes;
use serde::Serialize;
use tokio::sync::{broadcast, watch};

use crate::snapshot::{Feed, Phrase, Snapshot};

/// How many change messages a socket may be behind before it is resynced.
const BROADCAST_BUFFER: usize = 64;
/// How many recent versions a reconnecting browser can resume from.
const LOG_LENGTH: usize = 256;

/// One change to the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Change {
    Upsert { phrase: Phrase },
    Remove { id: String },
}

/// A message as browsers receive it, with its JSON encoded once.
#[derive(Debug, Clone)]
pub struct Update {
    /// The version the changes apply to.
    pub from: u64,
    /// The version after them.
    pub version: u64,
    /// `{"type":"changes",...}` ready to send.
    pub text: Utf8Bytes,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Wire<'a> {
    Snapshot {
        version: u64,
        phrases: &'a [Phrase],
    },
    Changes {
        from: u64,
        version: u64,
        changes: &'a [Change],
    },
}

/// What a (re)connecting browser should be sent first.
#[derive(Debug)]
pub enum Catchup {
    /// It is up to date.
    Nothing,
    /// The changes it missed, oldest first.
    Changes(Vec<Update>),
    /// Too far behind (or from another process): the whole list at this version.
    Snapshot(u64, Utf8Bytes),
}

/// The fan-out point every WebSocket subscribes to.
#[derive(Clone)]
pub struct Hub {
    feed: Feed,
    updates: broadcast::Sender<Update>,
    /// Recent updates, oldest first, for resuming by version.
    log: Arc<RwLock<VecDeque<Update>>>,
    /// The snapshot encoded once per version.
    encoded_snapshot: Arc<RwLock<(u64, Utf8Bytes)>>,
}

impl Hub {
    /// Starts following `feed`.
    pub fn start(feed: Feed) -> Hub {
        let (updates, _) = broadcast::channel(BROADCAST_BUFFER);
        // Take the starting point now, not in the task, so a change published before the
        // task first runs is still seen as a change.
        let mut receiver = feed.subscribe();
        let current = receiver.borrow_and_update().clone();
        let hub = Hub {
            encoded_snapshot: Arc::new(RwLock::new((current.version, encode_snapshot(&current)))),
            feed,
            updates,
            log: Arc::default(),
        };
        hub.feed.spawn_task(hub.clone().follow(receiver, current));
        hub
    }

    /// Receives every update from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Update> {
        self.updates.subscribe()
    }

    /// What a browser that has `since` needs to be current.
    pub fn catch_up(&self, since: Option<u64>) -> Catchup {
        let current = self.feed.current();
        // Before the first list an empty snapshot would tell browsers nothing is minted;
        // they get the list when it loads, as an update.
        if since == Some(current.version) || !current.loaded {
            return Catchup::Nothing;
        }
        if let Some(since) = since
            && let Ok(log) = self.log.read()
            && let Some(start) = log.iter().position(|update| update.from == since)
        {
            let missed: Vec<Update> = log.iter().skip(start).cloned().collect();
            if missed.last().is_some_and(|u| u.version == current.version) {
                return Catchup::Changes(missed);
            }
        }
        Catchup::Snapshot(current.version, self.snapshot_text(&current))
    }

    /// The current list as a snapshot message.
    pub fn snapshot(&self) -> (u64, Utf8Bytes) {
        let current = self.feed.current();
        (current.version, self.snapshot_text(&current))
    }

    fn snapshot_text(&self, snapshot: &Snapshot) -> Utf8Bytes {
        if let Ok(cached) = self.encoded_snapshot.read()
            && cached.0 == snapshot.version
        {
            return cached.1.clone();
        }
        let text = encode_snapshot(snapshot);
        if let Ok(mut cached) = self.encoded_snapshot.write() {
            *cached = (snapshot.version, text.clone());
        }
        text
    }

    async fn follow(
        self,
        mut receiver: watch::Receiver<Arc<Snapshot>>,
        mut previous: Arc<Snapshot>,
    ) {
        while receiver.changed().await.is_ok() {
            let next = receiver.borrow_and_update().clone();
            let changes = diff(&previous.phrases, &next.phrases);
            let update = Update {
                from: previous.version,
                version: next.version,
                text: encode(&Wire::Changes {
                    from: previous.version,
                    version: next.version,
                    changes: &changes,
                }),
            };
            if let Ok(mut log) = self.log.write() {
                if log.len() == LOG_LENGTH {
                    log.pop_front();
                }
                log.push_back(update.clone());
            }
            // No receivers is fine: nobody is connected.
            let _ = self.updates.send(update);
            previous = next;
        }
    }
}

/// The changes that turn `old` into `new`; both are in document order.
pub fn diff(old: &[Phrase], new: &[Phrase]) -> Vec<Change> {
    let mut changes = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if a.id == b.id => {
                if a != b {
                    changes.push(Change::Upsert { phrase: b.clone() });
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.id < b.id => {
                changes.push(Change::Remove { id: a.id.clone() });
                i += 1;
            }
            (Some(a), None) => {
                changes.push(Change::Remove { id: a.id.clone() });
                i += 1;
            }
            (_, Some(b)) => {
                changes.push(Change::Upsert { phrase: b.clone() });
                j += 1;
            }
            (None, None) => break,
        }
    }
    changes
}

fn encode_snapshot(snapshot: &Snapshot) -> Utf8Bytes {
    encode(&Wire::Snapshot {
        version: snapshot.version,
        phrases: &snapshot.phrases,
    })
}

fn encode(wire: &Wire<'_>) -> Utf8Bytes {
    // Serialising plain strings and numbers cannot fail.
    Utf8Bytes::from(serde_json::to_string(wire).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::test_phrase as phrase;

    #[test]
    fn diff_finds_inserts_updates_and_removals_in_order() {
        let old = [phrase("a", "A"), phrase("b", "B"), phrase("d", "D")];
        let new = [phrase("b", "B2"), phrase("c", "C"), phrase("d", "D")];
        assert_eq!(
            diff(&old, &new),
            vec![
                Change::Remove { id: "a".into() },
                Change::Upsert {
                    phrase: phrase("b", "B2")
                },
                Change::Upsert {
                    phrase: phrase("c", "C")
                },
            ]
        );
    }

    #[tokio::test]
    async fn a_reconnecting_browser_gets_only_what_it_missed() {
        let feed = Feed::new();
        let start = feed.publish(vec![phrase("a", "A")]).version;
        let hub = Hub::start(feed.clone());
        let mut updates = hub.subscribe();
        feed.publish(vec![phrase("a", "A"), phrase("b", "B")]);
        let first = updates.recv().await.unwrap();
        feed.publish(vec![phrase("b", "B")]);
        let second = updates.recv().await.unwrap();
        assert_eq!((first.from, second.from), (start, start + 1));
        assert!(second.text.as_str().contains(r#"{"op":"remove","id":"a"}"#));

        let Catchup::Changes(missed) = hub.catch_up(Some(start)) else {
            panic!("expected the two changes");
        };
        assert_eq!(missed.len(), 2);
        assert!(matches!(hub.catch_up(Some(start + 2)), Catchup::Nothing));
        let Catchup::Snapshot(_, text) = hub.catch_up(Some(12345)) else {
            panic!("an unknown version gets the snapshot");
        };
        assert!(text.as_str().starts_with(r#"{"type":"snapshot""#));
        assert!(matches!(hub.catch_up(None), Catchup::Snapshot(..)));
    }
}
