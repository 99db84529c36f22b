//! Following the database: what other processes commit reaches the feed, read as
//! the rows changed since the last sequence number the host has seen.

use std::path::Path;
use std::time::Duration;

use notify::Watcher as _;
use prometheus::IntCounter;

use super::inspect::{self, Found};
use super::{Detached, EmbeddedStore, FILE_NAME, FullRead, file_identity};
use crate::feed::{Change, Feed};
use crate::metrics::Metrics;
use crate::text::ContentError;

/// Without file events (no inotify, say), how often the host asks for new changes.
const POLL_WITHOUT_EVENTS: Duration = Duration::from_secs(2);
/// While nothing happens, how often the host asks whether its path still names the file
/// it reads (a mount over the folder, or a folder or link higher up the path renamed or
/// pointed elsewhere, makes no event where it watches) and reads what changed since its
/// last read (an index lookup), which confirms the list. Its one wakeup while idle.
const LOOK_AT_PATH: Duration = Duration::from_secs(30);
/// While the store cannot be read, how often the host looks again (events may not come:
/// a file restored by a program that writes no event, a folder remounted).
const POLL_WHILE_DAMAGED: Duration = Duration::from_secs(5);
/// How long a problem must last before it is logged and counted: a file being copied in
/// passes through states that are not problems (empty, then half written).
const CONFIRM_AFTER: Duration = Duration::from_secs(1);
/// Once a problem is said, how often a store whose files have not changed is tried
/// again (for what heals without touching them, such as a full disk): each try reads it
/// whole, and then closes a connection, which is a write event of its own.
const RETRY_UNCHANGED: Duration = Duration::from_secs(60);
/// After a write event, when to look again. A commit becomes visible only once its
/// writer has synced the log and updated the log's index (shared memory, which makes no
/// event), after the write we were told of; these few small queries catch it, and then
/// the host is quiet again. The first come soon: a writer that keeps its connection open
/// makes no later event, so a commit missed by the look at the event waits for these.
const SETTLE: [Duration; 7] = [
    Duration::from_millis(1),
    Duration::from_millis(3),
    Duration::from_millis(10),
    Duration::from_millis(50),
    Duration::from_millis(250),
    Duration::from_secs(1),
    Duration::from_secs(3),
];

/// Keeps the feed current with what other processes commit.
pub(super) struct Follower {
    /// The connection read from, opened afresh when the file is replaced.
    store: EmbeddedStore,
    /// Where what the store holds is published.
    feed: Feed,
    /// The last change already in the feed.
    sequence: i64,
    /// The database file's (device, inode) when opened, to notice it being replaced.
    identity: Option<(u64, u64)>,
    /// Its write-ahead log's, to notice a file moved in beside the previous one's log.
    wal_identity: Option<(u64, u64)>,
    /// What was wrong at the last look, if anything, and since when.
    seen: Option<(String, std::time::Instant)>,
    /// What is wrong with the store, as logged: said once it has lasted
    /// [`CONFIRM_AFTER`], and not again until it changes.
    problem: Option<String>,
    /// The files as a failed look left them, and when: a look at a damaged store opens and
    /// closes connections, whose events would otherwise wake the next look at once, for
    /// as long as the store stays damaged.
    tried: Option<(Files, std::time::Instant)>,
    /// The database file's size and modification time at the last look. In WAL mode
    /// only a checkpoint writes it, so a change is worth asking SQLite whose it is.
    stamp: Option<(u64, std::time::SystemTime)>,
    /// Set by the watcher when the database file itself was written since the last look.
    main_written: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// A shared lock on the data folder while this host follows it: `phrases restore`
    /// takes it exclusively, so it knows a host is serving.
    _folder_lock: Option<std::fs::File>,
    /// `lastwords_feed_documents_skipped_total`: stored rows hidden for breaking the rules.
    skipped: IntCounter,
    /// `lastwords_feed_store_problems_total`: each time the file went bad.
    problems: IntCounter,
}

