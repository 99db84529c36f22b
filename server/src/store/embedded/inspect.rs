//! What is at the store's path, checked before any connection opens it read-write.
//!
//! SQLite opens whatever it is given: a 0-byte file becomes an empty database (and its
//! `-wal`, which may hold every commit, is checkpointed into it and deleted), another
//! program's database takes our schema. So every way in, the host's and the CLI's, reads
//! the file's header first with plain file reads, then asks a read-only connection that
//! never checkpoints whose database it is. A refusal names the path, what is wrong and
//! what to do; nothing is created, checkpointed, truncated or deleted.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Read as _;
use std::os::unix::fs::{FileExt as _, FileTypeExt as _, MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use rusqlite::{Connection, OpenFlags};

use super::SCHEMA_VERSION;

/// Marks a database as a phrase store (`PRAGMA application_id`, "LWrd").
pub const APPLICATION_ID: i64 = 0x4c57_7264;

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";
const WAL_MAGIC: [u32; 2] = [0x377f_0682, 0x377f_0683];

/// What is at the store's path.
#[derive(Debug, PartialEq, Eq)]
pub enum Found {
    /// No store and no trace of one: a new one may be created here.
    Nothing,
    /// A phrase store of this version.
    Store,
}

/// Why the file at the store's path cannot be used, and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {problem}. Nothing was changed. {advice}")]
pub struct Refusal {
    pub path: String,
    /// What is wrong, in a few words an operator can check.
    pub problem: String,
    /// What to do.
    pub advice: String,
}

impl Refusal {
    /// The path and the problem, without the advice: one line for a host's log.
    pub fn summary(&self) -> String {
        format!("{}: {}", self.path, self.problem)
    }
}

const RESTORE: &str = "Restore a backup with `lastwords phrases restore FILE`, or move the file aside and run `lastwords phrases init` for an empty store";

/// Checks the store at `path` (and its `-wal` and `-shm`) without changing anything.
pub fn inspect(path: &Path) -> Result<Found, Refusal> {
    let found = look(path)?;
    if found == Found::Store {
        schema(path).map_err(|(problem, advice)| Refusal {
            path: path.display().to_string(),
            problem,
            advice: advice.to_owned(),
        })?;
        if let Some(wal) = foreign_log(path) {
            return Err(Refusal {
                path: path.display().to_string(),
                problem: replaced_beside_log(&wal),
                advice: MOVE_LOG_ASIDE.to_owned(),
            });
        }
    }
    Ok(found)
}

/// What a host that saw the store replaced beside the previous file's log says, and what
/// every process refuses with while that log is there.
pub fn replaced_beside_log(wal: &Path) -> String {
    format!(
        "was replaced by another file while the previous file's write-ahead log {} is still beside it",
        wal.display()
    )
}

pub const MOVE_LOG_ASIDE: &str =
    "Move the -wal and -shm files aside (they hold the previous file's latest changes)";

/// Beside the store: which write-ahead log a host found beside a database that was
/// replaced under it (its device, inode and salts). Only the host knows the log is the
/// previous file's; a process opening the store afresh (the CLI, a host starting) would
/// have SQLite read that log into the new file, damaging it, so it reads this instead.
const FOREIGN_LOG_SUFFIX: &str = "-wal.foreign";

/// Writes the marker for the log now beside `path`, once, and whole: renamed into place,
/// as a process opening the store reads it while the host looks again and again.
pub fn mark_foreign_log(path: &Path) -> std::io::Result<()> {
    let wal = sidecar(path, "-wal");
    let Some(mark) = log_mark(&wal) else {
        return Ok(());
    };
    let marker = sidecar(path, FOREIGN_LOG_SUFFIX);
    if std::fs::read_to_string(&marker).is_ok_and(|marked| marked.trim() == mark) {
        return Ok(());
    }
    let temporary = sidecar(
        path,
        &format!("{FOREIGN_LOG_SUFFIX}.{}", std::process::id()),
    );
    std::fs::write(&temporary, format!("{mark}\n"))?;
    std::fs::rename(&temporary, &marker)
}

/// Removes the marker, once the store beside it is readable again.
pub fn clear_foreign_log(path: &Path) {
    let _ = std::fs::remove_file(sidecar(path, FOREIGN_LOG_SUFFIX));
}

/// The log beside `path`, if a host marked it as the previous file's and it still is:
/// the same file (a new log may take a freed inode number, so its salts too).
fn foreign_log(path: &Path) -> Option<PathBuf> {
    let marked = std::fs::read_to_string(sidecar(path, FOREIGN_LOG_SUFFIX)).ok()?;
    let wal = sidecar(path, "-wal");
    (log_mark(&wal)? == marked.trim()).then_some(wal)
}

/// A log's device, inode and header salts, as the marker holds them.
fn log_mark(wal: &Path) -> Option<String> {
    let file = File::open(wal).ok()?;
    let meta = file.metadata().ok()?;
    let mut salts = [0u8; 8];
    file.read_exact_at(&mut salts, 16).ok()?;
    let salts: String = salts.iter().map(|byte| format!("{byte:02x}")).collect();
    Some(format!("{} {} {salts}", meta.dev(), meta.ino()))
}

/// The checks of [`inspect`] that need no SQLite connection (file type, permissions,
/// header, size, the log's page size): cheap enough for every change a host follows.
pub fn look(path: &Path) -> Result<Found, Refusal> {
    let refuse = |problem: String, advice: &str| Refusal {
        path: path.display().to_string(),
        problem,
        advice: advice.to_owned(),
    };
    let wal = sidecar(path, "-wal");
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(refuse(
                    "is a symbolic link to nothing".into(),
                    "Point it at the store, or remove the link and restore a backup with `lastwords phrases restore FILE`",
                ));
            }
            return match std::fs::metadata(&wal) {
                Ok(log) if log.len() > 0 => Err(refuse(
                    format!(
                        "is missing, but its write-ahead log {} ({} bytes) is there: the database file was removed or renamed while it held changes",
                        wal.display(),
                        log.len()
                    ),
                    "Put the database file back beside its log, or restore a backup with `lastwords phrases restore FILE` (the log is then kept aside)",
                )),
                _ => Ok(Found::Nothing),
            };
        }
        Err(error) => return Err(refuse(describe_io(path, &error), fix_for(&error))),
    };
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(refuse(
            "is a directory, not a database file".into(),
            "Move it aside; `lastwords phrases init` creates a store in a folder that has none",
        ));
    }
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "a named pipe"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "a device"
        };
        return Err(refuse(
            format!("is {what}, not a database file"),
            "Move it aside and restore a backup with `lastwords phrases restore FILE`",
        ));
    }
    writable(path).map_err(|error| refuse(describe_io(path, &error), fix_for(&error)))?;
    let folder = path.parent().unwrap_or(Path::new("."));
    folder_writable(folder).map_err(|problem| {
        let read_only = permitted(folder, rustix::fs::Access::WRITE_OK)
            .is_err_and(|error| error.kind() == std::io::ErrorKind::ReadOnlyFilesystem);
        refuse(problem, if read_only { READ_ONLY } else { PERMISSIONS })
    })?;
    let page_size = header(path, meta.len(), &wal).map_err(|problem| refuse(problem, RESTORE))?;
    for (suffix, name) in [("-wal", "write-ahead log"), ("-shm", "shared-memory index")] {
        let side = sidecar(path, suffix);
        match std::fs::metadata(&side) {
            Ok(meta) if !meta.is_file() => {
                return Err(refuse(
                    format!("its {name} {} is not a regular file", side.display()),
                    "Move that aside",
                ));
            }
            Ok(_) => match permitted(
                &side,
                rustix::fs::Access::READ_OK | rustix::fs::Access::WRITE_OK,
            ) {
                Ok(()) => {}
                // SQLite removes both when its last connection closes, which another
                // process may have done since the look above.
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(refuse(describe_io(&side, &error), fix_for(&error))),
            },
            Err(_) => {}
        }
    }
    wal_header(&wal, page_size).map_err(|problem| {
        refuse(
            problem,
            "Move the -wal file aside if the database alone is what you restored, or restore a backup with `lastwords phrases restore FILE`",
        )
    })?;
    Ok(Found::Store)
}

