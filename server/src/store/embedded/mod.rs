//! The embedded store: phrases in an SQLite database in the data folder, so a fresh clone
//! runs with no cloud account.
//!
//! The database does the hard parts. A UNIQUE index on the normalised word makes a taken
//! phrase impossible to add twice, whichever process asks; every write is one
//! transaction in WAL mode with a busy timeout, so CLI processes and the host never lose
//! each other's writes. Triggers number every change (insert, update, delete, also made
//! by hand with the `sqlite3` shell) from one sequence, and record deletions, so the host
//! reads only what changed since its last read: a change costs O(change), not O(list).
//!
//! The host learns of other processes' commits from file events on the database and its
//! write-ahead log, filtered to writes; its own reads write nothing, so it cannot wake
//! itself, and an event that brings no new sequence number costs one small query.

mod backup;
mod follow;
pub mod inspect;
mod schema;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension as _, params};

use super::{AddOutcome, Added, NewPhrase, PhraseStore, StoreError, new_document_id};
use crate::feed::{Feed, Phrase};
use crate::metrics::Metrics;
use crate::text::ContentError;
pub use backup::{BackupReport, RestoreReport};
use inspect::{APPLICATION_ID, Found};
pub use schema::{Created, LegacyImport};
use schema::{checked, create_schema, created_of, rename_legacy, row_phrase, text_of};

/// The database file inside the data folder.
pub const FILE_NAME: &str = "phrases.sqlite3";
/// The JSON file earlier versions kept; imported once, then renamed.
pub const LEGACY_FILE_NAME: &str = "phrases.json";
/// What the legacy file is renamed to once imported (never deleted).
pub const LEGACY_IMPORTED_NAME: &str = "phrases.json.imported";

/// The schema this code reads and writes, kept in `PRAGMA user_version`.
const SCHEMA_VERSION: i64 = 1;
/// How long a write waits for another process's transaction before it fails.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// What a brand-new store starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seed {
    /// The sample phrases (what `serve` does for a fresh clone).
    Samples,
    /// Nothing (what `phrases init` does).
    Empty,
}

/// The phrases in an SQLite database.
#[derive(Clone)]
pub struct EmbeddedStore {
    /// The database file, for messages and for noticing it was replaced.
    path: PathBuf,
    /// One connection per process; SQLite serialises with other processes by itself.
    /// None once closed (see [`EmbeddedStore::close`]).
    connection: Arc<Mutex<Option<StoreConnection>>>,
}

/// A read-write connection that, when it closes, checkpoints its log only into the file
/// it opened and only while that file still looks like a store: SQLite's last
/// connection copies the `-wal` into the database and deletes it, which into a file
/// truncated or replaced under it would lose every change the log held.
struct StoreConnection {
    connection: Connection,
    path: PathBuf,
    /// The file's (device, inode) when opened.
    identity: Option<(u64, u64)>,
    /// Its write-ahead log's and the log's index's, as this connection opened them.
    log_files: LogFiles,
    /// Dropped after the connection, which it outlives (see [`inspect::Hold`]).
    _hold: inspect::Hold,
}

impl std::ops::Deref for StoreConnection {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.connection
    }
}

impl std::ops::DerefMut for StoreConnection {
    fn deref_mut(&mut self) -> &mut Connection {
        &mut self.connection
    }
}

impl Drop for StoreConnection {
    fn drop(&mut self) {
        // An index removed or replaced under this connection no longer says what others
        // have written to the log: checkpointing by it would overwrite their commits.
        let unchanged = file_identity(&self.path) == self.identity
            && LogFiles::of(&self.path).index == self.log_files.index
            && inspect::look(&self.path) == Ok(Found::Store);
        if !unchanged {
            let _ = self.connection.set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            );
        }
    }
}

/// The (device, inode) of a store's write-ahead log and of the log's index (`-shm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LogFiles {
    log: Option<(u64, u64)>,
    index: Option<(u64, u64)>,
}

impl LogFiles {
    fn of(path: &Path) -> Self {
        Self {
            log: file_identity(&inspect::sidecar(path, "-wal")),
            index: file_identity(&inspect::sidecar(path, "-shm")),
        }
    }
}

/// What became of the log files a connection opened, when someone removed or replaced
/// them under it (a clean-up taking them for temporary files): SQLite's processes share
/// the log through the index, so each case strands a different one.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Detached {
    /// The log is gone from the folder while the index is the shared one: the log this
    /// connection still has open holds commits the database lacks, and every other
    /// process fails to read them. They are checkpointed from it.
    Log,
    /// The index is gone or new while the log is the shared one: this connection's index
    /// misses what others append. It must be opened afresh, never checkpoint.
    Index,
    /// Both, and someone has written a new log since: two histories, neither mendable
    /// from here.
    Both,
}

/// Everything in the store at one sequence number.
#[derive(Debug)]
pub struct FullRead {
    /// The sequence number read at: the follower reads what changed after it.
    pub sequence: i64,
    /// Oldest first.
    pub phrases: Vec<Phrase>,
    /// Rows that break the content rules (written by hand): their ids and why.
    pub broken: Vec<(String, ContentError)>,
}

/// The rows that changed after a sequence number (beside [`FullRead`], which is every row).
#[derive(Debug, Default)]
struct ChangesSince {
    /// The sequence number read up to.
    sequence: i64,
    /// Rows added or edited, that follow the content rules.
    upserts: Vec<Phrase>,
    /// Ids of rows removed, or edited into breaking the rules.
    removals: Vec<String>,
    /// Rows that break the content rules (written by hand): their ids and why.
    broken: Vec<(String, ContentError)>,
}

