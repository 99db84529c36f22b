//! Online backup and restore of the embedded store, without a `sqlite3` binary.
//!
//! A backup is SQLite's online backup API copying every page in one step, so it reads
//! one consistent version while writers go on (WAL readers never block them), then
//! checks the copy and links it into place only if the name is still free. A restore
//! checks the file as `serve` would, then either replaces the contents of a sound store
//! in one transaction (a running host follows it like any other change; the contents
//! it replaced are kept aside first, in the same transaction) or, when the store is
//! damaged or missing, moves what is there aside and puts the copy in its place.
//! Nothing is ever deleted or written over.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use super::inspect::{self, Found, Refusal, sidecar};
use super::{
    APPLICATION_ID, EmbeddedStore, FILE_NAME, StoreError, check_pages, database_error, file_error,
    full_check, new_document_id,
};

/// How long a backup step waits for a lock held by another connection.
const BUSY_FOR: Duration = Duration::from_secs(10);

/// What a backup wrote.
#[derive(Debug)]
pub struct BackupReport {
    pub phrases: u64,
    pub bytes: u64,
}

/// What a restore did.
#[derive(Debug)]
pub struct RestoreReport {
    pub phrases: u64,
    /// Where the store that was replaced now is (none when there was no store).
    pub kept_aside: Option<PathBuf>,
    /// The store was replaced in one transaction (it was sound), not as a file.
    pub in_place: bool,
}

/// Removes a temporary file (and SQLite's files beside it) when dropped.
pub(super) struct RemoveOnDrop<'a>(pub &'a Path);

impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        remove_database(self.0);
    }
}

/// Removes a database this process made and SQLite's files beside it.
fn remove_database(path: &Path) {
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let _ = std::fs::remove_file(sidecar(path, suffix));
    }
}

pub(super) fn sync_file(path: &Path) -> std::io::Result<()> {
    File::open(path)?.sync_all()
}

/// Makes a rename or link durable; some file systems cannot sync a folder, which then
/// stays as durable as they make it.
pub(super) fn sync_folder(folder: &Path) {
    if let Ok(folder) = File::open(folder) {
        let _ = folder.sync_all();
    }
}

fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// A name beside `path` that nothing has: `path` with `.{tag}-{UTC time}` appended.
fn aside_name(path: &Path, tag: &str) -> PathBuf {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let base = format!("{}.{tag}-{stamp}", path.display());
    let mut candidate = PathBuf::from(&base);
    let mut n = 1;
    while std::fs::symlink_metadata(&candidate).is_ok()
        || std::fs::symlink_metadata(sidecar(&candidate, "-wal")).is_ok()
    {
        n += 1;
        candidate = PathBuf::from(format!("{base}.{n}"));
    }
    candidate
}

/// Links `temp` in at `target` unless something is there; syncs the folder.
fn link_into_place(temp: &Path, target: &Path) -> Result<(), StoreError> {
    sync_file(temp).map_err(|e| file_error(temp, e))?;
    std::fs::hard_link(temp, target).map_err(|error| {
        if error.kind() == std::io::ErrorKind::AlreadyExists {
            StoreError::File {
                path: target.display().to_string(),
                reason: "appeared while it was being written; it was left as it is".into(),
            }
        } else {
            file_error(target, error)
        }
    })?;
    sync_folder(folder_of(target));
    Ok(())
}

/// Copies every page of `source` into `out` in one step: one consistent version.
fn copy_pages(source: &Connection, out: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let backup = Backup::new(source, out).map_err(|e| database_error(path, e))?;
    let deadline = std::time::Instant::now() + BUSY_FOR;
    loop {
        match backup.step(-1).map_err(|e| database_error(path, e))? {
            StepResult::Done => return Ok(()),
            StepResult::More => {}
            StepResult::Busy | StepResult::Locked if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            _ => {
                return Err(StoreError::Database {
                    path: path.display().to_string(),
                    reason: "stayed locked by another connection for 10 s; try again".into(),
                });
            }
        }
    }
}

/// Makes a copied database stand alone (no `-wal`), checks it whole, and counts it.
fn seal(out: &Connection, path: &Path) -> Result<u64, StoreError> {
    let fail = |e| database_error(path, e);
    out.pragma_update_and_check(None, "journal_mode", "DELETE", |row| {
        row.get::<_, String>(0)
    })
    .map_err(fail)?;
    check_pages(out, "integrity_check").map_err(fail)?;
    let count: i64 = out
        .query_row("SELECT count(*) FROM phrases", [], |row| row.get(0))
        .map_err(fail)?;
    Ok(u64::try_from(count).unwrap_or(0))
}

