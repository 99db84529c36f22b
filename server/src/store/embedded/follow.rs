//! Following the database: what other processes commit reaches the feed, read as a
//! delta from the last sequence number the host has seen.

use std::path::Path;
use std::time::Duration;

use notify::Watcher as _;

use super::{EmbeddedStore, FILE_NAME, FullRead};
use crate::snapshot::{Change, Feed};
use crate::text::ContentError;

/// Without file events (no inotify, say), how often the host asks for new changes.
const POLL_WITHOUT_EVENTS: Duration = Duration::from_secs(2);
/// After a write event, when to look again. A commit becomes visible only once its
/// writer has synced the log and updated the log's index, after the write we were told
/// of; these few small queries catch it, and then the host is quiet again.
const SETTLE: [Duration; 5] = [
    Duration::from_millis(10),
    Duration::from_millis(50),
    Duration::from_millis(250),
    Duration::from_secs(1),
    Duration::from_secs(3),
];

/// Keeps the feed current with what other processes commit.
pub(super) struct Follower {
    store: EmbeddedStore,
    feed: Feed,
    /// The last change already in the feed.
    sequence: i64,
    /// The database file's (device, inode) when opened, to notice it being replaced.
    identity: Option<(u64, u64)>,
    /// The file's removal was already reported (said once, not on every event).
    missing_reported: bool,
}

impl Follower {
    /// Publishes `read` into `feed` and follows the store from there in the background.
    pub(super) fn start(store: EmbeddedStore, read: FullRead, feed: Feed) {
        report_broken(&store.path, &read.broken, &feed);
        feed.replace(read.phrases);
        feed.health().synced();
        let follower = Follower {
            sequence: read.sequence,
            identity: file_identity(&store.path),
            missing_reported: false,
            store,
            feed,
        };
        let feed = follower.feed.clone();
        feed.spawn_task(follower.run());
    }

