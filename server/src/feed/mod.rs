//! The minted phrases as one immutable, versioned value.
//!
//! Sources (the embedded store, Firestore) hand [`Feed`] their changes; each change that
//! changes something makes a new [`Snapshot`] with a fresh version, so readers (the
//! render cache, the JSON API, every WebSocket) compare one number to know what
//! changed, and a [`Delta`] saying what did, for the hub to pass on as it is.

pub mod alternatives;
pub mod check;
pub mod list;
pub mod paging;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde::Serialize;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use crate::feed::list::Phrase;
use crate::feed::list::PhraseList;

/// One change to the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Change {
    Upsert { phrase: Phrase },
    Remove { id: String },
}

impl Change {
    /// The id of the phrase changed.
    pub fn id(&self) -> &str {
        match self {
            Change::Upsert { phrase } => &phrase.id,
            Change::Remove { id } => id,
        }
    }
}

/// What one new version changed, for the hub to pass on.
#[derive(Debug)]
pub struct Delta {
    pub from: u64,
    pub version: u64,
    /// Phrases in the list after the change.
    pub count: usize,
    /// `None` when the change is bigger than [`MAX_DELTA`] (a first load, a resync, a
    /// big import): a browser starts over from the first page rather than receive it.
    pub changes: Option<Vec<Change>>,
    /// The list it made.
    pub after: Arc<Snapshot>,
}

/// The most changes a [`Delta`] carries (a message of 200 KB at most); past it a
/// browser starts over.
pub const MAX_DELTA: usize = 500;

/// The whole list at one version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Grows by one with every change. The high bits are chosen at random when the
    /// process starts, so a browser that saw another process (or replica) never
    /// mistakes that process's version for one of ours.
    pub version: u64,
    /// Newest first; shares all but what changed with the version before.
    pub list: PhraseList,
    /// False until the source delivered its first list; pages then say the list is
    /// temporarily unavailable instead of showing an empty one.
    pub loaded: bool,
}

impl Snapshot {
    /// Whether `word` (already normalised) is minted.
    pub fn is_taken(&self, word: &str) -> bool {
        self.list.contains_word(word)
    }
}

/// Holds the current snapshot and hands it to every reader.
#[derive(Debug, Clone)]
pub struct Feed {
    sender: Arc<watch::Sender<Arc<Snapshot>>>,
    /// Every version's changes, in order, for the hub.
    deltas: broadcast::Sender<Arc<Delta>>,
    health: Arc<FeedHealth>,
    /// The long-lived tasks that fill or follow this feed (store watcher, Firestore
    /// follower, saved-list writer, hub): each takes the feed, so it is their handle.
    tasks: TaskTracker,
    /// Cancelled by [`Feed::stop_tasks`].
    stop: CancellationToken,
}

/// How the source behind the feed is doing, for `/readyz` and `/metrics`. What the
/// source skips or sends again is counted in [`crate::metrics::Metrics`] by the store's
/// follower.
#[derive(Debug, Default)]
pub struct FeedHealth {
    /// [`mono_ms`] when the source last confirmed the list is complete (0 = never).
    synced_ms: AtomicU64,
    /// [`mono_ms`] since which the source has been unreachable (0 = reachable);
    /// the hub watches it to send live browsers elsewhere once it has been too long.
    down_since_ms: watch::Sender<u64>,
    /// The list on screen came from the snapshot file, not yet from the source.
    restored: AtomicBool,
    /// Why the source is down, when it says (the embedded store's file went bad).
    problem: std::sync::Mutex<Option<String>>,
}

impl FeedHealth {
    /// The source delivered a complete, consistent list.
    pub fn synced(&self) {
        self.synced_ms.store(mono_ms(), Ordering::Relaxed);
        self.up();
        self.restored.store(false, Ordering::Relaxed);
    }

    /// The source cannot be reached; keeps the earliest time it went down.
    pub fn down(&self) {
        let now = mono_ms();
        self.down_since_ms.send_if_modified(|since| {
            let was_up = *since == 0;
            if was_up {
                *since = now;
            }
            was_up
        });
    }

    /// The source cannot be used, for `reason`; keeps the earliest time it went down.
    pub fn down_because(&self, reason: String) {
        self.down();
        if let Ok(mut problem) = self.problem.lock() {
            *problem = Some(reason);
        }
    }

    /// Why the source is down, if it said.
    pub fn problem(&self) -> Option<String> {
        self.problem.lock().ok().and_then(|problem| problem.clone())
    }

    /// The source answers again (its next complete list will mark it synced).
    pub fn up(&self) {
        self.down_since_ms
            .send_if_modified(|since| std::mem::take(since) != 0);
        if let Ok(mut problem) = self.problem.lock() {
            *problem = None;
        }
    }