const PERMISSIONS: &str = "Give the user that runs lastwords read and write access to the data folder and its files (chown or chmod), or run lastwords as their owner";
const READ_ONLY: &str = "Mount the data folder's file system read-write (a volume mounted without :ro), or point --data-dir at one that is; to read a copy, `lastwords phrases restore FILE` it into a folder that is writable";

/// What mends a store that could not be opened for `error`.
fn fix_for(error: &std::io::Error) -> &'static str {
    match error.kind() {
        std::io::ErrorKind::ReadOnlyFilesystem => READ_ONLY,
        _ => PERMISSIONS,
    }
}

/// `path` followed by `suffix`, as SQLite names the log and the index.
pub fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Asks the kernel rather than opening for writing: closing a file opened for writing
/// is the very event a following host wakes on, so it would wake itself.
fn writable(path: &Path) -> std::io::Result<()> {
    permitted(
        path,
        rustix::fs::Access::READ_OK | rustix::fs::Access::WRITE_OK,
    )
}

/// Whether SQLite can create files in `folder`: the database (a new store), its log and
/// its index.
pub(super) fn folder_writable(folder: &Path) -> Result<(), String> {
    permitted(folder, rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK).map_err(
        |error| {
            format!(
                "is in the folder {}, where this process (uid {}) cannot create the database, its log and index: {error}",
                folder.display(),
                rustix::process::geteuid().as_raw(),
            )
        },
    )
}