impl EmbeddedStore {
    /// The store in `data_dir`, checked before it is opened read-write (see
    /// [`inspect`]). A missing store is an error that says how to make one.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        not_a_folder(data_dir)?;
        let path = data_dir.join(FILE_NAME);
        match inspect::inspect(&path)? {
            Found::Store => Self::connect_checked(path),
            Found::Nothing => Err(missing(data_dir)),
        }
    }

    /// What opening the store in `data_dir` would meet (the integrity check included),
    /// asked without writing a byte there ([`inspect::read_only`]). `created` says a missing store would be
    /// made, as `serve` does outside production.
    pub fn check_read_only(data_dir: &Path, created: bool) -> Result<(), StoreError> {
        let path = data_dir.join(FILE_NAME);
        match inspect::inspect(&path)? {
            // `serve` would make the folders missing and the store in the last: the
            // nearest that is there must let this user do so.
            Found::Nothing if created => {
                let nearest = nearest_existing(data_dir);
                inspect::folder_writable(nearest).map_err(|reason| StoreError::File {
                    path: path.display().to_string(),
                    reason,
                })
            }
            Found::Nothing => Err(missing(data_dir)),
            Found::Store => {
                let fail = |e| database_error(&path, e);
                full_check(&inspect::read_only(&path).map_err(fail)?).map_err(fail)
            }
        }
    }

    /// The store in `data_dir`, created (with `seed`, or with the phrases of a legacy
    /// `phrases.json`, which is then renamed) only when the folder has no store at all;
    /// anything else at its path is checked like [`EmbeddedStore::open`] does. Safe to
    /// race: of two processes creating one store, one creates it and the other opens it.
    pub fn open_or_create(
        data_dir: &Path,
        seed: Seed,
    ) -> Result<(Self, Option<Created>), StoreError> {
        not_a_folder(data_dir)?;
        std::fs::create_dir_all(data_dir).map_err(|e| file_error(data_dir, e))?;
        let path = data_dir.join(FILE_NAME);
        let mut created = None;
        if inspect::inspect(&path)? == Found::Nothing {
            // Said as such, rather than as SQLite failing to open a file it cannot make.
            inspect::folder_writable(data_dir).map_err(|reason| StoreError::File {
                path: path.display().to_string(),
                reason,
            })?;
            // A store made whole could then not be opened, and a later start, with room
            // again, would serve the sample phrases of a run that said it changed nothing.
            if let Some(free) = room_short(&path) {
                return Err(StoreError::File {
                    path: path.display().to_string(),
                    reason: format!(
                        "cannot be made: the disk that holds it is full ({free} bytes free; a store needs about 1 MiB beside it for its log). No store was made: free some space and try again"
                    ),
                });
            }
            created = create(data_dir, &path, seed)?;
            if created.is_none() {
                // Another process made it meanwhile: check what it made.
                inspect::inspect(&path)?;
            }
        }
        if let Some(report) = &created {
            if report.imported.is_some() {
                rename_legacy(
                    &data_dir.join(LEGACY_FILE_NAME),
                    &data_dir.join(LEGACY_IMPORTED_NAME),
                );
            }
            report.log(&path);
        }
        Ok((Self::connect_checked(path)?, created))
    }

    /// Opens a store [`inspect`] found sound, and marks one made before stores carried
    /// their application id.
    fn connect_checked(path: PathBuf) -> Result<Self, StoreError> {
        // The hold first, so that on the way out it is dropped after the connection.
        let (hold, connection) = connect(&path)?;
        let id: i64 = connection
            .pragma_query_value(None, "application_id", |row| row.get(0))
            .map_err(|e| database_error(&path, e))?;
        if id == 0 {
            retry_busy(|| connection.pragma_update(None, "application_id", APPLICATION_ID))
                .map_err(|e| database_error(&path, e))?;
        }
        let mut connection = connection;
        match schema::upgrade(&mut connection).map_err(|e| database_error(&path, e))? {
            Some(0) => {
                tracing::info!(path = %path.display(), "the store's triggers are this version's now (a phrase's time written by hand is followed)");
            }
            Some(timed) => {
                tracing::info!(path = %path.display(), timed, "the store now keeps when each phrase was minted; the phrases it had are timed as of now, in their order");
            }
            None => {}
        }
        if schema::record_replaced(&mut connection).map_err(|e| database_error(&path, e))? {
            tracing::info!(path = %path.display(), "the store now records the phrases another program's REPLACE removes");
        }
        // Both exist once the connection has read the store in WAL mode, and no other
        // process deletes them while it is open.
        let connection = StoreConnection {
            identity: file_identity(&path),
            log_files: LogFiles::of(&path),
            path: path.clone(),
            connection,
            _hold: hold,
        };
        Ok(Self {
            path,
            connection: Arc::new(Mutex::new(Some(connection))),
        })
    }

    /// The (device, inode) of the file this store's connection opened, which may not be
    /// the one at its path by the time a caller looks there.
    fn opened_identity(&self) -> Option<(u64, u64)> {
        self.connection
            .lock()
            .ok()
            .and_then(|c| c.as_ref().and_then(|c| c.identity))
    }

    /// Whether the log files this store's connection opened are still the folder's.
    fn detached(&self) -> Option<Detached> {
        let opened = self.connection.lock().ok()?.as_ref()?.log_files;
        let now = LogFiles::of(&self.path);
        if now == opened {
            return None;
        }
        if now.index == opened.index {
            return Some(Detached::Log);
        }
        if now.log == opened.log {
            return Some(Detached::Index);
        }
        // A process that opens the store without a log makes an empty one; only a commit
        // fills it.
        let log = inspect::sidecar(&self.path, "-wal");
        match std::fs::metadata(&log) {
            Ok(meta) if meta.len() > 0 => Some(Detached::Both),
            _ => Some(Detached::Log),
        }
    }

    /// Copies every commit of the log this store's connection has open into the database
    /// (see [`Detached::Log`]) and empties it.
    fn checkpoint(&self) -> Result<(), StoreError> {
        let busy: i64 = self.with(|connection| {
            connection.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |row| row.get(0))
        })?;
        if busy != 0 {
            return Err(StoreError::Database {
                path: self.path.display().to_string(),
                reason: "cannot copy its write-ahead log into it while another process reads or writes; trying again".into(),
            });
        }
        Ok(())
    }

    /// Closes the connection, before another is opened on the same file: SQLite shares
    /// one log index per database file among a process's connections, so a new one
    /// opened beside it would read through its index, however stale.
    fn close(&self) {
        if let Ok(mut connection) = self.connection.lock() {
            connection.take();
        }
    }

    /// Where the database lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn with<T>(
        &self,
        work: impl FnOnce(&mut StoreConnection) -> rusqlite::Result<T>,
    ) -> Result<T, StoreError> {
        let mut connection = self
            .connection
            .lock()
            .map_err(|_| StoreError::Backend("the store's connection was poisoned".into()))?;
        let connection = connection
            .as_mut()
            .ok_or_else(|| StoreError::Backend("the store's connection is closed".into()))?;
        work(connection).map_err(|e| database_error(&self.path, e))
    }

    /// Runs `work` on a blocking thread: SQLite calls may wait for another process.
    fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&EmbeddedStore) -> Result<T, StoreError> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, StoreError>> {
        let store = self.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || work(&store))
                .await
                .map_err(|e| StoreError::Backend(e.to_string()))?
        })
    }

    /// Every phrase, oldest first, in one read transaction, from a database that passes
    /// SQLite's integrity check: a damaged one is an error, never part of the list.
    pub fn read_all(&self) -> Result<FullRead, StoreError> {
        self.with(|connection| {
            let transaction = connection.transaction()?;
            full_check(&transaction)?;
            let sequence = current_sequence(&transaction)?;
            let mut statement = transaction
                .prepare("SELECT id, word, name, created FROM phrases ORDER BY created, id")?;
            let mut read = FullRead {
                sequence,
                phrases: Vec::new(),
                broken: Vec::new(),
            };
            let rows = statement.query_map([], row_phrase)?;
            for row in rows {
                match checked(row?) {
                    Ok(phrase) => read.phrases.push(phrase),
                    Err(broken) => read.broken.push(broken),
                }
            }
            drop(statement);
            transaction.commit()?;
            Ok(read)
        })
    }

    /// Every row as stored, oldest first, unchecked: checking each against the content
    /// rules is most of [`Self::read_all`]'s time at 100,000 phrases.
    fn read_words(&self) -> Result<Vec<Phrase>, StoreError> {
        self.with(|connection| {
            let mut statement = connection
                .prepare("SELECT id, word, name, created FROM phrases ORDER BY created, id")?;
            let rows = statement.query_map([], row_phrase)?;
            rows.map(|row| Ok(row?.phrase)).collect()
        })
    }

    /// SQLite's quick check of the file as it is on disk, through a connection of its
    /// own: the store's keeps pages in its cache that a write beside SQLite (which does
    /// not touch the log's index) leaves it believing current.
    fn check_on_disk(&self) -> Result<(), StoreError> {
        let fail = |e| database_error(&self.path, e);
        quick_check(&inspect::read_only(&self.path).map_err(fail)?).map_err(fail)
    }

    /// What changed after `since`, in one read transaction.
    fn read_since(&self, since: i64) -> Result<ChangesSince, StoreError> {
        self.with(|connection| {
            let transaction = connection.transaction()?;
            let sequence = current_sequence(&transaction)?;
            let mut changes = ChangesSince {
                sequence,
                ..ChangesSince::default()
            };
            if sequence != since {
                let mut changed = transaction
                    .prepare("SELECT id, word, name, created FROM phrases WHERE changed > ?1")?;
                for row in changed.query_map([since], row_phrase)? {
                    match checked(row?) {
                        Ok(phrase) => changes.upserts.push(phrase),
                        Err((id, error)) => {
                            changes.removals.push(id.clone());
                            changes.broken.push((id, error));
                        }
                    }
                }
                // Not a row still there: a conflicting write that was ignored, not done
                // (see schema::PHRASE_REPLACING).
                let mut removed = transaction.prepare(
                    "SELECT id FROM removals WHERE changed > ?1
                     AND id NOT IN (SELECT id FROM phrases)",
                )?;
                for id in removed.query_map([since], |row| Ok(text_of(row.get_ref(0)?).0))? {
                    changes.removals.push(id?);
                }
            }
            transaction.commit()?;
            Ok(changes)
        })
    }

    fn add_now(&self, phrase: NewPhrase) -> Result<Phrase, StoreError> {
        let mut outcomes = self.add_many_now(vec![phrase])?;
        match outcomes.pop() {
            Some(AddOutcome::Added(phrase)) => Ok(phrase),
            Some(AddOutcome::Taken { word, name }) => Err(StoreError::Taken { word, name }),
            None => Err(StoreError::Backend("the store answered nothing".into())),
        }
    }

    /// Adds every phrase it can in one transaction; a taken word is an outcome, not an
    /// error, so one duplicate does not undo the rest.
    fn add_many_now(&self, phrases: Vec<NewPhrase>) -> Result<Vec<AddOutcome>, StoreError> {
        self.with(|connection| {
            let transaction =
                connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            full_check(&transaction)?;
            let mut outcomes = Vec::with_capacity(phrases.len());
            {
                let mut insert = transaction.prepare(
                    "INSERT INTO phrases (id, word, name, created) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (word) DO NOTHING",
                )?;
                let mut times = schema::mint_times(&transaction, phrases.len())?;
                let mut owner = transaction.prepare("SELECT name FROM phrases WHERE word = ?1")?;
                for NewPhrase { word, name } in phrases {
                    let id = new_document_id();
                    // Asked first, not left to the conflict: a conflicting insert, even
                    // one that does nothing, records a removal (schema::PHRASE_REPLACING).
                    let taken = owner
                        .query_row([&word], |row| Ok(text_of(row.get_ref(0)?).0))
                        .optional()?;
                    let created = times.next().unwrap_or_default();
                    if taken.is_none() && insert.execute(params![id, word, name, created])? == 1 {
                        outcomes.push(AddOutcome::Added(Phrase {
                            id,
                            word,
                            name,
                            created: created_of(rusqlite::types::ValueRef::Integer(created)),
                            edited: 0,
                        }));
                    } else {
                        let name = taken.unwrap_or_default();
                        outcomes.push(AddOutcome::Taken { word, name });
                    }
                }
            }
            transaction.commit()?;
            Ok(outcomes)
        })
    }

    fn remove_now(&self, id: &str) -> Result<Phrase, StoreError> {
        self.with(|connection| {
            // In a transaction of its own: alone, the statement's commit happens as it is
            // reset after its one row is read, and an error there (a full disk) is lost,
            // so a removal that was not made was said to be.
            let transaction =
                connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            full_check(&transaction)?;
            let removed = transaction
                .query_row(
                    "DELETE FROM phrases WHERE id = ?1 RETURNING id, word, name, created",
                    [id],
                    |row| row_phrase(row).map(|row| row.phrase),
                )
                .optional()?;
            transaction.commit()?;
            Ok(removed)
        })?
        .ok_or_else(|| StoreError::NoSuchId(id.to_owned()))
    }

    /// Publishes the store into `feed` now, then keeps it current in the background,
    /// counting in `metrics` the rows it hides and the times the file goes bad.
    /// Follows the store into `feed`; returns the ids of the phrases removed before
    /// (the newest `limit`), whose pages answer 410 as those removed while it runs do.
    pub fn start(
        self,
        feed: Feed,
        metrics: &Metrics,
        limit: u64,
    ) -> Result<Vec<String>, StoreError> {
        let read = self.read_all()?;
        let removed = self.removed_ids(limit)?;
        follow::Follower::start(self, read, feed, metrics);
        Ok(removed)
    }

    /// The ids of the newest `limit` phrases removed (not those minted again since).
    pub fn removed_ids(&self, limit: u64) -> Result<Vec<String>, StoreError> {
        self.with(|connection| {
            let mut statement = connection.prepare(
                "SELECT id FROM removals WHERE id NOT IN (SELECT id FROM phrases)
                 ORDER BY changed DESC LIMIT ?1",
            )?;
            statement
                .query_map([limit as i64], |row| Ok(text_of(row.get_ref(0)?).0))?
                .collect()
        })
    }
}