fn open_new(path: &Path, target: &Path) -> Result<Connection, StoreError> {
    Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| database_error(target, e))
}

/// Removes from `folder` the temporary files (`.NAME.{what}-PID-ID`) that a backup or
/// restore stopped by a signal or a kill left there: their process is gone and they
/// have not been written to for ten minutes (a process in another PID namespace, a
/// container's, may be alive under a number this one does not see). Says what it removed.
fn clear_left_behind(folder: &Path, what: &str) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let marker = format!(".{what}-");
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((_, rest)) = name.strip_prefix('.').and_then(|n| n.rsplit_once(&marker)) else {
            continue;
        };
        let Some((pid, id)) = rest.split_once('-') else {
            continue;
        };
        let ours = pid.parse::<u32>().is_ok()
            && id.len() == 20
            && id.bytes().all(|b| b.is_ascii_alphanumeric());
        let idle = entry
            .metadata()
            .ok()
            .filter(|meta| meta.is_file())
            .and_then(|meta| meta.modified().ok())
            .and_then(|modified| modified.elapsed().ok())
            .is_some_and(|idle| idle >= LEFT_BEHIND_AFTER);
        if ours && idle && !Path::new("/proc").join(pid).exists() {
            let path = entry.path();
            if std::fs::remove_file(&path).is_ok() {
                crate::tell!(
                    "removed {}, left by an interrupted {what} (process {pid})",
                    path.display()
                );
            }
        }
    }
}

const LEFT_BEHIND_AFTER: Duration = Duration::from_secs(600);

fn temp_beside(target: &Path, what: &str) -> PathBuf {
    let name = target
        .file_name()
        .map_or_else(|| "backup".into(), |n| n.to_string_lossy().into_owned());
    folder_of(target).join(format!(
        ".{name}.{what}-{}-{}",
        std::process::id(),
        new_document_id()
    ))
}

impl EmbeddedStore {
    /// Writes a consistent copy of the store to `target`, a file that must not exist.
    pub fn backup(&self, target: &Path) -> Result<BackupReport, StoreError> {
        if std::fs::symlink_metadata(target).is_ok() {
            return Err(StoreError::File {
                path: target.display().to_string(),
                reason: "exists; a backup never writes over a file: name a new one".into(),
            });
        }
        let folder = folder_of(target);
        if !folder.is_dir() {
            return Err(StoreError::File {
                path: target.display().to_string(),
                reason: format!(
                    "is in {}, which is not a folder here: make it first, or name a file in one that is",
                    folder.display()
                ),
            });
        }
        clear_left_behind(folder, "partial");
        let temp = temp_beside(target, "partial");
        let _cleanup = RemoveOnDrop(&temp);
        let mut out = open_new(&temp, target)?;
        // A damaged store is said to be so, not its copy.
        self.with_connection(|source| {
            full_check(source).map_err(|e| database_error(&self.path, e))?;
            copy_pages(source, &mut out, target)
        })?;
        let phrases = seal(&out, target)?;
        out.close().map_err(|(_, e)| database_error(target, e))?;
        link_into_place(&temp, target)?;
        let bytes = std::fs::metadata(target).map_or(0, |m| m.len());
        Ok(BackupReport { phrases, bytes })
    }