/// `access(2)` for the effective user, as opening would be judged.
fn permitted(path: &Path, access: rustix::fs::Access) -> std::io::Result<()> {
    rustix::fs::accessat(rustix::fs::CWD, path, access, rustix::fs::AtFlags::EACCESS)
        .map_err(std::io::Error::from)
}

/// An I/O error on `path` in words: who may not do what, or what the system said.
fn describe_io(path: &Path, error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::PermissionDenied => {
            let owner = std::fs::metadata(path)
                .map(|m| {
                    format!(
                        " (owned by uid {}, mode {:o})",
                        m.uid(),
                        m.permissions().mode() & 0o7777
                    )
                })
                .unwrap_or_default();
            format!(
                "permission denied: this process (uid {}) cannot read and write {}{owner}",
                rustix::process::geteuid().as_raw(),
                path.display()
            )
        }
        std::io::ErrorKind::ReadOnlyFilesystem => {
            format!("{} is on a read-only file system", path.display())
        }
        _ => format!("cannot be opened: {error}"),
    }
}

/// Descriptors of the database files this process's connections have open. Closing any
/// descriptor of a file drops every POSIX lock the process holds on it, SQLite's shared
/// lock included: another program's connection (the sqlite3 shell) then takes itself for
/// the file's last user when it closes, checkpoints and deletes the log under ours, and
/// the host sees no commit again. So the header of a file a connection of ours has open
/// is read through a descriptor kept until the last such connection has closed.
static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

struct Held {
    identity: (u64, u64),
    /// Where it was when held: a file replaced at that path leaves ours mapping the index.
    path: PathBuf,
    /// The connections that have the file open.
    holds: usize,
    /// The descriptor the header is read through, and any opened here for the same file
    /// in a race with its replacement (closing one would drop the locks too).
    files: Vec<File>,
    /// The log's index (`-shm`), opened when first read and kept as long: SQLite's
    /// connection holds locks on it too, which closing a descriptor would drop (and the
    /// next process to open the store would truncate the index under our mapping).
    index: Option<File>,
}

/// Keeps a descriptor of the file at `path` until dropped: made before a connection opens
/// the file, dropped after the connection closes.
pub struct Hold {
    identity: Option<(u64, u64)>,
}

impl Hold {
    pub fn new(path: &Path) -> Self {
        let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        // A file already held needs no descriptor more: one per file, however often its
        // store is reopened.
        if let Some(h) = super::file_identity(path)
            .and_then(|at_path| held.iter_mut().find(|h| h.identity == at_path))
        {
            h.holds += 1;
            return Self {
                identity: Some(h.identity),
            };
        }
        let Ok(file) = open_for_reading(path) else {
            return Self { identity: None };
        };
        let Some(identity) = identity(&file) else {
            return Self { identity: None };
        };
        match held.iter_mut().find(|h| h.identity == identity) {
            // Replaced between the two looks by a held file: this descriptor stays too.
            Some(h) => {
                h.holds += 1;
                h.files.push(file);
            }
            None => held.push(Held {
                identity,
                path: path.to_owned(),
                holds: 1,
                files: vec![file],
                index: None,
            }),
        }
        Self {
            identity: Some(identity),
        }
    }

    /// The (device, inode) of the file held.
    pub fn identity(&self) -> Option<(u64, u64)> {
        self.identity
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = held.iter().position(|h| Some(h.identity) == self.identity) {
            held[at].holds -= 1;
            if held[at].holds == 0 {
                held.swap_remove(at);
            }
        }
    }
}