impl PhraseStore for EmbeddedStore {
    fn list(&self) -> BoxFuture<'_, Result<Vec<Phrase>, StoreError>> {
        self.blocking(|store| {
            let read = store.read_all()?;
            for (id, error) in &read.broken {
                tracing::warn!(id = %crate::text::terminal_safe(id), %error, "a stored row breaks the content rules; not listed");
            }
            Ok(read.phrases)
        })
    }

    fn words(&self) -> BoxFuture<'_, Result<Vec<Phrase>, StoreError>> {
        self.blocking(|store| store.read_words())
    }

    fn add(&self, phrase: NewPhrase) -> BoxFuture<'_, Result<Added<Phrase>, StoreError>> {
        self.blocking(move |store| {
            Ok(Added {
                done: store.add_now(phrase)?,
                read: None,
            })
        })
    }

    fn add_many(
        &self,
        phrases: Vec<NewPhrase>,
    ) -> BoxFuture<'_, Result<Added<Vec<AddOutcome>>, StoreError>> {
        self.blocking(move |store| {
            Ok(Added {
                done: store.add_many_now(phrases)?,
                read: None,
            })
        })
    }

    fn remove(&self, id: String) -> BoxFuture<'_, Result<Phrase, StoreError>> {
        self.blocking(move |store| store.remove_now(&id))
    }
}
/// Opens a store [`inspect`] passed, read-write, looking at the file once more between
/// the open and the first query (when SQLite first reads it): the last moment a check
/// still keeps SQLite from deleting the log of a file truncated meanwhile. The file is
/// held from before the open on, so no look of ours drops the connection's locks.
fn connect(path: &Path) -> Result<(inspect::Hold, Connection), StoreError> {
    let hold = inspect::Hold::new(path);
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| database_error(path, e))?;
    inspect::look(path)?;
    connection
        .busy_timeout(BUSY_TIMEOUT)
        .map_err(|e| database_error(path, e))?;
    // WAL: readers never block the writer; FULL: a phrase reported as added survives a
    // power cut, not only a crash (writes are rare, one fsync each is cheap).
    retry_busy(|| {
        connection
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
    })
    .map_err(|e| database_error(path, e))?;
    connection
        .pragma_update(None, "synchronous", "FULL")
        .map_err(|e| database_error(path, e))?;
    // The triggers make every insert keep a statement journal; on disk that was most of
    // the time of a large import.
    connection
        .pragma_update(None, "temp_store", "MEMORY")
        .map_err(|e| database_error(path, e))?;
    // Replaced between the hold and the open: the connection's file is not the one held.
    if hold.identity().is_some() && file_identity(path) != hold.identity() {
        return Err(StoreError::File {
            path: path.display().to_string(),
            reason: "was replaced while it was being opened; try again".into(),
        });
    }
    Ok((hold, connection))
}

