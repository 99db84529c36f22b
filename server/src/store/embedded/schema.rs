//! The database's tables and triggers, how a row reads as a phrase, and what a new store
//! starts with: the sample phrases, or the phrases of a `phrases.json` left by an
//! earlier version.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Deserialize;

use super::inspect::APPLICATION_ID;
use super::{LEGACY_FILE_NAME, LEGACY_IMPORTED_NAME, SCHEMA_VERSION, Seed};
use crate::feed::Phrase;
use crate::feed::list::{FIRST_TIME_US, MAX_CREATED};
use crate::store::{NewPhrase, entry_error, json_entries, new_document_id};
use crate::text::ContentError;

pub(super) const SCHEMA: &str = "
CREATE TABLE phrases (
    id      TEXT PRIMARY KEY NOT NULL,
    word    TEXT NOT NULL,
    name    TEXT NOT NULL,
    created INTEGER NOT NULL DEFAULT 0,
    changed INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX phrases_word ON phrases (word);
CREATE INDEX phrases_changed ON phrases (changed);
CREATE INDEX phrases_created ON phrases (created);
CREATE TABLE removals (
    id      TEXT PRIMARY KEY NOT NULL,
    changed INTEGER NOT NULL
);
CREATE INDEX removals_changed ON removals (changed);
CREATE TABLE sequence (
    only INTEGER PRIMARY KEY CHECK (only = 1),
    last INTEGER NOT NULL
);
INSERT INTO sequence (only, last) VALUES (1, 0);
CREATE TRIGGER phrase_removed AFTER DELETE ON phrases BEGIN
    UPDATE sequence SET last = last + 1;
    INSERT OR REPLACE INTO removals (id, changed) VALUES (OLD.id, (SELECT last FROM sequence));
END;
";

/// Numbers each new phrase: `changed` from the sequence, and `created` the time it was
/// minted in Unix microseconds (what Firestore's create time gives), one past the newest
/// when the clock says less, so that the order of minting is kept through a clock set
/// back and within a millisecond (a row past the year 3000, written by hand in other
/// units, is not followed). A row given its `created` keeps it: a restore, and this
/// version's own mints, which follow rows only as far as a browser reads (`mint_times`). In the
/// database, not in our code, so every program that inserts a row (the `sqlite3` shell,
/// an older lastwords) numbers it; the text is an earlier version's, word for word, as
/// each version rewrites a `phrase_added` that is not its own when it opens the store.
pub(super) const PHRASE_ADDED: &str = "
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

/// Marks a row changed when its id, phrase, name or time is written by hand (the
/// `sqlite3` shell: a time put right), so a running host follows it. Not when the
/// writer numbers the row itself (`phrase_added`, the timing of an old store's rows):
/// once for each row of a 100,000-row restore would be 100,000 more steps.
pub(super) const PHRASE_CHANGED: &str = "
CREATE TRIGGER phrase_changed AFTER UPDATE OF id, word, name, created ON phrases
WHEN NEW.changed = OLD.changed BEGIN
    UPDATE sequence SET last = last + 1;
    UPDATE phrases SET changed = (SELECT last FROM sequence) WHERE id = NEW.id;
    INSERT OR REPLACE INTO removals (id, changed)
        SELECT OLD.id, (SELECT last FROM sequence) WHERE OLD.id <> NEW.id;
END;
";

/// The times of `count` phrases minted now, in order: now, or one past the newest when
/// the clock says less (a clock set back, or one that was set ahead for an earlier mint:
/// the order of minting is kept either way, as the trigger keeps it). Not past
/// [`MAX_CREATED`], which no browser reads exactly: rows beyond it are not followed, and
/// where the newest leaves no room below it the phrases are dated now, or every one
/// after would read as the same time.
pub(super) fn mint_times(
    connection: &Connection,
    count: usize,
) -> rusqlite::Result<impl Iterator<Item = i64>> {
    let now = crate::feed::now_us() as i64;
    let newest_up_to = |bound: i64| -> rusqlite::Result<i64> {
        connection.query_row(
            "SELECT COALESCE(CAST(MAX(created) AS INTEGER), 0) FROM phrases WHERE created <= ?1",
            [bound],
            |row| row.get(0),
        )
    };
    let count = count as i64;
    let mut newest = newest_up_to(MAX_CREATED as i64)?;
    if newest.saturating_add(count) >= MAX_CREATED as i64 {
        // No room at the top: after the newest of those dated up to now, as if the rows
        // up there were not.
        newest = newest_up_to(now.saturating_add(count))?;
    }
    let first = now.max(newest.saturating_add(1));
    Ok((0..count).map(move |step| first.saturating_add(step)))
}

/// Records the removal of a row that another row's `INSERT OR REPLACE`, or an `UPDATE OR
/// REPLACE` of its word, takes the word from: SQLite deletes such a row without running
/// delete triggers (unless the writing connection turned on recursive triggers), so the
/// sqlite3 shell's REPLACE would leave it on every following host. Before the write, as
/// by then the row is gone; numbered with the change the write's own trigger is about to
/// make, so an insert or update that conflicts and is ignored instead (`ON CONFLICT DO
/// NOTHING`, `OR IGNORE`) leaves a removal of a row still there, which readers skip.
pub(super) const PHRASE_REPLACING: &str = "
CREATE TRIGGER phrase_replacing BEFORE INSERT ON phrases
WHEN EXISTS (SELECT 1 FROM phrases WHERE word = NEW.word AND id <> NEW.id) BEGIN
    INSERT OR REPLACE INTO removals (id, changed)
        SELECT id, (SELECT last + 1 FROM sequence) FROM phrases
        WHERE word = NEW.word AND id <> NEW.id;
END;
CREATE TRIGGER phrase_replacing_word BEFORE UPDATE OF word ON phrases
WHEN EXISTS (SELECT 1 FROM phrases WHERE word = NEW.word AND id <> OLD.id AND id <> NEW.id) BEGIN
    INSERT OR REPLACE INTO removals (id, changed)
        SELECT id, (SELECT last + 1 FROM sequence) FROM phrases
        WHERE word = NEW.word AND id <> OLD.id AND id <> NEW.id;
END;
";

/// A handful of phrases so a fresh clone has something to show.
pub(super) const SAMPLES: &[(&str, &str, &str)] = &[
    ("0Fq8dkZ2sVt1mYw3Lr7a", "SEE YOU LATER", "Rex"),
    ("3bXn9QeP4hUc2JkT6wYd", "WAS THAT A COMET?", "Trixie"),
    ("7mRz1VaK8sLq5DfG2nHe", "I SHOULD HAVE FLOWN", "Ptera"),
    ("AcW4tY7uJ2pN9xE5kB3f", "TOO BIG TO FAIL", "Bronto"),
    ("Kp2sD6gH1jL8zX4cV9bg", "MORE TREES PLEASE", "Stego"),
    ("Qe5rT9yU3iO7pA1sD4fh", "GOOD LUCK!", "Anky"),
];

/// What creating a store did, for the log and for `phrases init`.
#[derive(Debug, Default)]
pub struct Created {
    pub samples: usize,
    pub imported: Option<LegacyImport>,
}

/// The outcome of importing a legacy `phrases.json`.
#[derive(Debug, Default)]
pub struct LegacyImport {
    pub added: usize,
    /// Entries not imported, with why (they stay in the renamed file).
    pub rejected: Vec<String>,
}

impl Created {
    pub(super) fn log(&self, path: &Path) {
        match &self.imported {
            Some(import) => {
                tracing::info!(path = %path.display(), added = import.added, rejected = import.rejected.len(), renamed_to = LEGACY_IMPORTED_NAME, "created the embedded store from {LEGACY_FILE_NAME}");
                for reason in import.rejected.iter().take(20) {
                    tracing::warn!("not imported: {reason}");
                }
            }
            None => {
                tracing::info!(path = %path.display(), samples = self.samples, "created the embedded store")
            }
        }
    }
}

/// Creates the tables (and their first rows) of a new database in one transaction.
pub(super) fn create_schema(
    connection: &mut Connection,
    legacy: Option<Legacy>,
    seed: Seed,
) -> rusqlite::Result<Created> {
    let transaction =
        connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    transaction.execute_batch(SCHEMA)?;
    transaction.execute_batch(PHRASE_ADDED)?;
    transaction.execute_batch(PHRASE_CHANGED)?;
    transaction.execute_batch(PHRASE_REPLACING)?;
    let mut created = Created::default();
    {
        let mut insert = transaction.prepare(
            "INSERT INTO phrases (id, word, name) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
        )?;
        if let Some(legacy) = legacy {
            let mut import = LegacyImport {
                added: 0,
                rejected: legacy.rejected,
            };
            for entry in legacy.phrases {
                if insert.execute(params![entry.id, entry.word, entry.name])? == 1 {
                    import.added += 1;
                } else {
                    import.rejected.push(format!(
                        "\"{}\": the id or the phrase is already in the store",
                        entry.word
                    ));
                }
            }
            created.imported = Some(import);
        } else if seed == Seed::Samples {
            for (id, word, name) in SAMPLES {
                created.samples += insert.execute(params![id, word, name])?;
            }
        }
    }
    transaction.pragma_update(None, "application_id", APPLICATION_ID)?;
    transaction.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    transaction.commit()?;
    Ok(created)
}

/// Brings a store an earlier version made up to what this one writes: the triggers that
/// number new phrases and follow hand edits, and times for the phrases it gave an order
/// only. In one transaction, and readable by that earlier version still (its schema
/// number stays: nothing it reads changes shape), so going back to it after an upgrade
/// works. `None` when there was nothing to do; else how many phrases were given times.
pub(super) fn upgrade(connection: &mut Connection) -> rusqlite::Result<Option<usize>> {
    let current = |connection: &Connection| -> rusqlite::Result<bool> {
        let trigger = |name: &str| -> rusqlite::Result<Option<String>> {
            connection
                .query_row(
                    "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?1",
                    [name],
                    |row| row.get(0),
                )
                .optional()
        };
        let wanted = |sql: &str| Some(sql.trim().trim_end_matches(';').to_owned());
        Ok(trigger("phrase_added")? == wanted(PHRASE_ADDED)
            && trigger("phrase_changed")? == wanted(PHRASE_CHANGED)
            && !any_untimed(connection)?)
    };
    let mut timed = 0;
    let changed = once(connection, current, |transaction| {
        transaction.execute_batch(
            "DROP TRIGGER IF EXISTS phrase_added; DROP TRIGGER IF EXISTS phrase_changed;",
        )?;
        transaction.execute_batch(PHRASE_ADDED)?;
        transaction.execute_batch(PHRASE_CHANGED)?;
        timed = time_untimed(transaction)?;
        Ok(())
    })?;
    Ok(changed.then_some(timed))
}

/// Runs `change` in one transaction unless `current` says the store has it, asked again
/// inside the transaction (another process may have made it meanwhile). False when it
/// was there already.
fn once(
    connection: &mut Connection,
    current: impl Fn(&Connection) -> rusqlite::Result<bool>,
    change: impl FnOnce(&Connection) -> rusqlite::Result<()>,
) -> rusqlite::Result<bool> {
    if current(connection)? {
        return Ok(false);
    }
    let transaction =
        connection.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    if current(&transaction)? {
        return Ok(false);
    }
    change(&transaction)?;
    transaction.commit()?;
    Ok(true)
}

/// Adds [`PHRASE_REPLACING`] to a store made before it, in a transaction of its own (an
/// earlier version reads the store as before). False when it was there already.
pub(super) fn record_replaced(connection: &mut Connection) -> rusqlite::Result<bool> {
    let current = |connection: &Connection| -> rusqlite::Result<bool> {
        let found: Vec<String> = connection
            .prepare(
                "SELECT sql FROM sqlite_schema WHERE type = 'trigger'
                 AND name IN ('phrase_replacing', 'phrase_replacing_word') ORDER BY name",
            )?
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        let wanted: Vec<&str> = PHRASE_REPLACING
            .split_inclusive("END;")
            .map(|trigger| trigger.trim().trim_end_matches(';'))
            .filter(|trigger| !trigger.is_empty())
            .collect();
        Ok(found == wanted)
    };
    once(connection, current, |transaction| {
        transaction.execute_batch(
            "DROP TRIGGER IF EXISTS phrase_replacing; DROP TRIGGER IF EXISTS phrase_replacing_word;",
        )?;
        transaction.execute_batch(PHRASE_REPLACING)
    })
}

/// Gives the phrases that have an order and no time (a store made before times were
/// kept, a backup of one restored) times just before the oldest timed phrase or now,
/// one microsecond apart, in their order: a page's list stays as it was, and its links,
/// which name a phrase by id, still lead where they did. Marked changed, so a host
/// following the store takes the new times.
pub(super) fn time_untimed(connection: &Connection) -> rusqlite::Result<usize> {
    if !any_untimed(connection)? {
        return Ok(0);
    }
    connection.execute("UPDATE sequence SET last = last + 1", [])?;
    connection.execute(
        "WITH before (at) AS (
             SELECT MIN(at) FROM (
                 SELECT CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER) * 1000 AS at
                 UNION ALL SELECT MIN(created) FROM phrases WHERE created >= ?1)),
         ranked (id, rank) AS (
             SELECT id, ROW_NUMBER() OVER (ORDER BY created DESC, id ASC)
             FROM phrases WHERE created < ?1)
         UPDATE phrases
         SET created = (SELECT at FROM before) - ranked.rank,
             changed = (SELECT last FROM sequence)
         FROM ranked WHERE phrases.id = ranked.id",
        [FIRST_TIME_US as i64],
    )
}