    async fn run(mut self) {
        let (changed_tx, mut changed) = tokio::sync::mpsc::channel::<()>(1);
        let watched = watched_names();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event
                && is_write(&event.kind)
                && event.paths.iter().any(|p| {
                    p.file_name()
                        .is_some_and(|name| watched.iter().any(|w| w == name))
                })
            {
                let _ = changed_tx.try_send(());
            }
        });
        let folder = self
            .store
            .path
            .parent()
            .unwrap_or(Path::new("."))
            .to_owned();
        let watcher = match watcher.and_then(|mut watcher| {
            watcher.watch(&folder, notify::RecursiveMode::NonRecursive)?;
            Ok(watcher)
        }) {
            Ok(watcher) => Some(watcher),
            Err(error) => {
                tracing::warn!(%error, folder = %folder.display(), every_s = POLL_WITHOUT_EVENTS.as_secs(), "cannot watch the embedded store; asking it for changes on a timer instead");
                None
            }
        };
        // Re-checks still due after the last write event, soonest first.
        let mut due: Vec<tokio::time::Instant> = Vec::new();
        loop {
            let next = due.first().copied();
            let woke_by_event = tokio::select! {
                event = changed.recv(), if watcher.is_some() => {
                    if event.is_none() {
                        return;
                    }
                    true
                }
                () = sleep_until_or_forever(next.or_else(|| {
                    watcher.is_none().then(|| tokio::time::Instant::now() + POLL_WITHOUT_EVENTS)
                })) => false,
            };
            if woke_by_event {
                let now = tokio::time::Instant::now();
                due = SETTLE.iter().map(|delay| now + *delay).collect();
            } else if !due.is_empty() {
                due.remove(0);
            }
            self = match tokio::task::spawn_blocking(move || {
                self.refresh();
                self
            })
            .await
            {
                Ok(follower) => follower,
                Err(error) => {
                    tracing::error!(%error, "the embedded store follower stopped");
                    return;
                }
            };
        }
    }

    /// Reads what changed since the last read and publishes it; silent when nothing did.
    fn refresh(&mut self) {
        let identity = file_identity(&self.store.path);
        if identity.is_none() {
            if !self.missing_reported {
                self.missing_reported = true;
                tracing::error!(path = %self.store.path.display(), "the embedded store's file was removed; still serving the last list. `lastwords phrases init` creates a new one");
            }
            return;
        }
        if identity != self.identity {
            let data_dir = self.store.path.parent().unwrap_or(Path::new("."));
            match EmbeddedStore::open(data_dir) {
                Ok(store) => {
                    tracing::info!(path = %store.path.display(), "the embedded store's file was replaced; reading it afresh");
                    self.store = store;
                    self.identity = identity;
                    self.missing_reported = false;
                    self.reload();
                }
                Err(error) => {
                    if !self.missing_reported {
                        self.missing_reported = true;
                        tracing::error!(%error, "the embedded store's file was replaced by one that cannot be read; still serving the last list");
                    }
                }
            }
            return;
        }
        match self.store.read_since(self.sequence) {
            Ok(delta) if delta.sequence == self.sequence => {}
            // The sequence went back: not the store we read before. Read it whole.
            Ok(delta) if delta.sequence < self.sequence => self.reload(),
            Ok(delta) => {
                report_broken(&self.store.path, &delta.broken, &self.feed);
                let (added, removed) = (delta.upserts.len(), delta.removals.len());
                let changes = (delta.removals.into_iter().map(|id| Change::Remove { id }))
                    .chain(
                        delta
                            .upserts
                            .into_iter()
                            .map(|phrase| Change::Upsert { phrase }),
                    )
                    .collect();
                self.sequence = delta.sequence;
                let snapshot = self.feed.apply(changes);
                self.feed.health().synced();
                tracing::info!(
                    version = snapshot.version,
                    sequence = self.sequence,
                    changed = added,
                    removed,
                    count = snapshot.list.len(),
                    "embedded store changed"
                );
            }
            Err(error) => {
                tracing::error!(%error, "cannot read the embedded store; still serving the last list")
            }
        }
    }

    fn reload(&mut self) {
        match self.store.read_all() {
            Ok(read) => {
                report_broken(&self.store.path, &read.broken, &self.feed);
                self.sequence = read.sequence;
                let snapshot = self.feed.replace(read.phrases);
                self.feed.health().synced();
                tracing::info!(
                    version = snapshot.version,
                    count = snapshot.list.len(),
                    "embedded store read"
                );
            }
            Err(error) => {
                tracing::error!(%error, "cannot read the embedded store; still serving the last list")
            }
        }
    }
}

/// The database and its write-ahead log: where other processes' commits land. The
/// shared-memory index (`-shm`) changes on reads too, so it is left out.
fn watched_names() -> [std::ffi::OsString; 2] {
    [FILE_NAME.into(), format!("{FILE_NAME}-wal").into()]
}

/// Writes, creations, removals, renames and a writer closing the file (a CLI process
/// exiting, its commit complete); never reads, opens or metadata changes, which the
/// host's own queries (or a `touch`) cause.
fn is_write(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::{AccessKind, AccessMode, ModifyKind};
    matches!(
        kind,
        EventKind::Create(_)
            | EventKind::Remove(_)
            | EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Name(_) | ModifyKind::Any)
            | EventKind::Access(AccessKind::Close(AccessMode::Write))
    )
}

async fn sleep_until_or_forever(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path)
        .ok()
        .map(|meta| (meta.dev(), meta.ino()))
}

/// Says once per read which stored rows break the content rules, and counts them.
fn report_broken(path: &Path, broken: &[(String, ContentError)], feed: &Feed) {
    let Some((id, error)) = broken.first() else {
        return;
    };
    feed.health()
        .skipped
        .fetch_add(broken.len() as u64, std::sync::atomic::Ordering::Relaxed);
    tracing::warn!(
        path = %path.display(),
        count = broken.len(),
        first_id = %crate::text::terminal_safe(id),
        first_reason = %error,
        "stored phrases break the content rules and are not shown"
    );
}