/// Switching to WAL takes a lock that the busy timeout does not cover; retry briefly.
fn retry_busy<T>(mut attempt: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match attempt() {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if error.code == ErrorCode::DatabaseBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other,
        }
    }
}
fn current_sequence(connection: &Connection) -> rusqlite::Result<i64> {
    connection.query_row("SELECT last FROM sequence", [], |row| row.get(0))
}

/// SQLite's quick check (every page and index entry well-formed, O(pages)); a damaged
/// database is reported as SQLite reports corruption.
fn quick_check(connection: &Connection) -> rusqlite::Result<()> {
    check_pages(connection, "quick_check")
}

/// SQLite's integrity check: the quick check, and also that every index holds what its
/// table does (O(rows log rows), half a second at 100,000 phrases). Asked before every
/// write and every whole read: a damaged unique index would let a taken word be minted
/// again, a damaged primary key index would remove another phrase than the one named,
/// and neither breaks a page of the file.
fn full_check(connection: &Connection) -> rusqlite::Result<()> {
    check_pages(connection, "integrity_check")
}

/// Runs SQLite's `quick_check` or `integrity_check`; what it finds is an error as SQLite
/// reports corruption, with how many problems and the first.
fn check_pages(connection: &Connection, pragma: &str) -> rusqlite::Result<()> {
    let mut statement = connection.prepare(&format!("PRAGMA {pragma}"))?;
    let rows: Vec<String> = statement
        .query_map([], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if rows.len() == 1 && rows[0] == "ok" {
        return Ok(());
    }
    // A row may hold several problems, a line each, under a "*** in database main ***".
    let problems: Vec<&str> = rows
        .iter()
        .flat_map(|row| row.lines())
        .filter(|line| !line.starts_with("***") && !line.trim().is_empty())
        .collect();
    Err(rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(format!(
            "the {} found {} problem(s), the first: {}",
            pragma.replace('_', " "),
            problems.len(),
            problems.first().copied().unwrap_or("none named")
        )),
    ))
}

/// A new store, made whole under a temporary name and linked into place only if
/// nothing is there yet: no process ever sees a half-made store, and a file that
/// appeared meanwhile is never written to. `None`: another process created it first.
fn create(data_dir: &Path, path: &Path, seed: Seed) -> Result<Option<Created>, StoreError> {
    let temp = data_dir.join(format!(
        ".{FILE_NAME}.new-{}-{}",
        std::process::id(),
        new_document_id()
    ));
    let legacy_path = data_dir.join(LEGACY_FILE_NAME);
    let legacy = if legacy_path.exists() {
        let legacy = schema::read_legacy(&legacy_path).map_err(|reason| StoreError::File {
            path: legacy_path.display().to_string(),
            reason: format!(
                "{reason}: no store was made from it and it is left as it is; mend it, or move it \
                 out of the data folder to start without it"
            ),
        })?;
        Some(legacy)
    } else {
        None
    };
    let _cleanup = backup::RemoveOnDrop(&temp);
    let created = {
        let mut connection = Connection::open_with_flags(
            &temp,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| database_error(&temp, e))?;
        let created =
            create_schema(&mut connection, legacy, seed).map_err(|e| database_error(path, e))?;
        connection
            .close()
            .map_err(|(_, e)| database_error(path, e))?;
        created
    };
    backup::sync_file(&temp).map_err(|e| file_error(&temp, e))?;
    match std::fs::hard_link(&temp, path) {
        Ok(()) => {
            backup::sync_folder(data_dir);
            Ok(Some(created))
        }
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(None),
        Err(error) => Err(file_error(path, error)),
    }
}

/// The nearest of `path` and the folders above it that exists: where `serve` would start
/// making the folders missing (the working folder for a relative path none of which is).
pub fn nearest_existing(path: &Path) -> &Path {
    path.ancestors()
        .find(|ancestor| ancestor.exists())
        .unwrap_or(Path::new("."))
}

/// Refuses a data folder that is a file, as such (opening the store in it would say
/// "Not a directory" and suggest permissions).
fn not_a_folder(data_dir: &Path) -> Result<(), StoreError> {
    if data_dir.exists() && !data_dir.is_dir() {
        return Err(StoreError::File {
            path: data_dir.display().to_string(),
            reason: "is not a folder: the data folder (--data-dir, LASTWORDS_DATA_DIR) is where the store lives".into(),
        });
    }
    Ok(())
}

fn missing(data_dir: &Path) -> StoreError {
    StoreError::Missing {
        path: data_dir.join(FILE_NAME).display().to_string(),
        hint: if data_dir.join(LEGACY_FILE_NAME).exists() {
            format!(
                "`lastwords phrases init` creates it and imports the {LEGACY_FILE_NAME} found there"
            )
        } else {
            "`lastwords phrases init` creates an empty one (and `lastwords serve`, outside production, one with sample phrases)".into()
        },
    }
}

/// Bytes free below which a failed open or read is put down to a full disk: SQLite
/// needs a shared-memory file of 32 KiB and room for a page of log to open a store.
const ROOM_NEEDED: u64 = 1 << 20;

/// How many bytes are free on the disk that holds `path`, when `error` is not damage
/// SQLite found and the disk is too full for SQLite to open a store there: its error
/// is then "disk I/O error", which says nothing of the store.
fn no_room(path: &Path, error: &rusqlite::Error) -> Option<u64> {
    use rusqlite::ErrorCode::*;
    // What SQLite says when it cannot make or grow a file; a lock, a read-only file or a
    // refused permission is said as itself.
    if !matches!(
        error.sqlite_error_code(),
        Some(SystemIoFailure | CannotOpen | DiskFull)
    ) {
        return None;
    }
    room_short(path)
}