/// Opens `path` to read, without waiting: a named pipe put in the store's place between
/// a look at its type and this open would otherwise hold every look (and every
/// connection's [`Hold`]) until someone wrote to it.
fn open_for_reading(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt as _;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
}

fn identity(file: &File) -> Option<(u64, u64)> {
    file.metadata().ok().map(|meta| (meta.dev(), meta.ino()))
}

/// Fills `head` from the start of the file at `path`, through a held descriptor when a
/// connection of this process has the file open; a descriptor opened here is closed only
/// when none has (the lock keeps one from opening it meanwhile).
fn read_head(path: &Path, head: &mut [u8]) -> Result<(), String> {
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    let at_path = super::file_identity(path);
    if let Some(h) = held.iter().find(|h| Some(h.identity) == at_path) {
        return h.files[0]
            .read_exact_at(head, 0)
            .map_err(|error| format!("cannot be read: {error}"));
    }
    let file = open_for_reading(path).map_err(|error| describe_io(path, &error))?;
    let read = file
        .read_exact_at(head, 0)
        .map_err(|error| format!("cannot be read: {error}"));
    // Replaced between the two looks by a file a connection holds: keep this one too.
    if let Some(h) = identity(&file).and_then(|id| held.iter_mut().find(|h| h.identity == id)) {
        h.files.push(file);
    }
    read
}

/// Reads the database header; returns the page size. Catches what a raw look can: an
/// empty or short file, another format, a file cut short.
fn header(path: &Path, len: u64, wal: &Path) -> Result<u32, String> {
    // Writers that keep changing the file under every look are SQLite's, on a file that
    // is whole: past a few looks it is taken as sound.
    header_looked(path, len, wal, 4)
}

fn header_looked(path: &Path, len: u64, wal: &Path, retries: u32) -> Result<u32, String> {
    if len == 0 {
        let log = std::fs::metadata(wal).map(|m| m.len()).unwrap_or(0);
        return Err(if log > 0 {
            format!(
                "is empty (0 bytes), but its write-ahead log {} holds {log} bytes: the file was truncated and the latest changes are only in that log (keep it)",
                wal.display()
            )
        } else {
            "is empty (0 bytes), not a phrase store".into()
        });
    }
    let mut head = [0u8; 100];
    if len < head.len() as u64 {
        return Err(format!(
            "is too short to be a database ({len} bytes): it is damaged or not a phrase store"
        ));
    }
    read_head(path, &mut head)?;
    if &head[..16] != SQLITE_MAGIC {
        return Err(
            "is not an SQLite database (its first bytes are not SQLite's header): it was overwritten or belongs to another program".into(),
        );
    }
    let page_size = match u16::from_be_bytes([head[16], head[17]]) {
        1 => 65_536,
        size => u32::from(size),
    };
    if !(512..=65_536).contains(&page_size) || !page_size.is_power_of_two() {
        return Err(format!(
            "is damaged: its header gives a page size of {page_size} bytes"
        ));
    }
    if !len.is_multiple_of(u64::from(page_size)) {
        return Err(format!(
            "is damaged: its size ({len} bytes) is not a whole number of its {page_size}-byte pages, so it was cut short or written over"
        ));
    }
    let be32 = |at: usize| u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    // The page count in the header is valid when the version-valid-for number matches
    // the change counter (SQLite's file format, section 1.3.7).
    let counted = be32(28);
    let pages = len / u64::from(page_size);
    if be32(92) == be32(24) && pages < u64::from(counted) {
        // A checkpoint that a reader held back may have copied page 1, with the new count,
        // and not yet the last pages, which the log still holds.
        let logged = logged_pages(path, wal, &sidecar(path, "-shm"), page_size);
        let missing = (pages + 1..=u64::from(counted))
            .filter(|page| u32::try_from(*page).is_ok_and(|page| !logged.contains(&page)))
            .count();
        if missing > 0 {
            // The size, the header and the log were read one after the other, and another
            // process's checkpoint may have gone on between them (the header's new count
            // read before the pages it counts were written, the log read after it was
            // started afresh): a file cut short looks the same when looked at again.
            if let Some(len) = moved_on(path, len, &head) {
                return match retries.checked_sub(1) {
                    Some(retries) => header_looked(path, len, wal, retries),
                    None => Ok(page_size),
                };
            }
            return Err(format!(
                "is damaged: it holds {pages} of the {counted} pages its header counts, and its write-ahead log holds {} of the others, so it was cut short",
                u64::from(counted) - pages - missing as u64
            ));
        }
    }
    Ok(page_size)
}

