//! Fans the phrase feed out to every browser.
//!
//! One task turns each version's changes into a message the size of those changes,
//! encodes it once, and broadcasts the same bytes to the fan-out ([`crate::live::peers`]),
//! which writes them to every socket. It keeps a short log of recent messages so a
//! browser that reconnects with the version it has, or a socket that fell behind, gets
//! only what it missed; one too far behind is not waited for: it gets the first page
//! afresh (a "snapshot") and starts its list over from there.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use prometheus::IntCounter;
use serde::Serialize;
use tokio::sync::{broadcast, watch};

use crate::feed::list::{Anchor, Cursor, PAGE_SIZE};
use crate::feed::{Change, Delta, Feed, Phrase, Snapshot};
use crate::live::peers::{self, Peer, Peers};
use crate::live::update::{Message, Update};
use crate::net::shared::SharedWrite;

/// How many updates the fan-out may fall behind before it skips to the newest (the
/// sockets it skipped are caught up by their own tasks).
const BROADCAST_BUFFER: usize = 64;
/// How many recent versions a reconnecting browser can resume from.
const LOG_LENGTH: usize = 256;

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Wire<'a> {
    Snapshot {
        version: u64,
        count: usize,
        phrases: &'a [Arc<Phrase>],
        next: Option<Cursor>,
    },
    Changes {
        from: u64,
        version: u64,
        count: usize,
        changes: &'a [Change],
    },
}

/// What a (re)connecting browser should be sent first.
#[derive(Debug)]
pub enum Catchup {
    /// It is up to date at this version.
    Nothing(u64),
    /// There is no list yet (at this version): it is sent the first one when it loads.
    NoList(u64),
    /// The changes it missed, oldest first.
    Changes(Vec<Update>),
    /// Too far behind (or from another process): the first page at this version.
    Snapshot(u64, Message),
}

/// The fan-out point every WebSocket subscribes to.
#[derive(Clone)]
pub struct Hub {
    feed: Feed,
    updates: broadcast::Sender<Update>,
    /// Recent updates, oldest first, for resuming by version.
    log: Arc<RwLock<VecDeque<Update>>>,
    /// The snapshot encoded once per version.
    encoded_snapshot: Arc<RwLock<(u64, Message)>>,
    /// The newest version in the log: what a socket must have before the fan-out may
    /// write to it again.
    newest: Arc<AtomicU64>,
    peers: Arc<Peers>,
    /// Counts the times every socket was told to go: see [`Hub::send_away_when_stale`].
    send_away: Arc<watch::Sender<u64>>,
}

impl Hub {
    /// Starts following `feed`, and the fan-out that writes each change to the sockets,
    /// which counts the messages it sends in `sent`.
    pub fn start(feed: Feed, sent: IntCounter) -> Hub {
        let (updates, _) = broadcast::channel(BROADCAST_BUFFER);
        // Subscribe now, not in the task, so a change published before the task first
        // runs is still passed on.
        let deltas = feed.deltas();
        let current = feed.current();
        let hub = Hub {
            encoded_snapshot: Arc::new(RwLock::new((current.version, encode_snapshot(&current)))),
            newest: Arc::new(AtomicU64::new(current.version)),
            peers: Arc::default(),
            feed,
            updates,
            log: Arc::default(),
            send_away: Arc::default(),
        };
        let (peers, receiver) = (hub.peers.clone(), hub.subscribe());
        hub.feed.spawn_task(peers::fan_out(peers, receiver, sent));
        hub.feed.spawn_task(hub.clone().follow(deltas));
        hub
    }

    /// Once the source has been unreachable for `stale_after`, when `/readyz` turns new
    /// visitors away, tells every live socket to go, once an outage: their browsers
    /// reconnect, through a load balancer to a replica whose list is current (here again
    /// when there is no other, with the same list). Without it they stayed on the stale
    /// list for the whole outage, the checker calling taken words free. A host that never
    /// had the source's list (it has none, or the one saved before it started) was never
    /// ready, so no balancer sent it visitors: its sockets stay.
    pub fn send_away_when_stale(&self, stale_after: std::time::Duration) {
        let mut down = self.feed.health().watch_down();
        let send_away = self.send_away.clone();
        let feed = self.feed.clone();
        self.feed.spawn_task(async move {
            loop {
                let since = *down.borrow_and_update();
                if since != 0 {
                    let stale_at = since.saturating_add(stale_after.as_millis() as u64);
                    let wait = stale_at.saturating_sub(crate::feed::mono_ms());
                    tokio::select! {
                        () = tokio::time::sleep(std::time::Duration::from_millis(wait)) => {
                            if feed.health().since_sync().is_some() {
                                send_away.send_modify(|times| *times += 1);
                                tracing::warn!(
                                    unreachable_s = stale_after.as_secs(),
                                    "the phrase source is unreachable: live browsers sent to reconnect"
                                );
                            }
                        }
                        changed = down.changed() => {
                            if changed.is_err() {
                                return;
                            }
                            continue;
                        }
                    }
                }
                if down.changed().await.is_err() {
                    return;
                }
            }
        });
    }

    /// Changes each time every socket is to go (see [`Hub::send_away_when_stale`]).
    pub fn sent_away(&self) -> watch::Receiver<u64> {
        self.send_away.subscribe()
    }