/// How many bytes are free on the disk that holds `path`, when it is too full for
/// SQLite to open a store there.
fn room_short(path: &Path) -> Option<u64> {
    let folder = path
        .parent()
        .filter(|folder| !folder.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let disk = rustix::fs::statvfs(folder).ok()?;
    // A file system that counts no blocks (some FUSE ones) says nothing of its room.
    if disk.f_blocks == 0 {
        return None;
    }
    // Root may write into the blocks kept for it.
    let blocks = if rustix::process::geteuid().is_root() {
        disk.f_bfree
    } else {
        disk.f_bavail
    };
    let free = blocks.saturating_mul(disk.f_frsize);
    // Out of inodes is out of room too: no new file can be made.
    (free < ROOM_NEEDED || (disk.f_files > 0 && disk.f_favail == 0)).then_some(free)
}

/// What a store on a disk with `free` bytes left is, when SQLite could not open it.
fn full_disk(free: u64, error: &rusqlite::Error) -> String {
    format!(
        "cannot be opened: the disk that holds it is full ({free} bytes free) and SQLite needs room beside it for its log (SQLite says \"{error}\"); the store is not damaged"
    )
}

fn database_error(path: &Path, error: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode::*;
    let code = error.sqlite_error_code();
    let reason = match code {
        Some(DiskFull) => format!(
            "the disk is full, so nothing was written ({error}); free some space and try again"
        ),
        _ if let Some(free) = no_room(path, &error) => format!(
            "{}. Nothing was changed: free some space and try again",
            full_disk(free, &error)
        ),
        Some(DatabaseCorrupt | NotADatabase) => {
            format!(
                "is damaged ({error}). Nothing was changed. Restore a backup with `lastwords phrases restore FILE`"
            )
        }
        Some(ReadOnly) => format!(
            "cannot be written ({error}): a read-only file or file system, or a file replaced under this process"
        ),
        Some(CannotOpen | PermissionDenied) => format!("cannot be opened ({error})"),
        _ => error.to_string(),
    };
    StoreError::Database {
        path: path.display().to_string(),
        reason,
    }
}

fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path)
        .ok()
        .map(|meta| (meta.dev(), meta.ino()))
}