    /// Time since the last complete list, or `None` before the first.
    pub fn since_sync(&self) -> Option<std::time::Duration> {
        let synced = self.synced_ms.load(Ordering::Relaxed);
        (synced > 0).then(|| std::time::Duration::from_millis(mono_ms().saturating_sub(synced)))
    }

    /// Whether a complete list has come since `at`.
    pub fn synced_since(&self, at: std::time::Instant) -> bool {
        self.since_sync().is_some_and(|since| since < at.elapsed())
    }

    /// How long the source has been unreachable, or `None` while it is reachable.
    pub fn down_for(&self) -> Option<std::time::Duration> {
        let down = *self.down_since_ms.borrow();
        (down > 0).then(|| std::time::Duration::from_millis(mono_ms().saturating_sub(down)))
    }

    /// [`FeedHealth::down_for`]'s start (0 while the source is reachable), as it changes.
    pub fn watch_down(&self) -> watch::Receiver<u64> {
        self.down_since_ms.subscribe()
    }

    /// Whether the list shown came from the snapshot file and the source has not spoken yet.
    pub fn is_restored(&self) -> bool {
        self.restored.load(Ordering::Relaxed)
    }
}

/// Milliseconds on a clock that only goes forward, from 1 (0 can mean "never"): how long
/// the source has been away is measured on it, as a wall clock set back an hour would
/// hide an outage for that hour and one set forward would make one of a moment.
pub fn mono_ms() -> u64 {
    static START: std::sync::LazyLock<std::time::Instant> =
        std::sync::LazyLock::new(std::time::Instant::now);
    START.elapsed().as_millis() as u64 + 1
}