impl Follower {
    /// Publishes `read` into `feed` and follows the store from there in the background.
    pub(super) fn start(store: EmbeddedStore, read: FullRead, feed: Feed, metrics: &Metrics) {
        report_broken(&store.path, &read.broken, &metrics.feed_skipped);
        feed.replace(read.phrases);
        feed.health().synced();
        let folder_lock = lock_folder(store.path.parent().unwrap_or(Path::new(".")));
        let follower = Follower::new(store, read.sequence, feed, metrics, folder_lock);
        let feed = follower.feed.clone();
        feed.spawn_task(follower.run());
    }

    /// A follower of `store` from change `sequence` on, not yet looking.
    fn new(
        store: EmbeddedStore,
        sequence: i64,
        feed: Feed,
        metrics: &Metrics,
        folder_lock: Option<std::fs::File>,
    ) -> Follower {
        Follower {
            sequence,
            identity: store.opened_identity(),
            wal_identity: file_identity(&inspect::sidecar(&store.path, "-wal")),
            seen: None,
            problem: None,
            tried: None,
            stamp: file_stamp(&store.path),
            main_written: std::sync::Arc::default(),
            _folder_lock: folder_lock,
            store,
            feed,
            skipped: metrics.feed_skipped.clone(),
            problems: metrics.feed_store_problems.clone(),
        }
    }