/// The file's size now, if it or its header changed since `len` and `head` were read.
fn moved_on(path: &Path, len: u64, head: &[u8; 100]) -> Option<u64> {
    let now = std::fs::metadata(path).ok()?.len();
    let mut again = [0u8; 100];
    let changed = now != len || read_head(path, &mut again).is_err() || again != *head;
    changed.then_some(now)
}

/// The pages the write-ahead log's committed frames hold that are not yet copied into the
/// database, as SQLite reads the log: from the start, frames of the log's own generation
/// (its salts) whose running checksum holds, up to the last one that ends a transaction,
/// past the frames its index says a checkpoint has copied (a reader takes those from the
/// database file, so a file cut short has lost them). None when there is no log of
/// `page_size`, or an index that is not this log's.
fn logged_pages(database: &Path, wal: &Path, shm: &Path, page_size: u32) -> BTreeSet<u32> {
    let mut logged = BTreeSet::new();
    let Ok(file) = File::open(wal) else {
        return logged;
    };
    let mut log = std::io::BufReader::new(file);
    let mut head = [0u8; 32];
    if log.read_exact(&mut head).is_err() {
        return logged;
    }
    let be32 = |bytes: &[u8], at: usize| {
        u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
    };
    let magic = be32(&head, 0);
    if !WAL_MAGIC.contains(&magic) || be32(&head, 8) != page_size {
        return logged;
    }
    // The checksum reads the words in the byte order the magic number's low bit gives.
    let big_endian = magic & 1 == 1;
    let sum = |bytes: &[u8], (mut s0, mut s1): (u32, u32)| {
        for pair in bytes.chunks_exact(8) {
            let word = |at: usize| {
                let four = [pair[at], pair[at + 1], pair[at + 2], pair[at + 3]];
                if big_endian {
                    u32::from_be_bytes(four)
                } else {
                    u32::from_le_bytes(four)
                }
            };
            s0 = s0.wrapping_add(word(0)).wrapping_add(s1);
            s1 = s1.wrapping_add(word(4)).wrapping_add(s0);
        }
        (s0, s1)
    };
    let mut running = sum(&head[..24], (0, 0));
    if running != (be32(&head, 24), be32(&head, 28)) {
        return logged;
    }
    let Some(copied) = checkpointed(database, shm, &head[16..24]) else {
        return logged;
    };
    let mut frame = vec![0u8; 24 + page_size as usize];
    let mut pending = Vec::new();
    let mut at: u32 = 0;
    while log.read_exact(&mut frame).is_ok() {
        if frame[8..16] != head[16..24] {
            break;
        }
        running = sum(&frame[24..], sum(&frame[..8], running));
        if running != (be32(&frame, 16), be32(&frame, 20)) {
            break;
        }
        at += 1;
        if at > copied {
            pending.push(be32(&frame, 0));
        }
        if be32(&frame, 4) != 0 {
            logged.extend(pending.drain(..));
        }
    }
    logged
}

/// How many of the log's frames a checkpoint has copied into the database, from the
/// log's index (`-shm`: SQLite's `nBackfill`, in the host's byte order, after the two
/// 48-byte copies of the index header): 0 with no index (SQLite rebuilds it from the log
/// and copies nothing), None when the index is not this log's (other salts).
fn checkpointed(database: &Path, shm: &Path, salts: &[u8]) -> Option<u32> {
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    let mut index = [0u8; 100];
    let at_path = super::file_identity(database);
    if let Some(h) = held.iter_mut().find(|h| Some(h.identity) == at_path) {
        if h.index.is_none() {
            h.index = open_for_reading(shm).ok();
        }
        let Some(file) = &h.index else {
            return Some(0);
        };
        file.read_exact_at(&mut index, 0).ok()?;
    } else if held.iter().any(|h| h.path == database) {
        // A file of ours replaced at this path, whose index this may still be: not read.
        return None;
    } else {
        let Ok(file) = open_for_reading(shm) else {
            return Some(0);
        };
        file.read_exact_at(&mut index, 0).ok()?;
    }
    (index[32..40] == *salts && index[80..88] == *salts)
        .then(|| u32::from_ne_bytes([index[96], index[97], index[98], index[99]]))
}