    fn with_connection<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let connection = self
            .connection
            .lock()
            .map_err(|_| StoreError::Backend("the store's connection was poisoned".into()))?;
        let connection = connection
            .as_ref()
            .ok_or_else(|| StoreError::Backend("the store's connection is closed".into()))?;
        work(connection)
    }

    /// Puts the phrases of the backup `file` into the store of `data_dir`. Refuses while
    /// a host serves from the folder unless `online` (then a sound store is replaced in
    /// one transaction the host follows, a damaged one as a file the host reopens).
    pub fn restore(
        data_dir: &Path,
        file: &Path,
        online: bool,
    ) -> Result<RestoreReport, StoreError> {
        let path = data_dir.join(FILE_NAME);
        // What is wrong with the backup named is said first: it is what the operator mends.
        let backup = regular_file(file)?;
        if std::fs::metadata(&path).is_ok_and(|store| same_file(&store, &backup)) {
            return Err(StoreError::File {
                path: file.display().to_string(),
                reason: "is this folder's store itself, not a backup of it: name a file `lastwords phrases backup` wrote".into(),
            });
        }
        super::not_a_folder(data_dir)?;
        if online && !data_dir.exists() {
            return Err(StoreError::File {
                path: data_dir.display().to_string(),
                reason: "does not exist, so no host serves from it: name the folder the host serves from (--data-dir), or leave out --online to make a new store there".into(),
            });
        }
        // The first run of a new deployment, as `phrases init` is (docs/operations.md).
        std::fs::create_dir_all(data_dir).map_err(|e| file_error(data_dir, e))?;
        let folder = File::open(data_dir).map_err(|e| file_error(data_dir, e))?;
        let host_present = match folder.try_lock() {
            Ok(()) => false,
            Err(std::fs::TryLockError::WouldBlock) => true,
            Err(std::fs::TryLockError::Error(error)) => return Err(file_error(data_dir, error)),
        };
        if host_present && !online {
            return Err(StoreError::File {
                path: data_dir.display().to_string(),
                reason: "a host is serving from this folder (it holds the folder's lock). Stop it first, or pass --online: a sound store is then replaced in one transaction that the host shows as a change, a damaged one as a new file the host reads afresh".into(),
            });
        }
        clear_left_behind(data_dir, "restoring");
        // The copy is checked, not the original, so what is checked is what goes in.
        let temp = data_dir.join(format!(
            ".{FILE_NAME}.restoring-{}-{}",
            std::process::id(),
            new_document_id()
        ));
        let _cleanup = RemoveOnDrop(&temp);
        let phrases = prepare(file, &temp)?;
        // A store SQLite finds damaged, in its pages or in an index, cannot be changed
        // into the backup in place: it is moved aside whole instead, as one whose file
        // is damaged is.
        let sound = match inspect::inspect(&path) {
            Ok(Found::Store) => EmbeddedStore::connect_checked(path.clone())
                .ok()
                .filter(|store| store.with(|connection| full_check(connection)).is_ok()),
            Ok(Found::Nothing) | Err(_) => None,
        };
        let report = match sound {
            Some(store) => {
                let aside = aside_name(&path, "replaced");
                store.replace_contents(&temp, &aside)?;
                RestoreReport {
                    phrases,
                    kept_aside: Some(aside),
                    in_place: true,
                }
            }
            None => {
                let kept_aside = move_aside(&path)?;
                link_into_place(&temp, &path)?;
                RestoreReport {
                    phrases,
                    kept_aside,
                    in_place: false,
                }
            }
        };
        drop(folder);
        Ok(report)
    }

    /// Keeps the store's contents at `aside`, then replaces them with those of the
    /// database at `from` in one write transaction, but only if nothing was written in
    /// between: the copy kept aside is exactly what the restore took out.
    fn replace_contents(&self, from: &Path, aside: &Path) -> Result<(), StoreError> {
        for _ in 0..20 {
            let mut kept = open_new(aside, aside)?;
            let outcome = self
                .with_connection(|source| copy_pages(source, &mut kept, aside))
                .and_then(|()| {
                    let sequence =
                        super::current_sequence(&kept).map_err(|e| database_error(aside, e))?;
                    self.replace_if_unchanged(from, sequence)
                });
            match outcome {
                Ok(true) => {
                    seal(&kept, aside)?;
                    kept.close().map_err(|(_, e)| database_error(aside, e))?;
                    sync_file(aside).map_err(|e| file_error(aside, e))?;
                    return Ok(());
                }
                Ok(false) => {}
                Err(error) => {
                    drop(kept);
                    remove_database(aside);
                    return Err(error);
                }
            }
            drop(kept);
            remove_database(aside);
        }
        Err(StoreError::Database {
            path: self.path.display().to_string(),
            reason:
                "was written to throughout 20 attempts to restore it; try again when writes pause"
                    .into(),
        })
    }

    /// Replaces every phrase with those of `from` if the store is still at `sequence`.
    fn replace_if_unchanged(&self, from: &Path, sequence: i64) -> Result<bool, StoreError> {
        self.with(|connection| {
            connection.execute("ATTACH DATABASE ?1 AS restored", [from.to_string_lossy()])?;
            let outcome = (|| {
                let transaction = connection
                    .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                if super::current_sequence(&transaction)? != sequence {
                    return Ok(false);
                }
                // With their times: a restored phrase was minted when it was, not now.
                transaction.execute_batch(
                    "DELETE FROM main.phrases;
                     INSERT INTO main.phrases (id, word, name, created)
                         SELECT id, word, name, MAX(created, 1) FROM restored.phrases
                         ORDER BY created, id;",
                )?;
                super::schema::time_untimed(&transaction)?;
                transaction.commit()?;
                Ok(true)
            })();
            connection.execute("DETACH DATABASE restored", [])?;
            outcome
        })
    }
}