/// Whether a phrase has an order and no time, and there is room for their times below
/// the oldest timed phrase (a row dated by hand at the start of the range leaves none:
/// they stay as they are, rather than be timed again at every open). Index lookups.
fn any_untimed(connection: &Connection) -> rusqlite::Result<bool> {
    connection.query_row(
        "SELECT EXISTS (SELECT 1 FROM phrases WHERE created < ?1)
             AND MIN(CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER) * 1000,
                     COALESCE((SELECT MIN(created) FROM phrases WHERE created >= ?1), 9e18))
                 - (SELECT COUNT(*) FROM phrases WHERE created < ?1) >= ?1",
        [FIRST_TIME_US as i64],
        |row| row.get(0),
    )
}

#[derive(Deserialize)]
struct LegacyEntry {
    id: Option<serde_json::Value>,
    word: Option<serde_json::Value>,
    name: Option<serde_json::Value>,
}

/// A legacy file read: its valid entries, keeping their ids, and why each other entry
/// was not taken (they stay in the renamed file).
pub(super) struct Legacy {
    phrases: Vec<Phrase>,
    rejected: Vec<String>,
}

/// Reads a legacy file entry by entry, so one bad entry (a name an older writer cut in the
/// middle of an emoji, `"\ud83e"`) is rejected alone. A file that is not a JSON array at
/// all is an error: no store is made from it, and the file is left where it is.
pub(super) fn read_legacy(path: &Path) -> Result<Legacy, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    // A file edited by hand may start with a byte-order mark, which JSON has not.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let entries = json_entries(text)
        .map_err(|e| format!("is not a JSON array of {{id, word, name}} ({e})"))?;
    let mut legacy = Legacy {
        phrases: Vec::with_capacity(entries.len()),
        rejected: Vec::new(),
    };
    for (index, entry) in entries.into_iter().enumerate() {
        let number = index + 1;
        let entry: LegacyEntry = match serde_json::from_str(entry.get()) {
            Ok(entry) => entry,
            Err(error) => {
                let reason = entry_error(&error);
                legacy
                    .rejected
                    .push(format!("#{number}: not valid JSON ({reason})"));
                continue;
            }
        };
        let (Some(serde_json::Value::String(word)), Some(serde_json::Value::String(name))) =
            (entry.word, entry.name)
        else {
            legacy
                .rejected
                .push(format!("#{number}: word and name must be strings"));
            continue;
        };
        match NewPhrase::validated(&word, &name) {
            Ok(valid) => {
                let id = match entry.id {
                    Some(serde_json::Value::String(id)) if crate::store::is_document_id(&id) => id,
                    _ => new_document_id(),
                };
                legacy.phrases.push(Phrase {
                    id,
                    word: valid.word,
                    name: valid.name,
                    created: 0,
                    edited: 0,
                });
            }
            Err(error) => legacy.rejected.push(format!(
                "#{number} {}: {error}",
                crate::text::preview(&word)
            )),
        }
    }
    Ok(legacy)
}