/// A log that is not this database's (another page size) would be replayed into it.
fn wal_header(wal: &Path, page_size: u32) -> Result<(), String> {
    let Ok(mut file) = File::open(wal) else {
        return Ok(());
    };
    let mut head = [0u8; 32];
    if file.read_exact(&mut head).is_err() {
        // Empty or cut short: SQLite ignores a log without a whole header.
        return Ok(());
    }
    let be32 = |at: usize| u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
    if WAL_MAGIC.contains(&be32(0)) && be32(8) != page_size {
        return Err(format!(
            "its write-ahead log {} is for pages of {} bytes, but the database's are {page_size}: the log belongs to another database",
            wal.display(),
            be32(8)
        ));
    }
    Ok(())
}

/// A connection that writes nothing: read-only, no checkpoint on close, and, when the
/// store has no log beside it, immutable, so SQLite does not make an empty `-wal` and
/// `-shm` for it (owned by whoever ran the look, such as root in a container whose host
/// runs as another user). Without a log the file holds every commit.
pub fn read_only(path: &Path) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let logged = ["-wal", "-shm"].iter().any(|s| sidecar(path, s).exists());
    let connection = if logged {
        Connection::open_with_flags(path, flags)?
    } else {
        let mut uri = String::from("file:");
        for c in path.to_string_lossy().chars() {
            match c {
                '%' | '?' | '#' => uri.push_str(&format!("%{:02X}", c as u32)),
                c => uri.push(c),
            }
        }
        uri.push_str("?immutable=1");
        Connection::open_with_flags(uri, flags | OpenFlags::SQLITE_OPEN_URI)?
    };
    connection.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    connection.busy_timeout(super::BUSY_TIMEOUT)?;
    Ok(connection)
}

/// Asks SQLite, read-only and without a checkpoint on close, whose database this is.
fn schema(path: &Path) -> Result<(), (String, &'static str)> {
    let damaged = |error: rusqlite::Error| match super::no_room(path, &error) {
        // A store with a log beside it is opened with a shared-memory file, which a full
        // disk has no room for: that says nothing of the store.
        Some(free) => (
            super::full_disk(free, &error),
            "Free some space on that disk and try again",
        ),
        None => (format!("is damaged: SQLite says \"{error}\""), RESTORE),
    };
    let connection = read_only(path).map_err(damaged)?;
    // SQLite reads nothing until the first query, and then deletes the log of a database
    // that has become empty: look once more, as close to that as can be.
    if let Err(refusal) = look(path) {
        return Err((refusal.problem, RESTORE));
    }
    let pragma = |name: &str| connection.pragma_query_value(None, name, |row| row.get::<_, i64>(0));
    let application_id = pragma("application_id").map_err(damaged)?;
    let version = pragma("user_version").map_err(damaged)?;
    let tables: Vec<String> = connection
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
        .and_then(|mut statement| {
            statement
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<_>>()
        })
        .map_err(damaged)?;
    let ours = ["phrases", "removals", "sequence"]
        .iter()
        .all(|table| tables.iter().any(|t| t == table));
    const MOVE_ASIDE: &str = "Point --data-dir at the folder of the phrase store, or move this file aside and restore a backup with `lastwords phrases restore FILE`";
    match (application_id, version) {
        (APPLICATION_ID, SCHEMA_VERSION) if ours => Ok(()),
        // Stores made before the application id was set: known by their tables.
        (0, SCHEMA_VERSION) if ours => Ok(()),
        (APPLICATION_ID | 0, newer) if ours && newer > SCHEMA_VERSION => Err((
            format!(
                "is a phrase store of a newer version (schema {newer}; this lastwords reads {SCHEMA_VERSION})"
            ),
            "Run the lastwords that made it, or restore a backup this version made",
        )),
        (APPLICATION_ID, _) => Err((
            format!("is a phrase store with its tables missing or damaged (schema {version})"),
            RESTORE,
        )),
        (0, 0) if tables.is_empty() => Err((
            "is an empty SQLite database, not a phrase store".into(),
            "Move it aside; `lastwords phrases init` creates a store in a folder that has none",
        )),
        (id, version) => Err((
            format!(
                "is another program's SQLite database (application id {id:#x}, schema {version}, tables: {}), not a phrase store",
                if tables.is_empty() {
                    "none".to_owned()
                } else {
                    tables.join(", ")
                }
            ),
            MOVE_ASIDE,
        )),
    }
}