/// `file`'s metadata, if it is a regular file.
fn regular_file(file: &Path) -> Result<std::fs::Metadata, StoreError> {
    match std::fs::metadata(file) {
        Ok(meta) if meta.is_file() => Ok(meta),
        Ok(_) => Err(StoreError::File {
            path: file.display().to_string(),
            reason: "is not a regular file".into(),
        }),
        Err(error) => Err(file_error(file, error)),
    }
}

/// Whether two paths' metadata are of one file (a hard link, or the same path spelled apart).
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

/// Copies the backup `file` (a regular file, as the caller found it) and a `-wal` beside
/// it to `temp`, and checks the copy as a store: header, application id, schema,
/// SQLite's integrity check.
fn prepare(file: &Path, temp: &Path) -> Result<u64, StoreError> {
    // What is wrong is the backup's, and so is what to do: the store is not touched.
    let rename = |refusal: Refusal| Refusal {
        path: file.display().to_string(),
        advice: "Name a file `lastwords phrases backup` wrote".into(),
        ..refusal
    };
    std::fs::copy(file, temp).map_err(|e| file_error(temp, e))?;
    let wal = sidecar(file, "-wal");
    if wal.exists() {
        std::fs::copy(&wal, sidecar(temp, "-wal")).map_err(|e| file_error(temp, e))?;
    }
    if inspect::inspect(temp).map_err(rename)? != Found::Store {
        return Err(StoreError::File {
            path: file.display().to_string(),
            reason: "vanished while it was copied".into(),
        });
    }
    let copy = Connection::open_with_flags(
        temp,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| database_error(file, e))?;
    let phrases = seal(&copy, file)?;
    copy.pragma_update(None, "application_id", APPLICATION_ID)
        .map_err(|e| database_error(file, e))?;
    copy.close().map_err(|(_, e)| database_error(file, e))?;
    Ok(phrases)
}