/// Unix milliseconds as RFC 3339 in UTC, to the second: `2026-11-25T19:30:00Z`.
pub fn rfc3339(ms: u64) -> String {
    let seconds = ms / 1000;
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Microseconds since the Unix epoch, as a phrase's times are kept.
pub fn now_us() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

impl Default for Feed {
    fn default() -> Self {
        Self::new()
    }
}

impl Feed {
    pub fn new() -> Self {
        // 21 random bits above a 32-bit counter keeps every version a safe JS integer.
        let epoch =
            u64::from(getrandom::u32().expect("the system's random source answers") & 0x1f_ffff)
                << 32;
        let (sender, _) = watch::channel(Arc::new(Snapshot {
            version: epoch,
            list: PhraseList::default(),
            loaded: false,
        }));
        let (deltas, _) = broadcast::channel(DELTA_BUFFER);
        Self {
            sender: Arc::new(sender),
            deltas,
            health: Arc::default(),
            tasks: TaskTracker::new(),
            stop: CancellationToken::new(),
        }
    }

    /// Runs `task` until it ends or [`Feed::stop_tasks`] is called.
    pub fn spawn_task(&self, task: impl Future<Output = ()> + Send + 'static) {
        let stop = self.stop.clone();
        self.tasks.spawn(async move {
            tokio::select! {
                () = stop.cancelled() => {}
                () = task => {}
            }
        });
    }

    /// Starts `task` with the token [`Feed::stop_tasks`] cancels, for a task that has
    /// something to finish when told to stop (which is then waited for).
    pub fn spawn_stoppable<F>(&self, task: impl FnOnce(CancellationToken) -> F)
    where
        F: Future<Output = ()> + Send + 'static,
    {
        self.tasks.spawn(task(self.stop.clone()));
    }

    /// Stops every task started with [`Feed::spawn_task`] and waits until each has.
    pub async fn stop_tasks(&self) {
        self.stop.cancel();
        self.tasks.close();
        self.tasks.wait().await;
    }

    /// How the source is doing.
    pub fn health(&self) -> &FeedHealth {
        &self.health
    }

    /// Shows a list saved by an earlier run while the source is not reachable yet;
    /// readiness still waits for the source.
    pub fn restore(&self, phrases: Vec<Phrase>) {
        if !self.current().loaded {
            self.replace(phrases);
            self.health.restored.store(true, Ordering::Relaxed);
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

    /// Receives every version's changes from now on.
    pub fn deltas(&self) -> broadcast::Receiver<Arc<Delta>> {
        self.deltas.subscribe()
    }

    /// Applies `changes`; does nothing (and keeps the version) when none changes
    /// anything, unless this is the first list. Costs the size of the changes.
    /// Returns the snapshot now current.
    pub fn apply(&self, changes: Vec<Change>) -> Arc<Snapshot> {
        self.commit(|list| {
            changes
                .into_iter()
                .filter(|change| match change {
                    Change::Upsert { phrase } => list.upsert(phrase.clone()),
                    Change::Remove { id } => list.remove(id),
                })
                .collect()
        })
    }

    /// Makes a new version from what `edit` does to the list, if it did anything.
    fn commit(&self, edit: impl FnOnce(&mut PhraseList) -> Vec<Change>) -> Arc<Snapshot> {
        self.sender.send_if_modified(|current| {
            let mut list = current.list.clone();
            let effective = edit(&mut list);
            if current.loaded && effective.is_empty() {
                return false;
            }
            let after = Arc::new(Snapshot {
                version: current.version + 1,
                list,
                loaded: true,
            });
            let delta = Delta {
                from: current.version,
                version: after.version,
                count: after.list.len(),
                changes: (effective.len() <= MAX_DELTA).then_some(effective),
                after: after.clone(),
            };
            *current = after;
            // No receiver is fine: no hub (a CLI process, a test).
            let _ = self.deltas.send(Arc::new(delta));
            true
        });
        self.current()
    }

    /// Makes the list `phrases` (of two with one id, the later wins), as the changes
    /// from the current one. Reads the whole list: for first loads and resyncs.
    pub fn replace(&self, phrases: Vec<Phrase>) -> Arc<Snapshot> {
        let current = self.current();
        if current.list.is_empty() {
            // Built in one sort rather than phrase by phrase.
            return self.commit(|list| {
                *list = PhraseList::from_phrases(phrases);
                let added = list.len().min(MAX_DELTA + 1);
                (list.iter().take(added))
                    .map(|phrase| Change::Upsert {
                        phrase: (**phrase).clone(),
                    })
                    .collect()
            });
        }
        let mut wanted: std::collections::HashMap<String, Phrase> =
            std::collections::HashMap::with_capacity(phrases.len());
        for phrase in phrases {
            wanted.insert(phrase.id.clone(), phrase);
        }
        let mut changes: Vec<Change> = current
            .list
            .iter()
            .filter(|phrase| !wanted.contains_key(&phrase.id))
            .map(|phrase| Change::Remove {
                id: phrase.id.clone(),
            })
            .collect();
        // Oldest first, so a list built from nothing ends in order with few moves.
        let mut upserts: Vec<Phrase> = wanted
            .into_values()
            .filter(|phrase| {
                current
                    .list
                    .get(&phrase.id)
                    .is_none_or(|old| **old != *phrase)
            })
            .collect();
        upserts.sort_unstable_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        changes.extend(upserts.into_iter().map(|phrase| Change::Upsert { phrase }));
        self.apply(changes)
    }
}

/// How many versions the hub may fall behind before it starts its clients over. The
/// channel keeps this many deltas (and the versions they made) alive, read or not.
const DELTA_BUFFER: usize = 64;

/// A phrase by "n", for tests.
#[cfg(test)]
pub fn test_phrase(id: &str, word: &str) -> Phrase {
    Phrase {
        id: id.into(),
        word: word.into(),
        name: "n".into(),
        created: 0,
        edited: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::test_phrase as phrase;
    use super::*;

    #[test]
    fn replacing_bumps_the_version_only_on_change_and_says_what_changed() {
        let feed = Feed::new();
        let mut deltas = feed.deltas();
        let start = feed.current().version;
        let first = feed.replace(vec![phrase("b", "B"), phrase("a", "A")]);
        assert_eq!(first.version, start + 1);
        assert_eq!(first.list.len(), 2);
        let same = feed.replace(vec![phrase("a", "A"), phrase("b", "B")]);
        assert_eq!(same.version, start + 1);
        let changed = feed.replace(vec![phrase("a", "A")]);
        assert_eq!(changed.version, start + 2);
        assert!(changed.is_taken("A") && !changed.is_taken("B"));
        assert_eq!(
            deltas.try_recv().unwrap().changes.as_ref().unwrap().len(),
            2
        );
        let removal = deltas.try_recv().unwrap();
        assert_eq!((removal.from, removal.count), (start + 1, 1));
        assert_eq!(
            removal.changes.as_deref(),
            Some(&[Change::Remove { id: "b".into() }][..])
        );
        let many = (0..=MAX_DELTA).map(|i| phrase(&format!("m{i}"), &format!("M{i}")));
        feed.replace(many.collect());
        assert!(
            deltas.try_recv().unwrap().changes.is_none(),
            "more than a page"
        );
    }

    #[test]
    fn an_empty_first_list_still_loads() {
        let feed = Feed::new();
        assert!(!feed.current().loaded);
        assert!(feed.apply(Vec::new()).loaded);
    }

    #[test]
    fn versions_are_safe_javascript_integers() {
        assert!(Feed::new().current().version < (1 << 53));
    }
}