/// Renames the imported legacy file out of the way without ever overwriting a file.
pub(super) fn rename_legacy(from: &Path, to: &Path) {
    let mut target = to.to_owned();
    let mut n = 1;
    while target.exists() {
        n += 1;
        target = to.with_extension(format!("imported.{n}"));
    }
    if let Err(error) = std::fs::rename(from, &target) {
        tracing::warn!(%error, from = %from.display(), "imported the legacy file but cannot rename it; it will not be imported again");
    }
}
/// A stored row as SQLite holds it. Rows written by hand may hold a blob, or bytes that
/// are not UTF-8, where the schema says text: such a row is read lossily and hidden like
/// any other broken row, rather than failing every read of the store.
pub(super) struct StoredRow {
    pub phrase: Phrase,
    not_text: Option<&'static str>,
}

pub(super) fn row_phrase(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRow> {
    let mut not_text = None;
    let mut text = |index, what| -> rusqlite::Result<String> {
        let (text, exact) = text_of(row.get_ref(index)?);
        if !exact {
            not_text.get_or_insert(what);
        }
        Ok(text)
    };
    let phrase = Phrase {
        id: text(0, "its id")?,
        word: text(1, "the phrase")?,
        name: text(2, "the name")?,
        created: created_of(row.get_ref(3)?),
        edited: 0,
    };
    Ok(StoredRow { phrase, not_text })
}

/// A row's `created` as the host orders by it. Rows written by hand may hold anything: a
/// negative one, or text, sorts as the oldest, a real number as the integer below it, and
/// one past [`MAX_CREATED`] as that.
pub(super) fn created_of(value: rusqlite::types::ValueRef<'_>) -> u64 {
    use rusqlite::types::ValueRef;
    let created = match value {
        ValueRef::Integer(created) => u64::try_from(created).unwrap_or(0),
        // `as` saturates: NaN is 0, and the infinities the ends.
        ValueRef::Real(created) => created as u64,
        _ => 0,
    };
    created.min(MAX_CREATED)
}

/// A column's text, and whether it was text as stored (not a blob, valid UTF-8).
pub(super) fn text_of(value: rusqlite::types::ValueRef<'_>) -> (String, bool) {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Text(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => (text.to_owned(), true),
            Err(_) => (String::from_utf8_lossy(bytes).into_owned(), false),
        },
        ValueRef::Blob(bytes) => (String::from_utf8_lossy(bytes).into_owned(), false),
        ValueRef::Integer(n) => (n.to_string(), false),
        ValueRef::Real(n) => (n.to_string(), false),
        ValueRef::Null => (String::new(), false),
    }
}

/// A stored row as shown, or why it cannot be: rows written by hand skip our checks,
/// and one not in normal form would dodge the UNIQUE index (`hello` beside `HELLO`).
pub(super) fn checked(row: StoredRow) -> Result<Phrase, (String, ContentError)> {
    let StoredRow { phrase, not_text } = row;
    if let Some(what) = not_text {
        return Err((phrase.id, ContentError::NotText { what }));
    }
    // A page's address is made of it: `/words/..` is another page, `/words/` none.
    if !crate::store::is_document_id(&phrase.id) {
        return Err((phrase.id, ContentError::NotAnId));
    }
    let valid = match NewPhrase::validated(&phrase.word, &phrase.name) {
        Ok(valid) => valid,
        Err(error) => return Err((phrase.id, error)),
    };
    if valid.word != phrase.word {
        let error = ContentError::NotNormal {
            what: "a phrase",
            normal: valid.word,
        };
        return Err((phrase.id, error));
    }
    if valid.name != phrase.name {
        let error = ContentError::NotNormal {
            what: "a name",
            normal: valid.name,
        };
        return Err((phrase.id, error));
    }
    Ok(phrase)
}