/// Renames the store's file and its log and index to one free name, keeping SQLite's
/// suffixes so they open together. Returns the new name of the database, if any.
fn move_aside(path: &Path) -> Result<Option<PathBuf>, StoreError> {
    let present: Vec<&str> = ["", "-wal", "-shm"]
        .into_iter()
        .filter(|suffix| std::fs::symlink_metadata(sidecar(path, suffix)).is_ok())
        .collect();
    if present.is_empty() {
        return Ok(None);
    }
    let aside = aside_name(path, "damaged");
    for suffix in present {
        std::fs::rename(sidecar(path, suffix), sidecar(&aside, suffix))
            .map_err(|e| file_error(&sidecar(path, suffix), e))?;
    }
    sync_folder(folder_of(path));
    Ok(Some(aside))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::store::NewPhrase;
    use crate::store::embedded::Seed;

    fn words(store: &EmbeddedStore) -> BTreeSet<String> {
        let read = store.read_all().unwrap();
        read.phrases.into_iter().map(|p| p.word).collect()
    }

    #[test]
    fn a_backup_taken_during_a_thousand_concurrent_writes_restores_whole() {
        let dir = tempfile::tempdir().unwrap();
        EmbeddedStore::open_or_create(dir.path(), Seed::Empty).unwrap();
        let target = dir.path().join("backup.sqlite3");
        let acknowledged = AtomicUsize::new(0);
        // Each write's word, and whether the backup had started before it was acknowledged.
        let acks: Mutex<Vec<(String, bool)>> = Mutex::new(Vec::new());
        let backup_started = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            for writer in 0..4 {
                let (dir, acks, acknowledged, backup_started) =
                    (dir.path(), &acks, &acknowledged, &backup_started);
                scope.spawn(move || {
                    let store = EmbeddedStore::open(dir).unwrap();
                    for n in 0..250 {
                        let word = format!("W{writer} N{n}");
                        store
                            .add_now(NewPhrase::validated(&word, "Writer").unwrap())
                            .unwrap();
                        let during = backup_started.load(Ordering::SeqCst);
                        acks.lock().unwrap().push((word, during));
                        acknowledged.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
            let (dir, target, acknowledged, backup_started) =
                (dir.path(), &target, &acknowledged, &backup_started);
            scope.spawn(move || {
                while acknowledged.load(Ordering::SeqCst) < 300 {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let store = EmbeddedStore::open(dir).unwrap();
                backup_started.store(true, Ordering::SeqCst);
                let report = store.backup(target).unwrap();
                assert!(report.phrases >= 300, "{report:?}");
                assert!(
                    acknowledged.load(Ordering::SeqCst) < 1000,
                    "the backup ran while writers wrote"
                );
            });
        });
        let acks = acks.into_inner().unwrap();
        assert_eq!(acks.len(), 1000);
        let live = EmbeddedStore::open(dir.path()).unwrap();
        assert_eq!(words(&live).len(), 1000, "no write lost to the backup");

        let fresh = tempfile::tempdir().unwrap();
        let report = EmbeddedStore::restore(fresh.path(), &target, false).unwrap();
        assert!(!report.in_place);
        let restored = EmbeddedStore::open(fresh.path()).unwrap();
        let verdict: String = restored
            .with(|c| c.query_row("PRAGMA integrity_check", [], |row| row.get(0)))
            .unwrap();
        assert_eq!(verdict, "ok");
        let restored = words(&restored);
        assert_eq!(restored.len() as u64, report.phrases);
        let before: Vec<&String> = acks
            .iter()
            .filter(|(_, during)| !during)
            .map(|(word, _)| word)
            .collect();
        assert!(before.len() >= 300);
        for word in before {
            assert!(
                restored.contains(word),
                "{word} was acknowledged before the backup"
            );
        }
        let all: BTreeSet<String> = acks.into_iter().map(|(word, _)| word).collect();
        assert!(restored.is_subset(&all), "nothing made up");
    }

    #[test]
    fn what_an_interrupted_backup_left_is_removed_by_the_next_once_its_process_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = EmbeddedStore::open_or_create(dir.path(), Seed::Samples).unwrap();
        let backups = tempfile::tempdir().unwrap();
        let id = "abcdefghij0123456789";
        // pid_max is at most 2^22: no process has this number.
        let gone = format!(".old.sqlite3.partial-4194304-{id}");
        let alive = format!(".old.sqlite3.partial-{}-{id}", std::process::id());
        let fresh = format!(".new.sqlite3.partial-4194304-{id}");
        let someone_elses = ".notes.partial-4194304-draft".to_owned();
        let long_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
        for name in [&gone, &alive, &fresh, &someone_elses] {
            let file = File::create(backups.path().join(name)).unwrap();
            if name != &fresh {
                file.set_modified(long_ago).unwrap();
            }
        }
        store.backup(&backups.path().join("b.sqlite3")).unwrap();
        let mut left: Vec<_> = std::fs::read_dir(backups.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut expected = vec![alive, fresh, someone_elses, "b.sqlite3".to_owned()];
        expected.sort();
        assert_eq!(left, expected);
    }

    #[test]
    fn a_restore_refuses_while_a_host_holds_the_folder_unless_online() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = EmbeddedStore::open_or_create(dir.path(), Seed::Samples).unwrap();
        let target = dir.path().join("b.sqlite3");
        store.backup(&target).unwrap();
        store
            .add_now(NewPhrase::validated("after the backup", "Op").unwrap())
            .unwrap();
        let host = File::open(dir.path()).unwrap();
        host.lock_shared().unwrap();
        let refused = EmbeddedStore::restore(dir.path(), &target, false)
            .err()
            .unwrap()
            .to_string();
        assert!(
            refused.contains("a host is serving from this folder"),
            "{refused}"
        );
        let report = EmbeddedStore::restore(dir.path(), &target, true).unwrap();
        assert!(report.in_place);
        assert!(!words(&store).contains("AFTER THE BACKUP"));
        let aside = report.kept_aside.unwrap();
        let kept_dir = tempfile::tempdir().unwrap();
        std::fs::copy(&aside, kept_dir.path().join(FILE_NAME)).unwrap();
        let kept = EmbeddedStore::open(kept_dir.path()).unwrap();
        assert!(
            words(&kept).contains("AFTER THE BACKUP"),
            "kept aside whole"
        );
    }

    #[test]
    fn a_restore_says_first_what_is_wrong_with_the_file_named_and_touches_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = EmbeddedStore::open_or_create(dir.path(), Seed::Samples).unwrap();
        let host = File::open(dir.path()).unwrap();
        host.lock_shared().unwrap();
        let listing = || {
            let mut names: Vec<_> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            names
        };
        let before = listing();
        let kept = words(&store);
        let missing = dir.path().join("no-such-backup.sqlite3");
        let said = EmbeddedStore::restore(dir.path(), &missing, false)
            .err()
            .unwrap()
            .to_string();
        assert!(
            said.contains("no-such-backup") && !said.contains("a host is serving"),
            "{said}"
        );
        // The store itself, by its own name or another path to it: not a backup.
        let spelled_apart = dir.path().join(".").join(FILE_NAME);
        for file in [dir.path().join(FILE_NAME), spelled_apart] {
            let said = EmbeddedStore::restore(dir.path(), &file, true)
                .err()
                .unwrap()
                .to_string();
            assert!(said.contains("is this folder's store itself"), "{said}");
        }
        assert_eq!(listing(), before, "nothing written, nothing kept aside");
        assert_eq!(words(&store), kept);
    }
}