fn file_error(path: &Path, error: std::io::Error) -> StoreError {
    StoreError::File {
        path: path.display().to_string(),
        reason: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::schema::SAMPLES;
    use super::*;
    use crate::feed::list::{FIRST_TIME_US, MAX_CREATED};
    use crate::feed::now_us;

    fn words(feed: &Feed) -> Vec<String> {
        let mut words: Vec<String> = feed.current().list.iter().map(|p| p.word.clone()).collect();
        words.sort();
        words
    }

    async fn eventually(feed: &Feed, expected: &[&str]) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while words(feed) != expected && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(words(feed), expected);
    }

    #[test]
    fn a_missing_store_is_not_made_up() {
        let dir = tempfile::tempdir().unwrap();
        let error = EmbeddedStore::open(dir.path()).err().unwrap().to_string();
        assert!(error.contains("phrases init"), "{error}");
        assert!(!dir.path().join(FILE_NAME).exists());
    }

    #[test]
    fn racing_creators_make_one_store_with_one_set_of_samples() {
        let dir = tempfile::tempdir().unwrap();
        let created: Vec<bool> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| {
                        EmbeddedStore::open_or_create(dir.path(), Seed::Samples)
                            .unwrap()
                            .1
                            .is_some()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(created.iter().filter(|c| **c).count(), 1);
        let store = EmbeddedStore::open(dir.path()).unwrap();
        assert_eq!(store.read_all().unwrap().phrases.len(), SAMPLES.len());
    }

    #[test]
    fn a_look_while_other_connections_come_and_go_finds_the_store() {
        use std::sync::atomic::{AtomicBool, Ordering};

        let dir = tempfile::tempdir().unwrap();
        EmbeddedStore::open_or_create(dir.path(), Seed::Samples).unwrap();
        let path = dir.path().join(FILE_NAME);
        let stop = AtomicBool::new(false);
        std::thread::scope(|scope| {
            // Each first connection makes the log and the index; each last close removes
            // them, between a look's finding them and its asking about them.
            scope.spawn(|| {
                while !stop.load(Ordering::Relaxed) {
                    let store = EmbeddedStore::open(dir.path());
                    drop(store);
                }
            });
            let looks = (0..3000).map(|_| inspect::look(&path)).collect::<Vec<_>>();
            stop.store(true, Ordering::Relaxed);
            for look in looks {
                assert_eq!(look.unwrap(), inspect::Found::Store);
            }
        });
    }

    /// `(id, created)` newest first, as the list shows them.
    fn listed(path: &Path) -> Vec<(String, u64)> {
        let connection = Connection::open(path).unwrap();
        let mut statement = connection
            .prepare("SELECT id, created FROM phrases ORDER BY created DESC, id ASC")
            .unwrap();
        statement
            .query_map([], |row| Ok((row.get(0)?, row.get::<_, i64>(1)? as u64)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[test]
    fn a_phrase_is_timed_when_minted_and_never_before_an_older_one() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = EmbeddedStore::open_or_create(dir.path(), Seed::Empty).unwrap();
        let before = now_us();
        let first = store
            .add_now(NewPhrase::validated("first", "a").unwrap())
            .unwrap();
        let second = store
            .add_now(NewPhrase::validated("second", "a").unwrap())
            .unwrap();
        assert!((before..=now_us()).contains(&first.created), "{first:?}");
        assert!(second.created > first.created, "{first:?} {second:?}");
        // A row another program timed an hour ahead (a clock set back since): the next
        // phrase still comes after it, and the sqlite3 shell's rows are timed as ours.
        let ahead = now_us() + 3_600_000_000;
        let connection = Connection::open(store.path()).unwrap();
        connection
            .execute(
                "INSERT INTO phrases (id, word, name, created) VALUES ('ahead', 'AHEAD', 'b', ?1)",
                [ahead as i64],
            )
            .unwrap();
        connection
            .execute(
                "INSERT INTO phrases (id, word, name) VALUES ('shell', 'SHELL', 'b')",
                [],
            )
            .unwrap();
        let third = store
            .add_now(NewPhrase::validated("third", "a").unwrap())
            .unwrap();
        assert_eq!(third.created, ahead + 2);
        let ids: Vec<String> = listed(store.path()).into_iter().map(|(id, _)| id).collect();
        assert_eq!(&ids[..3], [third.id.as_str(), "shell", "ahead"]);
        // Rows in nanoseconds or at the end of the range do not stop minting or carry
        // later phrases off with them, and no date is made of them; one minted by a clock
        // set years ahead is followed, as the order of minting is what the list shows.
        let years_ahead = now_us() + 40 * 365 * 86_400_000_000;
        for (id, created) in [
            ("nanos", 1_795_811_799_173_001_000),
            ("last", i64::MAX),
            ("ahead_years", years_ahead as i64),
        ] {
            connection
                .execute(
                    "INSERT INTO phrases (id, word, name, created) VALUES (?1, upper(?1), 'b', ?2)",
                    params![id, created],
                )
                .unwrap();
        }
        let sequence = store.read_all().unwrap().sequence;
        let fourth = store
            .add_now(NewPhrase::validated("fourth", "a").unwrap())
            .unwrap();
        assert_eq!(fourth.created, years_ahead + 1);
        // One step of the sequence a phrase: the row's numbering is no hand edit.
        assert_eq!(store.read_all().unwrap().sequence, sequence + 1);
        // The sqlite3 shell's rows are numbered by the trigger, as older versions write
        // it.
        connection
            .execute(
                "INSERT INTO phrases (id, word, name) VALUES ('shell2', 'SHELL TWO', 'b')",
                [],
            )
            .unwrap();
        let shell2: i64 = connection
            .query_row(
                "SELECT created FROM phrases WHERE id = 'shell2'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(shell2 as u64, years_ahead + 2);
        let nanos = Phrase {
            created: 1_795_811_799_173_001_000,
            ..fourth.clone()
        };
        assert_eq!(
            (nanos.minted_ms(), fourth.minted_ms()),
            (None, Some(fourth.created / 1000))
        );
        // None is handed on past what a browser reads exactly.
        let read = store.read_all().unwrap();
        let mut capped: Vec<&str> = read
            .phrases
            .iter()
            .filter(|p| p.created == MAX_CREATED)
            .map(|p| p.id.as_str())
            .collect();
        capped.sort_unstable();
        assert_eq!(capped, ["last", "nanos"]);
        // A time put right by hand is marked changed, for a running host to follow.
        connection
            .execute(
                "UPDATE phrases SET created = ?1 WHERE id = 'ahead_years'",
                [now_us() as i64],
            )
            .unwrap();
        assert_eq!(store.read_all().unwrap().sequence, read.sequence + 1);
    }

    /// A store as the version before times were kept left it: four phrases numbered in
    /// the order c, a, e, b, and e given b's number by hand (the id decides between them).
    fn earlier_store(dir: &Path) -> PathBuf {
        const EARLIER_TRIGGER: &str = "
            CREATE TRIGGER phrase_added AFTER INSERT ON phrases BEGIN
                UPDATE sequence SET last = last + 1;
                UPDATE phrases SET created = (SELECT last FROM sequence), changed = (SELECT last FROM sequence)
                    WHERE id = NEW.id;
                DELETE FROM removals WHERE id = NEW.id;
            END;
            CREATE TRIGGER phrase_changed AFTER UPDATE OF id, word, name ON phrases BEGIN
                UPDATE sequence SET last = last + 1;
                UPDATE phrases SET changed = (SELECT last FROM sequence) WHERE id = NEW.id;
                INSERT OR REPLACE INTO removals (id, changed)
                    SELECT OLD.id, (SELECT last FROM sequence) WHERE OLD.id <> NEW.id;
            END;";
        let path = dir.join(FILE_NAME);
        drop(EmbeddedStore::open_or_create(dir, Seed::Empty).unwrap());
        let connection = Connection::open(&path).unwrap();
        connection
            .execute_batch(&format!(
                "DROP TRIGGER phrase_added; DROP TRIGGER phrase_changed; {EARLIER_TRIGGER}
                 DROP TRIGGER phrase_replacing; DROP TRIGGER phrase_replacing_word;"
            ))
            .unwrap();
        for (id, word) in [("c", "ONE"), ("a", "TWO"), ("e", "THREE"), ("b", "FOUR")] {
            connection
                .execute(
                    "INSERT INTO phrases (id, word, name) VALUES (?1, ?2, 'n')",
                    [id, word],
                )
                .unwrap();
        }
        connection
            .execute("UPDATE phrases SET created = 4 WHERE id = 'e'", [])
            .unwrap();
        path
    }

    /// Each version rewrites a `phrase_added` that is not its own when it opens the store:
    /// changed here, a host and an older CLI on one store would rewrite each other's at
    /// every open. The text the versions since mint times were kept have written.
    #[test]
    fn the_numbering_trigger_is_the_one_earlier_versions_write() {
        const EARLIER: &str = "
CREATE TRIGGER phrase_added AFTER INSERT ON phrases BEGIN
    UPDATE sequence SET last = last + 1;
    UPDATE phrases SET
        created = CASE WHEN NEW.created > 0 THEN NEW.created ELSE MAX(
            CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER) * 1000,
            (SELECT MAX(created) FROM phrases WHERE created < 32503680000000000) + 1) END,
        changed = (SELECT last FROM sequence)
        WHERE id = NEW.id;
    DELETE FROM removals WHERE id = NEW.id;
END;
";
        assert_eq!(super::schema::PHRASE_ADDED, EARLIER);
    }

    #[test]
    fn phrases_minted_after_one_at_the_largest_time_a_browser_reads_are_each_dated_apart() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = EmbeddedStore::open_or_create(dir.path(), Seed::Empty).unwrap();
        let connection = Connection::open(store.path()).unwrap();
        connection
            .execute(
                "INSERT INTO phrases (id, word, name, created) VALUES ('top', 'TOP', 'b', ?1)",
                [MAX_CREATED as i64 - 2],
            )
            .unwrap();
        let times: Vec<u64> = ["one", "two", "three", "four"]
            .into_iter()
            .map(|word| {
                store
                    .add_now(NewPhrase::validated(word, "a").unwrap())
                    .unwrap()
                    .created
            })
            .collect();
        assert_eq!(
            times[0],
            MAX_CREATED - 1,
            "after the top while there is room"
        );
        assert!(
            times[1] < times[2] && times[2] < times[3] && times[3] < times[0],
            "{times:?}"
        );
    }

    #[test]
    fn phrases_with_no_room_for_times_below_the_oldest_are_left_as_they_are_not_timed_at_every_open()
     {
        let dir = tempfile::tempdir().unwrap();
        let path = earlier_store(dir.path());
        let connection = Connection::open(&path).unwrap();
        connection
            .execute(
                "UPDATE phrases SET created = ?1 WHERE id = 'c'",
                [FIRST_TIME_US as i64],
            )
            .unwrap();
        drop(connection);
        drop(EmbeddedStore::open(dir.path()).unwrap());
        let sequence = EmbeddedStore::open(dir.path())
            .unwrap()
            .read_all()
            .unwrap()
            .sequence;
        for _ in 0..3 {
            let store = EmbeddedStore::open(dir.path()).unwrap();
            assert_eq!(
                store.read_all().unwrap().sequence,
                sequence,
                "nothing written"
            );
        }
    }

    #[test]
    fn processes_opening_an_earlier_store_at_once_time_it_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = earlier_store(dir.path());
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| EmbeddedStore::open(dir.path()).unwrap());
            }
        });
        let timed = listed(&path);
        let ids: Vec<&str> = timed.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["b", "e", "a", "c"]);
        assert!(timed.iter().all(|(_, created)| *created >= FIRST_TIME_US));
        let store = EmbeddedStore::open(dir.path()).unwrap();
        assert_eq!(store.read_all().unwrap().sequence, 5, "one upgrade");
    }

    #[test]
    fn a_store_an_earlier_version_made_is_timed_in_its_order_once_and_still_reads_as_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = earlier_store(dir.path());
        let order: Vec<String> = listed(&path).into_iter().map(|(id, _)| id).collect();
        assert_eq!(order, ["b", "e", "a", "c"]);
        // A copy as it is, for a restore: what the earlier version's backup holds.
        let earlier_backup = dir.path().join("earlier.sqlite3");
        std::fs::copy(&path, &earlier_backup).unwrap();

        let before = now_us();
        let store = EmbeddedStore::open(dir.path()).unwrap();
        let timed = listed(&path);
        let ids: Vec<&str> = timed.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, order, "the order is kept");
        // SQLite's clock is rounded to the nearest millisecond.
        assert!(timed[0].1 < now_us() + 1000 && timed[3].1 >= before - 1000);
        assert!(timed.windows(2).all(|w| w[0].1 > w[1].1), "{timed:?}");
        let read = store.read_all().unwrap();
        assert!(read.phrases.iter().all(|p| p.created >= FIRST_TIME_US));
        // A host following the store is told: each is changed after the last sequence.
        assert_eq!(read.sequence, 5);
        drop(store);

        // Opened again, nothing is written; the schema number an earlier version reads
        // is the same, and its inserts (which run the store's trigger) are timed.
        let store = EmbeddedStore::open(dir.path()).unwrap();
        assert_eq!(listed(&path), timed);
        assert_eq!(store.read_all().unwrap().sequence, 5);
        let connection = Connection::open(&path).unwrap();
        let version: i64 = connection
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        connection
            .execute(
                "INSERT INTO phrases (id, word, name) VALUES ('f', 'FIVE', 'n')",
                [],
            )
            .unwrap();
        assert_eq!(listed(&path)[0].0, "f");
        assert!(listed(&path)[0].1 > timed[0].1);

        // The earlier version's backup restored: its phrases timed, in their order, and
        // a restore of this version's backup keeps the times it holds.
        let report = EmbeddedStore::restore(dir.path(), &earlier_backup, false).unwrap();
        drop(report);
        let restored = listed(&path);
        let ids: Vec<&str> = restored.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, order);
        assert!(
            restored
                .iter()
                .all(|(_, created)| *created >= FIRST_TIME_US)
        );
        let ours = dir.path().join("ours.sqlite3");
        EmbeddedStore::open(dir.path())
            .unwrap()
            .backup(&ours)
            .unwrap();
        connection.execute("DELETE FROM phrases", []).unwrap();
        EmbeddedStore::restore(dir.path(), &ours, false).unwrap();
        assert_eq!(listed(&path), restored);
    }

    #[test]
    fn another_programs_replace_is_read_as_the_removal_it_is_once_an_earlier_store_is_opened() {
        let dir = tempfile::tempdir().unwrap();
        let path = earlier_store(dir.path());
        let store = EmbeddedStore::open(dir.path()).unwrap();
        let since = store.read_all().unwrap().sequence;
        let other = Connection::open(&path).unwrap();
        other
            .execute_batch(
                "INSERT OR REPLACE INTO phrases (id, word, name) VALUES ('g', 'ONE', 'n');
                 UPDATE OR REPLACE phrases SET word = 'TWO' WHERE id = 'e';
                 INSERT OR IGNORE INTO phrases (id, word, name) VALUES ('h', 'FOUR', 'n');",
            )
            .unwrap();
        let changes = store.read_since(since).unwrap();
        let mut removed = changes.removals.clone();
        removed.sort();
        assert_eq!(removed, ["a", "c"], "ONE's and TWO's rows, not FOUR's");
        let mut upserted: Vec<&str> = changes.upserts.iter().map(|p| p.id.as_str()).collect();
        upserted.sort();
        assert_eq!(upserted, ["e", "g"]);
        let all: Vec<String> = store
            .read_all()
            .unwrap()
            .phrases
            .into_iter()
            .map(|p| p.id)
            .collect();
        assert_eq!(all.len(), 3, "{all:?}");
    }

    #[test]
    fn writers_on_their_own_connections_lose_nothing_and_share_one_word_once() {
        let dir = tempfile::tempdir().unwrap();
        EmbeddedStore::open_or_create(dir.path(), Seed::Empty).unwrap();
        let outcomes: Vec<(bool, bool)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|i| {
                    let dir = dir.path();
                    scope.spawn(move || {
                        let store = EmbeddedStore::open(dir).unwrap();
                        let own = NewPhrase::validated(&format!("writer {i}"), "w").unwrap();
                        let shared = NewPhrase::validated("the same", "w").unwrap();
                        (store.add_now(own).is_ok(), store.add_now(shared).is_ok())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(outcomes.iter().all(|(own, _)| *own));
        assert_eq!(outcomes.iter().filter(|(_, shared)| *shared).count(), 1);
        let read = EmbeddedStore::open(dir.path()).unwrap().read_all().unwrap();
        assert_eq!(read.phrases.len(), 9);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_follower_sees_other_connections_and_hides_rows_that_break_the_rules() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = EmbeddedStore::open_or_create(dir.path(), Seed::Empty).unwrap();
        let feed = Feed::new();
        let metrics = Metrics::new();
        store.clone().start(feed.clone(), &metrics, 10).unwrap();
        eventually(&feed, &[]).await;

        // Another process, as the `sqlite3` shell would be: plain SQL, no checks.
        let other = Connection::open(dir.path().join(FILE_NAME)).unwrap();
        other.busy_timeout(BUSY_TIMEOUT).unwrap();
        let insert = |id: &str, word: &str| {
            other
                .execute(
                    "INSERT INTO phrases (id, word, name) VALUES (?1, ?2, 'Hand')",
                    [id, word],
                )
                .unwrap()
        };
        insert("a", "BY HAND");
        insert("b", "\u{1b}[2JWIPE");
        insert("c", "lower case");
        // Ids no document can have: each would be a page's address.
        for (id, word) in [
            ("", "NO ID"),
            ("..", "UP ONE"),
            ("a/b", "SLASHED"),
            ("r\u{202e}l", "TURNED"),
            (" ", "A SPACE"),
            ("\u{a0}", "NO BREAK"),
            ("\u{3164}", "FILLER"),
            ("ab\u{34f}", "JOINED"),
        ] {
            insert(id, word);
        }
        // Not text where the schema says text: each hides its own row, not the store.
        other
            .execute_batch(
                "INSERT INTO phrases (id, word, name) VALUES ('blob', 'BLOB NAME', X'4142');
                 INSERT INTO phrases (id, word, name) VALUES ('half', CAST(X'41EDA08042' AS TEXT), 'n');
                 INSERT INTO phrases (id, word, name) VALUES (X'6964', 'BLOB ID', 'n');",
            )
            .unwrap();
        // An id with a space inside is only unusual: its address has it percent-encoded.
        insert("hand made", "SPACED");
        eventually(&feed, &["BY HAND", "SPACED"]).await;
        let skipped = || metrics.feed_skipped.get();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        while skipped() < 13 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(
            skipped(),
            13,
            "the escape row, the row not in normal form, the eight ids and the three not text"
        );

        other
            .execute("UPDATE phrases SET word = 'EDITED' WHERE id = 'a'", [])
            .unwrap();
        eventually(&feed, &["EDITED", "SPACED"]).await;
        other
            .execute("UPDATE phrases SET word = 'FIXED' WHERE id = 'c'", [])
            .unwrap();
        eventually(&feed, &["EDITED", "FIXED", "SPACED"]).await;
        other
            .execute("DELETE FROM phrases WHERE id = 'a'", [])
            .unwrap();
        eventually(&feed, &["FIXED", "SPACED"]).await;
        // A row that is not text reads and removes like any other.
        let removed = store.remove("blob".into()).await.unwrap();
        assert_eq!(removed.word, "BLOB NAME");
        assert_eq!(store.list().await.unwrap().len(), 2);
    }

    #[test]
    fn a_store_whose_last_pages_are_still_in_its_log_is_sound_and_one_cut_short_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        EmbeddedStore::open_or_create(dir.path(), Seed::Empty).unwrap();
        let writer = Connection::open(&path).unwrap();
        writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        writer.execute_batch("BEGIN").unwrap();
        for i in 0..200 {
            writer
                .execute(
                    "INSERT INTO phrases (id, word, name) VALUES (?1, ?2, 'n')",
                    [
                        format!("{i:04}"),
                        format!("{}{i:04}", format!("W{:03}", i).repeat(4)),
                    ],
                )
                .unwrap();
        }
        writer.execute_batch("COMMIT").unwrap();
        // A reader holds the checkpoint back: it copies page 1, with the grown count, and
        // leaves the new last pages in the log, as SQLite means it to.
        let reader = Connection::open(&path).unwrap();
        reader
            .execute_batch("BEGIN; SELECT count(*) FROM phrases;")
            .unwrap();
        writer
            .execute("UPDATE phrases SET word = replace(word, 'W', 'V')", [])
            .unwrap();
        writer
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .unwrap();
        let head = std::fs::read(&path).unwrap();
        let counted = u32::from_be_bytes(head[28..32].try_into().unwrap());
        let pages = head.len() / 4096;
        assert!(
            (pages as u32) < counted,
            "{pages} pages of {counted}: the case to test"
        );
        assert_eq!(inspect::look(&path), Ok(Found::Store));
        assert_eq!(
            EmbeddedStore::open(dir.path())
                .unwrap()
                .read_all()
                .unwrap()
                .phrases
                .len(),
            200
        );

        // The same file without its log is cut short.
        let alone = tempfile::tempdir().unwrap();
        std::fs::write(alone.path().join(FILE_NAME), &head).unwrap();
        let refusal = inspect::look(&alone.path().join(FILE_NAME)).unwrap_err();
        assert!(
            refusal
                .problem
                .contains(&format!("holds {pages} of the {counted} pages")),
            "{refusal}"
        );

        // Once a checkpoint has copied the log's frames, readers take those pages from
        // the file: a file cut short has lost them, though the log still holds copies.
        drop(reader);
        writer
            .query_row("PRAGMA wal_checkpoint(FULL)", [], |_| Ok(()))
            .unwrap();
        let copied = std::fs::read(&path).unwrap();
        let whole = copied.len() / 4096;
        let cut = tempfile::tempdir().unwrap();
        let cut_path = cut.path().join(FILE_NAME);
        std::fs::write(&cut_path, &copied[..(whole - 3) * 4096]).unwrap();
        for suffix in ["-wal", "-shm"] {
            std::fs::copy(
                inspect::sidecar(&path, suffix),
                inspect::sidecar(&cut_path, suffix),
            )
            .unwrap();
        }
        let refusal = inspect::look(&cut_path).unwrap_err();
        assert!(refusal.problem.contains("cut short"), "{refusal}");
        drop(writer);
    }

    #[test]
    fn reopening_a_store_keeps_one_descriptor_of_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _) = EmbeddedStore::open_or_create(dir.path(), Seed::Samples).unwrap();
        let path = dir.path().join(FILE_NAME);
        let descriptors_of_it = || {
            std::fs::read_dir("/proc/self/fd")
                .unwrap()
                .filter_map(|entry| std::fs::read_link(entry.ok()?.path()).ok())
                .filter(|target| *target == path)
                .count()
        };
        // As the follower reopens a store it found damaged: a new connection, the old one
        // still open until the new one is in place. (SQLite keeps a closed connection's
        // descriptor for the next while another holds locks on the file.)
        let mut current = EmbeddedStore::connect_checked(path.clone()).unwrap();
        let mut counts = Vec::new();
        for round in 0..40 {
            let next = EmbeddedStore::connect_checked(path.clone()).unwrap();
            current = next;
            assert!(inspect::look(&path).is_ok());
            if round % 10 == 9 {
                counts.push(descriptors_of_it());
            }
        }
        assert!(
            counts.windows(2).all(|w| w[0] == w[1]),
            "descriptors after each 10 reopens: {counts:?}"
        );
        drop((current, store));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_legacy_file_is_imported_once_with_its_ids_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let legacy = dir.path().join(LEGACY_FILE_NAME);
        std::fs::write(
            &legacy,
            r#"[{"id":"keep-me","word":"old one","name":"n"},{"id":"x","word":7,"name":"n"},{"id":"y","word":"OLD ONE","name":"n"}]"#,
        )
        .unwrap();
        let (store, created) = EmbeddedStore::open_or_create(dir.path(), Seed::Samples).unwrap();
        let import = created.unwrap().imported.unwrap();
        assert_eq!(import.added, 1);
        assert_eq!(import.rejected.len(), 2, "{:?}", import.rejected);
        let read = store.read_all().unwrap();
        assert_eq!(read.phrases.len(), 1, "no samples beside an import");
        assert_eq!(read.phrases[0].id, "keep-me");
        assert_eq!(read.phrases[0].word, "OLD ONE");
        assert!(!legacy.exists());
        assert!(dir.path().join(LEGACY_IMPORTED_NAME).exists());
        let (_, again) = EmbeddedStore::open_or_create(dir.path(), Seed::Samples).unwrap();
        assert!(again.is_none());
    }

    #[test]
    fn a_legacy_entry_no_string_can_hold_is_rejected_alone() {
        let dir = tempfile::tempdir().unwrap();
        // A name an older writer cut in the middle of an emoji: half a surrogate pair.
        std::fs::write(
            dir.path().join(LEGACY_FILE_NAME),
            r#"[{"word":"LEGACY","name":"n"},{"word":"EMOJI","name":"Rex \ud83e"},{"word":"LAST","name":"\udc00"}]"#,
        )
        .unwrap();
        let (store, created) = EmbeddedStore::open_or_create(dir.path(), Seed::Empty).unwrap();
        let import = created.unwrap().imported.unwrap();
        assert_eq!(import.added, 1);
        assert_eq!(import.rejected.len(), 2, "{:?}", import.rejected);
        assert!(
            import.rejected[0] == "#2: not valid JSON (unexpected end of hex escape)",
            "{:?}",
            import.rejected
        );
        let words: Vec<_> = store.read_all().unwrap().phrases;
        assert_eq!(words[0].word, "LEGACY");
    }

    #[test]
    fn a_legacy_file_that_is_not_an_array_makes_no_store_and_stays() {
        let dir = tempfile::tempdir().unwrap();
        let legacy = dir.path().join(LEGACY_FILE_NAME);
        let cut_short = r#"[{"word":"LEGACY","name":"n"},{"word":"EMO"#;
        std::fs::write(&legacy, cut_short).unwrap();
        let Err(error) = EmbeddedStore::open_or_create(dir.path(), Seed::Samples) else {
            panic!("a store was made from a file cut short");
        };
        let message = error.to_string();
        assert!(message.contains("phrases.json"), "{message}");
        assert!(message.contains("is not a JSON array"), "{message}");
        assert_eq!(std::fs::read_to_string(&legacy).unwrap(), cut_short);
        assert!(!dir.path().join(FILE_NAME).exists());
        assert!(!dir.path().join(LEGACY_IMPORTED_NAME).exists());
        // Mended, it is imported.
        std::fs::write(&legacy, r#"[{"word":"LEGACY","name":"n"}]"#).unwrap();
        let (_, created) = EmbeddedStore::open_or_create(dir.path(), Seed::Samples).unwrap();
        assert_eq!(created.unwrap().imported.unwrap().added, 1);
    }
}