    async fn run(mut self) {
        let (changed_tx, mut changed) = tokio::sync::mpsc::channel::<()>(1);
        let watched = watched_names();
        let index: std::ffi::OsString = format!("{FILE_NAME}-shm").into();
        let main_written = self.main_written.clone();
        let folder = self
            .store
            .path
            .parent()
            .unwrap_or(Path::new("."))
            .to_owned();
        // A watch follows the folder it was given, not its path: moved away or removed,
        // and another made at its path, the host would follow the one it no longer serves.
        // The watcher names paths joined to the working folder: a relative --data-dir
        // compared as given never matched.
        let folder_moved = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watched_folder =
            std::env::current_dir().map_or_else(|_| folder.clone(), |cwd| cwd.join(&folder));
        let moved = folder_moved.clone();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            if is_moved(&event.kind) && event.paths.contains(&watched_folder) {
                moved.store(true, std::sync::atomic::Ordering::Relaxed);
                let _ = changed_tx.try_send(());
                return;
            }
            // Only the store's own files: a phrases.sqlite3 in the folder above is another.
            let ours = || {
                event
                    .paths
                    .iter()
                    .filter(|p| p.parent() == Some(watched_folder.as_path()))
                    .filter_map(|p| p.file_name())
            };
            if (is_write(&event.kind) && ours().any(|name| watched.iter().any(|w| w == name)))
                || (is_moved(&event.kind) && ours().any(|name| name == index.as_os_str()))
            {
                if matches!(
                    event.kind,
                    notify::EventKind::Modify(notify::event::ModifyKind::Data(_))
                ) && ours().any(|name| name == FILE_NAME)
                {
                    main_written.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                let _ = changed_tx.try_send(());
            }
        });
        let mut watcher = match watcher.and_then(|mut watcher| {
            watcher.watch(&folder, notify::RecursiveMode::NonRecursive)?;
            // A link at --data-dir pointed elsewhere (`ln -sfn`, `mv -T`) shows only in
            // the folder above, as its entry renamed or made: watched then, and only then,
            // for that folder may be busy (/tmp woke the watcher 600 times a second).
            if std::fs::symlink_metadata(&folder).is_ok_and(|meta| meta.file_type().is_symlink()) {
                let above = folder
                    .parent()
                    .filter(|above| !above.as_os_str().is_empty())
                    .unwrap_or(Path::new("."));
                let _ = watcher.watch(above, notify::RecursiveMode::NonRecursive);
            }
            Ok(watcher)
        }) {
            Ok(watcher) => Some(watcher),
            Err(error) => {
                tracing::warn!(%error, folder = %folder.display(), every_s = POLL_WITHOUT_EVENTS.as_secs(), "cannot watch the embedded store; asking it for changes on a timer instead");
                None
            }
        };
        // Re-checks still due after the last write event, soonest first. The first is at
        // once: a commit between the list's first read and the watch above made its
        // events before anyone listened.
        let mut due: Vec<tokio::time::Instant> = vec![tokio::time::Instant::now()];
        loop {
            let next = due.first().copied();
            let troubled =
                self.seen.is_some() || folder_moved.load(std::sync::atomic::Ordering::Relaxed);
            let polling = watcher.is_none() || troubled;
            let poll_every = if troubled {
                POLL_WHILE_DAMAGED
            } else {
                POLL_WITHOUT_EVENTS
            };
            let looking_at_path = next.is_none() && !polling;
            let woke_by_event = tokio::select! {
                event = changed.recv(), if watcher.is_some() => {
                    if event.is_none() {
                        return;
                    }
                    true
                }
                () = sleep_until_or_forever(next.or_else(|| {
                    let every = if polling { poll_every } else { LOOK_AT_PATH };
                    Some(tokio::time::Instant::now() + every)
                })) => false,
            };
            if woke_by_event {
                let now = tokio::time::Instant::now();
                due = SETTLE.iter().map(|delay| now + *delay).collect();
            } else if !due.is_empty() {
                due.remove(0);
            } else if looking_at_path && file_identity(&self.store.path) != self.identity {
                // Another file at the path: watched and locked there from now on.
                folder_moved.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            // The same file at the look is read all the same: a read that finds nothing
            // new confirms the list held, as Firestore's heartbeat confirms its, so the
            // time since a confirmed list means the same on both stores.
            // Watched again at its path once a folder is there (until then the store is
            // missing, looked for on the timer), and locked again for `phrases restore`.
            let mut relock = false;
            if folder_moved.load(std::sync::atomic::Ordering::Relaxed)
                && let Some(watcher) = watcher.as_mut()
            {
                let _ = watcher.unwatch(&folder);
                if watcher
                    .watch(&folder, notify::RecursiveMode::NonRecursive)
                    .is_ok()
                {
                    folder_moved.store(false, std::sync::atomic::Ordering::Relaxed);
                    relock = true;
                }
            }
            self = match tokio::task::spawn_blocking(move || {
                if relock {
                    self._folder_lock =
                        lock_folder(self.store.path.parent().unwrap_or(Path::new(".")));
                }
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
    /// When the store cannot be read, the last list stays and the problem is said once.
    fn refresh(&mut self) {
        // Only once a problem is said: one that passes (a checkpoint under way, a lock
        // held a moment) is looked at again on the next event, as a commit would be.
        if let Some((files, at)) = &self.tried
            && self.problem.is_some()
            && at.elapsed() < RETRY_UNCHANGED
            && *files == Files::of(&self.store.path)
        {
            return;
        }
        let before = Files::of(&self.store.path);
        let tried = self.try_refresh();
        self.settle(tried, before);
    }

    /// Publishes what a look found: the store readable again, or a problem, said once it
    /// has lasted [`CONFIRM_AFTER`]. `before` is the files as the look began.
    fn settle(&mut self, tried: Result<(), String>, before: Files) {
        // A failed look is remembered by the files as it left them, its own connections'
        // traces included. But the database file itself, which it only reads, changed by
        // someone else under it (put right as it looked at the damaged one) makes its
        // failure stale: remembered by the files as it found them, the next look is not
        // held back for a minute.
        self.tried = tried.is_err().then(|| {
            let after = Files::of(&self.store.path);
            let looked_at = if before.written[0] == after.written[0] {
                after
            } else {
                before
            };
            (looked_at, std::time::Instant::now())
        });
        match tried {
            Ok(()) => {
                if self.seen.take().is_some() {
                    inspect::clear_foreign_log(&self.store.path);
                }
                if self.problem.take().is_some() {
                    tracing::info!(path = %self.store.path.display(), count = self.feed.current().list.len(), "the embedded store is readable again");
                }
            }
            Err(problem) => {
                let since = match &self.seen {
                    Some((seen, since)) if *seen == problem => *since,
                    _ => std::time::Instant::now(),
                };
                self.seen = Some((problem.clone(), since));
                if since.elapsed() < CONFIRM_AFTER || self.problem.as_ref() == Some(&problem) {
                    return;
                }
                if self.problem.is_none() {
                    self.problems.inc();
                }
                tracing::error!(%problem, count = self.feed.current().list.len(), "the embedded store cannot be read; still serving the last list");
                self.feed.health().down_because(problem.clone());
                self.problem = Some(problem);
            }
        }
    }

    fn try_refresh(&mut self) -> Result<(), String> {
        let path = &self.store.path;
        let identity = file_identity(path);
        let wal = inspect::sidecar(path, "-wal");
        // Only a log that holds something: an empty one is no one's changes, and may be
        // the one a look at the damaged file made after the operator moved the logs
        // aside, on the inode number the old log had just freed.
        if identity.is_some()
            && identity != self.identity
            && self.wal_identity.is_some()
            && file_identity(&wal) == self.wal_identity
            && std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0)
        {
            // SQLite would read (and one day checkpoint) the previous file's log into it,
            // in this process or the next to open the store, which the mark tells.
            if let Err(error) = inspect::mark_foreign_log(path)
                && self.seen.is_none()
            {
                tracing::warn!(%error, path = %path.display(), "cannot mark the previous file's write-ahead log for the processes that open the store next");
            }
            return Err(format!(
                "{}: {}. {}",
                path.display(),
                inspect::replaced_beside_log(&wal),
                inspect::MOVE_LOG_ASIDE
            ));
        }
        let detached = (identity.is_some() && identity == self.identity)
            .then(|| self.store.detached())
            .flatten();
        if let Some(detached) = &detached {
            self.mend(detached)?;
            self.store.close();
        }
        // Only the raw look on every change: opening a new SQLite connection on a file
        // truncated a moment before would delete its log (SQLite drops the log of an
        // empty database), so that waits for a file that looks whole and has changed.
        let reopen = identity != self.identity || self.seen.is_some() || detached.is_some();
        let stamp = file_stamp(path);
        // In WAL mode only a checkpoint writes the database file, or something other than
        // SQLite does: then it is checked whole, as the changes read below need not touch
        // the pages such a write damaged. Told by its size and time, or by the write's
        // event: two writes within one tick of the file system's clock leave the same time.
        let written = self
            .main_written
            .swap(false, std::sync::atomic::Ordering::Relaxed)
            || stamp != self.stamp;
        let look = if reopen || written {
            inspect::inspect(path)
        } else {
            inspect::look(path)
        };
        match look {
            Ok(Found::Store) => {}
            Ok(Found::Nothing) => {
                return Err(format!(
                    "{}: the file was removed. `lastwords phrases restore FILE` puts a backup in its place",
                    path.display()
                ));
            }
            Err(refusal) => return Err(refusal.summary()),
        }
        self.stamp = stamp;
        if reopen {
            // Replaced, or back after a problem: a fresh connection, and the list read
            // whole (the file may have been changed in place under the old one).
            let store = EmbeddedStore::connect_checked(path.clone()).map_err(|e| e.to_string())?;
            if identity != self.identity && self.seen.is_none() {
                tracing::info!(path = %store.path.display(), "the embedded store's file was replaced; reading it afresh");
            }
            // The file opened, not the one looked at before: it may have been
            // replaced in between, and a stale identity would make the next look
            // take this very file for a stranger beside its own log.
            self.identity = store.opened_identity();
            self.store = store;
            self.reload()?;
            self.wal_identity = file_identity(&wal);
            return Ok(());
        }
        if written {
            self.store.check_on_disk().map_err(|e| e.to_string())?;
        }
        let changed = self
            .store
            .read_since(self.sequence)
            .map_err(|e| e.to_string())?;
        if changed.sequence == self.sequence {
            self.feed.health().synced();
            return Ok(());
        }
        if changed.sequence < self.sequence {
            // The sequence went back: not the store we read before. Read it whole.
            return self.reload();
        }
        report_broken(&self.store.path, &changed.broken, &self.skipped);
        let (added, removed) = (changed.upserts.len(), changed.removals.len());
        let changes = (changed.removals.into_iter().map(|id| Change::Remove { id }))
            .chain(
                changed
                    .upserts
                    .into_iter()
                    .map(|phrase| Change::Upsert { phrase }),
            )
            .collect();
        self.sequence = changed.sequence;
        let snapshot = self.feed.apply(changes);
        self.feed.health().synced();
        // A line per mint all day would be most of an operator's log; `lastwords_phrases`
        // follows the count, and Firestore's changes are not logged either.
        tracing::debug!(
            version = snapshot.version,
            sequence = self.sequence,
            changed = added,
            removed,
            count = snapshot.list.len(),
            "embedded store changed"
        );
        Ok(())
    }

    /// Puts right what removing the store's log files under this host's connection did,
    /// as far as it can, before the store is opened afresh.
    fn mend(&self, detached: &Detached) -> Result<(), String> {
        let log = inspect::sidecar(&self.store.path, "-wal");
        let index = inspect::sidecar(&self.store.path, "-shm");
        const ADVICE: &str =
            "Remove the -wal and -shm files only when no host or command has the store open";
        match detached {
            Detached::Log => {
                self.store.checkpoint().map_err(|e| e.to_string())?;
                tracing::warn!(
                    "{} was removed or replaced while this host had it open; the commits it held are now in the database, which is opened afresh. {ADVICE}",
                    log.display()
                );
            }
            Detached::Index => tracing::warn!(
                "{} was removed or replaced while this host had it open; the store is opened afresh to read what others write. {ADVICE}",
                index.display()
            ),
            Detached::Both => tracing::error!(
                "{} and {} were removed or replaced while this host had them open, and another process has written a new log since: the commits of the removed log that had not reached the database are not in the store (this host served them until now). {ADVICE}",
                log.display(),
                index.display()
            ),
        }
        Ok(())
    }

    fn reload(&mut self) -> Result<(), String> {
        let read = self.store.read_all().map_err(|e| e.to_string())?;
        report_broken(&self.store.path, &read.broken, &self.skipped);
        self.sequence = read.sequence;
        let snapshot = self.feed.replace(read.phrases);
        self.feed.health().synced();
        tracing::info!(
            version = snapshot.version,
            count = snapshot.list.len(),
            "embedded store read"
        );
        Ok(())
    }
}

/// What changes when anyone writes, replaces, moves or re-permits the database, its log
/// or their folder (each one's identity, size and times), or replaces or re-permits the
/// log's index (not its times: every connection writes it, this host's own included).
#[derive(Debug, PartialEq, Eq)]
struct Files {
    written: [Option<Stat>; 3],
    index: Option<Access>,
}

#[derive(Debug, PartialEq, Eq)]
struct Stat {
    access: Access,
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

#[derive(Debug, PartialEq, Eq)]
struct Access {
    identity: (u64, u64),
    mode: u32,
    owner: (u32, u32),
}

impl Files {
    fn of(path: &Path) -> Self {
        use std::os::unix::fs::MetadataExt as _;
        let access = |m: &std::fs::Metadata| Access {
            identity: (m.dev(), m.ino()),
            mode: m.mode(),
            owner: (m.uid(), m.gid()),
        };
        let stat = |path: &Path| {
            std::fs::metadata(path).ok().map(|m| Stat {
                access: access(&m),
                len: m.len(),
                modified: (m.mtime(), m.mtime_nsec()),
                changed: (m.ctime(), m.ctime_nsec()),
            })
        };
        Self {
            written: [
                stat(path),
                stat(&inspect::sidecar(path, "-wal")),
                stat(path.parent().unwrap_or(Path::new("."))),
            ],
            index: std::fs::metadata(inspect::sidecar(path, "-shm"))
                .ok()
                .map(|m| access(&m)),
        }
    }
}

fn file_stamp(path: &Path) -> Option<(u64, std::time::SystemTime)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

/// Holds a shared lock on `folder` (released when the process ends, however it ends).
fn lock_folder(folder: &Path) -> Option<std::fs::File> {
    let file = std::fs::File::open(folder).ok()?;
    match file.try_lock_shared() {
        Ok(()) => Some(file),
        Err(std::fs::TryLockError::WouldBlock) => {
            tracing::info!(folder = %folder.display(), "waiting for a restore of the embedded store to finish");
            file.lock_shared().ok().map(|()| file)
        }
        Err(std::fs::TryLockError::Error(error)) => {
            tracing::warn!(%error, folder = %folder.display(), "cannot lock the data folder; `phrases restore` will not know this host serves from it");
            None
        }
    }
}

/// The database and its write-ahead log: where other processes' commits land. The
/// shared-memory index (`-shm`) changes on reads too, so only its removal or
/// replacement is watched ([`is_moved`]).
fn watched_names() -> [std::ffi::OsString; 2] {
    [FILE_NAME.into(), format!("{FILE_NAME}-wal").into()]
}

/// Writes, creations, removals, renames, changes of owner or mode (a `chmod` that makes
/// the store unreadable, or readable again) and a writer closing the file (a CLI process
/// exiting, its commit complete); never reads or opens, which the host's own queries
/// cause.
fn is_write(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::{AccessKind, AccessMode, ModifyKind};
    matches!(
        kind,
        EventKind::Create(_)
            | EventKind::Remove(_)
            | EventKind::Modify(
                ModifyKind::Data(_)
                    | ModifyKind::Name(_)
                    | ModifyKind::Metadata(_)
                    | ModifyKind::Any
            )
            | EventKind::Access(AccessKind::Close(AccessMode::Write))
    )
}

/// The log's index made, removed or renamed: every other change to it is every
/// connection's, this host's own reads included.
fn is_moved(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::ModifyKind;
    matches!(
        kind,
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
    )
}

async fn sleep_until_or_forever(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Says once per read which stored rows break the content rules, and counts them.
fn report_broken(path: &Path, broken: &[(String, ContentError)], skipped: &IntCounter) {
    let Some((id, error)) = broken.first() else {
        return;
    };
    skipped.inc_by(broken.len() as u64);
    tracing::warn!(
        path = %path.display(),
        count = broken.len(),
        first_id = %crate::text::terminal_safe(id),
        first_reason = %error,
        "stored phrases break the content rules and are not shown"
    );
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::store::embedded::Seed;
    use crate::store::embedded::schema::SAMPLES;

    /// What the follower logs, kept to be read back.
    #[derive(Clone, Default)]
    struct Log(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Log {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Log {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
        }
    }

    /// A follower of a new store, as [`Follower::start`] makes it, not yet running: the
    /// test makes each look itself.
    fn follower(dir: &Path, feed: &Feed, metrics: &Metrics) -> Follower {
        let (store, _) = EmbeddedStore::open_or_create(dir, Seed::Samples).unwrap();
        let read = store.read_all().unwrap();
        feed.replace(read.phrases);
        Follower::new(store, read.sequence, feed.clone(), metrics, None)
    }

    /// Damages the store at `path` as the black-box table's "its header overwritten".
    fn overwrite_header(path: &Path) {
        let mut bytes = std::fs::read(path).unwrap();
        bytes[..100].fill(0);
        std::fs::write(path, bytes).unwrap();
    }

    /// A follower whose store is damaged and the problem said, and a good store (the
    /// samples) at `good` for an operator to put in its place.
    struct Damaged {
        _dir: tempfile::TempDir,
        good: tempfile::TempDir,
        feed: Feed,
        follower: Follower,
        path: std::path::PathBuf,
        problem: String,
    }

    fn damaged_and_said() -> Damaged {
        let dir = tempfile::tempdir().unwrap();
        let feed = Feed::new();
        let mut follower = follower(dir.path(), &feed, &Metrics::new());
        let path = dir.path().join(FILE_NAME);
        let good = tempfile::tempdir().unwrap();
        drop(EmbeddedStore::open_or_create(good.path(), Seed::Samples).unwrap());
        overwrite_header(&path);
        follower.refresh();
        std::thread::sleep(CONFIRM_AFTER);
        follower.refresh();
        let problem = follower.problem.clone().expect("the damage is said");
        Damaged {
            _dir: dir,
            good,
            feed,
            follower,
            path,
            problem,
        }
    }

    #[test]
    fn a_damaged_store_is_said_once_however_often_it_is_looked_at() {
        let dir = tempfile::tempdir().unwrap();
        let feed = Feed::new();
        let metrics = Metrics::new();
        let mut follower = follower(dir.path(), &feed, &metrics);
        let path = dir.path().join(FILE_NAME);
        overwrite_header(&path);

        let log = Log::default();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_writer({
                let log = log.clone();
                move || log.clone()
            })
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            follower.refresh();
            // A problem is said once it has lasted this long; a sleep, because the
            // follower reads the clock itself.
            std::thread::sleep(CONFIRM_AFTER);
            for _ in 0..10 {
                follower.refresh();
            }
        });
        let said = log.text();
        assert_eq!(
            said.matches("the embedded store cannot be read").count(),
            1,
            "{said}"
        );
        assert!(said.contains("is not an SQLite database"), "{said}");
        assert_eq!(metrics.feed_store_problems.get(), 1);
        assert_eq!(
            feed.current().list.len(),
            SAMPLES.len(),
            "the last list is kept"
        );
    }

    #[test]
    fn a_store_put_right_during_a_failed_look_is_read_at_the_next() {
        let Damaged {
            _dir,
            good,
            feed,
            mut follower,
            path,
            problem,
        } = damaged_and_said();

        // A look that found the damaged file, and ended after an operator put a good
        // one in its place, as the test suite's hosts under load have seen.
        let before = Files::of(&path);
        for suffix in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(inspect::sidecar(&path, suffix));
        }
        std::fs::rename(good.path().join(FILE_NAME), &path).unwrap();
        follower.settle(Err(problem), before);

        follower.refresh();
        assert_eq!(
            follower.problem, None,
            "read at the next look, not a minute later"
        );
        assert_eq!(feed.current().list.len(), SAMPLES.len());
    }

    #[test]
    fn an_empty_log_on_the_old_logs_inode_does_not_keep_a_store_put_right_refused() {
        let Damaged {
            _dir,
            good,
            feed,
            mut follower,
            path,
            ..
        } = damaged_and_said();

        // The operator moves the logs aside; a look at the damaged file in between makes
        // an empty log, which the file system may give the inode number the old one
        // freed (here it is made so); then the good file goes in place.
        let wal = inspect::sidecar(&path, "-wal");
        for suffix in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(inspect::sidecar(&path, suffix));
        }
        std::fs::write(&wal, b"").unwrap();
        follower.wal_identity = file_identity(&wal);
        std::fs::rename(good.path().join(FILE_NAME), &path).unwrap();

        follower.refresh();
        assert_eq!(
            follower.problem, None,
            "an empty log holds no one's changes"
        );
        assert_eq!(feed.current().list.len(), SAMPLES.len());
    }
}