    /// Receives every update from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<Update> {
        self.updates.subscribe()
    }

    /// Adds a socket to those the fan-out writes to, held by its task until that gives it
    /// back; it leaves with [`Hub::leave`].
    pub fn join(&self, stream: SharedWrite, since: Option<u64>) -> Arc<Peer> {
        self.peers.join(stream, since)
    }

    pub fn leave(&self, peer: &Peer) {
        self.peers.leave(peer);
    }

    /// The newest version published.
    pub fn newest(&self) -> u64 {
        self.newest.load(Ordering::Acquire)
    }

    /// What a browser that has `since` needs to be current.
    pub fn catch_up(&self, since: Option<u64>) -> Catchup {
        let current = self.feed.current();
        // Before the first list an empty snapshot would tell browsers nothing is minted;
        // they get the list when it loads, as an update.
        if !current.loaded {
            return Catchup::NoList(current.version);
        }
        if since == Some(current.version) {
            return Catchup::Nothing(current.version);
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

    fn snapshot_text(&self, snapshot: &Snapshot) -> Message {
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

    async fn follow(self, mut deltas: broadcast::Receiver<Arc<Delta>>) {
        loop {
            let delta = match deltas.recv().await {
                Ok(delta) => delta,
                // Versions went by unseen: nobody can resume across them, and each
                // socket sees the gap on the next update and gets the first page.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    if let Ok(mut log) = self.log.write() {
                        log.clear();
                    }
                    continue;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            };
            let text = match &delta.changes {
                Some(changes) => encode(&Wire::Changes {
                    from: delta.from,
                    version: delta.version,
                    count: delta.count,
                    changes,
                }),
                // More than a page changed (a first load, a resync): every browser starts
                // over from the first page, which it is told in place of the change.
                None => self.snapshot_text(&delta.after),
            };
            let update = Update {
                from: delta.from,
                version: delta.version,
                text,
            };
            if let Ok(mut log) = self.log.write() {
                if log.len() == LOG_LENGTH {
                    log.pop_front();
                }
                log.push_back(update.clone());
            }
            // After the log has it, so a socket's task that sees this version can catch up to it.
            self.newest.store(update.version, Ordering::Release);
            // No receivers is fine: nobody is connected.
            let _ = self.updates.send(update);
        }
    }
}

/// The first page, for a browser that has no version or one too old to resume from.
fn encode_snapshot(snapshot: &Snapshot) -> Message {
    let page = snapshot.list.page(Anchor::First, PAGE_SIZE, "");
    encode(&Wire::Snapshot {
        version: snapshot.version,
        count: snapshot.list.len(),
        phrases: &page.phrases,
        next: page.next,
    })
}

fn encode(wire: &Wire<'_>) -> Message {
    // Serialising plain strings and numbers cannot fail.
    Message::new(&serde_json::to_string(wire).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feed::test_phrase as phrase;

    fn sent() -> IntCounter {
        IntCounter::new("sent", "messages sent").unwrap()
    }

    #[tokio::test]
    async fn a_reconnecting_browser_gets_only_what_it_missed() {
        let feed = Feed::new();
        let start = feed.replace(vec![phrase("a", "A")]).version;
        let hub = Hub::start(feed.clone(), sent());
        let mut updates = hub.subscribe();
        feed.replace(vec![phrase("a", "A"), phrase("b", "B")]);
        let first = updates.recv().await.unwrap();
        feed.replace(vec![phrase("b", "B")]);
        let second = updates.recv().await.unwrap();
        assert_eq!((first.from, second.from), (start, start + 1));
        assert!(
            second
                .text
                .as_str()
                .contains(r#""count":1,"changes":[{"op":"remove","id":"a"}]"#)
        );

        let Catchup::Changes(missed) = hub.catch_up(Some(start)) else {
            panic!("expected the two changes");
        };
        assert_eq!(missed.len(), 2);
        assert!(matches!(hub.catch_up(Some(start + 2)), Catchup::Nothing(_)));
        let Catchup::Snapshot(_, text) = hub.catch_up(Some(12345)) else {
            panic!("an unknown version gets the snapshot");
        };
        assert!(text.as_str().starts_with(r#"{"type":"snapshot""#));
        assert!(matches!(hub.catch_up(None), Catchup::Snapshot(..)));
    }

    #[tokio::test]
    async fn a_change_to_a_long_list_is_a_message_of_its_own_size_and_a_snapshot_one_page() {
        let feed = Feed::new();
        let many = (0..20_000)
            .map(|i| phrase(&format!("{i:06}"), &format!("P{i}")))
            .collect();
        feed.replace(many);
        let hub = Hub::start(feed.clone(), sent());
        let mut updates = hub.subscribe();
        let mut added = phrase("new", "NEW ONE");
        added.created = 1;
        feed.apply(vec![Change::Upsert { phrase: added }]);
        let update = updates.recv().await.unwrap();
        assert!(update.text.as_str().len() < 200, "{}", update.text.as_str());
        assert!(update.text.as_str().contains(r#""count":20001"#));
        let Catchup::Snapshot(_, snapshot) = hub.catch_up(None) else {
            panic!("a browser with no version gets the first page");
        };
        assert!(
            snapshot.as_str().len() < 5_000,
            "{} bytes",
            snapshot.as_str().len()
        );
        assert!(
            snapshot
                .as_str()
                .contains(r#""phrases":[{"id":"new","word":"NEW ONE""#)
        );
        assert!(snapshot.as_str().contains(r#""count":20001"#));
    }
}
