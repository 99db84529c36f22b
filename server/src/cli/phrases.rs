//! `lastwords phrases`: list, add, remove, import and export minted phrases in the
//! configured store, and create the embedded one.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context as _, bail};
use clap::Subcommand;

use crate::config::Store;
use crate::feed::Phrase;
use crate::store::embedded::{self, EmbeddedStore, Seed};
use crate::store::{AddOutcome, Added, NewPhrase, PhraseStore, StoreError};
use crate::text::{preview, quoted, skeleton, terminal_safe};

/// The settings these commands use (the store's), by id: their help lists only these.
pub const SETTINGS: &[&str] = &[
    "config",
    "data_dir",
    "store",
    "firestore_project",
    "firestore_database",
    "firestore_collection",
];

#[derive(Subcommand)]
pub enum PhrasesCommand {
    /// Create the embedded store in the data folder: empty, or with the phrases of a
    /// phrases.json left by an earlier version (which is then renamed, never deleted)
    Init,
    /// Print every phrase, oldest first
    List {
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Mint a phrase: upper-cased, 1 to 20 characters, refused when already taken
    Add {
        /// The phrase
        word: String,
        /// Who minted it
        #[arg(long)]
        name: String,
    },
    /// Remove the phrase with this document id
    Remove {
        /// The document id, as `phrases list` shows it
        id: String,
    },
    /// Add every valid phrase of a JSON file (an array of {"word": ..., "name": ...};
    /// other fields are ignored); each rejected entry is reported with its reason.
    /// Nothing is ever removed
    Import {
        /// The JSON file
        file: PathBuf,
    },
    /// Write every phrase as JSON that `phrases import` takes back (oldest first)
    Export {
        /// Where to write it, a new file [default, or `-`: standard output]
        file: Option<PathBuf>,
    },
    /// Copy the embedded store to FILE, consistently, while a host serves and others
    /// write (SQLite's online backup); the copy is checked whole. FILE must not exist
    Backup {
        /// Where to write the copy (a new file)
        file: PathBuf,
    },
    /// Put the phrases of a backup in place of the embedded store's. The backup is
    /// checked first; the store it replaces is kept beside it, renamed, never deleted
    Restore {
        /// A backup made by `phrases backup`
        file: PathBuf,
        /// Restore while a host serves from the folder: a sound store is replaced in one
        /// transaction that the host shows as one change; a damaged one is moved aside
        /// and the host reads the restored file afresh
        #[arg(long)]
        online: bool,
    },
}

pub async fn run(config: &Store, command: PhrasesCommand) -> anyhow::Result<()> {
    match command {
        PhrasesCommand::Init => return init(config),
        PhrasesCommand::Backup { file } => return backup(config, &file).await,
        PhrasesCommand::Restore { file, online } => return restore(config, &file, online).await,
        _ => {}
    }
    if matches!(
        command,
        PhrasesCommand::Add { .. } | PhrasesCommand::Import { .. }
    ) {
        clock_dates_mints()?;
    }
    let store = crate::store::Backend::of(config).writer().await?;
    match command {
        PhrasesCommand::Init | PhrasesCommand::Backup { .. } | PhrasesCommand::Restore { .. } => {
            unreachable!("handled above")
        }
        PhrasesCommand::List { json } => {
            let phrases = store.list().await?;
            if json {
                // JSON escapes every control character itself.
                let text = serde_json::to_string_pretty(&phrases)?;
                crate::say!("{text}");
            } else {
                for phrase in &phrases {
                    crate::say!(
                        "{}\t{}\t{}",
                        terminal_safe(&phrase.id),
                        terminal_safe(&phrase.word),
                        terminal_safe(&phrase.name)
                    );
                }
                crate::tell!("{}", counted(phrases.len()));
            }
        }
        PhrasesCommand::Add { word, name } => {
            let phrase = NewPhrase::validated(&word, &name)?;
            let Added { done: phrase, read } = store.add(phrase).await?;
            crate::say!(
                "added {} {} by {}",
                phrase.id,
                quoted(&phrase.word),
                quoted(&phrase.name)
            );
            say_dated_ahead(std::slice::from_ref(&phrase));
            say_lookalikes(store.as_ref(), &[phrase], read).await;
        }
        PhrasesCommand::Remove { id } => {
            // No store holds such an id (Firestore's client answered `a/b` with a hint
            // for its programmers).
            if !crate::store::is_document_id(&id) {
                return Err(StoreError::NoSuchId(id).into());
            }
            let phrase = store.remove(id).await?;
            crate::say!(
                "removed {} {} by {}",
                terminal_safe(&phrase.id),
                quoted(&phrase.word),
                quoted(&phrase.name)
            );
        }
        PhrasesCommand::Import { file } => import(store.as_ref(), &file).await?,
        PhrasesCommand::Export { file } => {
            let phrases = store.list().await?;
            let mut text = serde_json::to_string_pretty(&phrases)?;
            text.push('\n');
            match file.filter(|path| path.as_os_str() != "-") {
                Some(path) => {
                    // As a backup does: what is already there is never lost to a typo.
                    let mut out = match std::fs::OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .open(&path)
                    {
                        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                            anyhow::bail!(
                                "{} exists; an export never writes over a file: name a new one, or remove that one first",
                                path.display()
                            );
                        }
                        opened => {
                            opened.with_context(|| format!("cannot write {}", path.display()))?
                        }
                    };
                    // On the disk before it is said to be: a file cut short is removed, so
                    // the export can be run again under the same name.
                    let written = std::io::Write::write_all(&mut out, text.as_bytes())
                        .and_then(|()| out.sync_all());
                    if let Err(error) = written {
                        drop(out);
                        let _ = std::fs::remove_file(&path);
                        return Err(error).with_context(|| {
                            format!(
                                "cannot write {} (nothing is left under that name)",
                                path.display()
                            )
                        });
                    }
                    crate::tell!("exported {} to {}", counted(phrases.len()), path.display());
                }
                None => crate::cli::out(format_args!("{text}")),
            }
        }
    }
    Ok(())
}

/// Refuses a command that only the embedded store has when Firestore is configured.
fn embedded_only(config: &Store, what: &str) -> anyhow::Result<()> {
    if let Some(location) = &config.firestore {
        bail!(
            "the configured store is Firestore (project {:?}); `phrases {what}` is for the embedded store (--store embedded)",
            location.project
        );
    }
    Ok(())
}

async fn backup(config: &Store, file: &std::path::Path) -> anyhow::Result<()> {
    embedded_only(config, "backup")?;
    let store = EmbeddedStore::open(&config.data_dir)?;
    let file = file.to_owned();
    let report =
        tokio::task::spawn_blocking(move || store.backup(&file).map(|report| (report, file)))
            .await??;
    let (report, file) = report;
    crate::say!(
        "backed up {} to {} ({} bytes, integrity checked)",
        counted(report.phrases),
        file.display(),
        report.bytes
    );
    Ok(())
}

async fn restore(config: &Store, file: &std::path::Path, online: bool) -> anyhow::Result<()> {
    embedded_only(config, "restore")?;
    let data_dir = config.data_dir.clone();
    let from = file.to_owned();
    let report =
        tokio::task::spawn_blocking(move || EmbeddedStore::restore(&data_dir, &from, online))
            .await??;
    let how = if report.in_place {
        "in one transaction"
    } else {
        "as a new file"
    };
    crate::say!(
        "restored {} from {} {how}",
        counted(report.phrases),
        file.display()
    );
    if let Some(aside) = report.kept_aside {
        crate::say!("the store it replaced is kept at {}", aside.display());
    }
    Ok(())
}

/// Creates the embedded store; says what is there when it already exists.
fn init(config: &Store) -> anyhow::Result<()> {
    embedded_only(config, "init")?;
    let (store, created) = EmbeddedStore::open_or_create(&config.data_dir, Seed::Empty)?;
    let path = store.path().display();
    match created {
        None => crate::say!("{path} already exists; nothing to do"),
        Some(created) => match created.imported {
            None => crate::say!("created {path}"),
            Some(import) => {
                crate::say!(
                    "created {path} with {} from {}, renamed to {}",
                    counted(import.added),
                    embedded::LEGACY_FILE_NAME,
                    embedded::LEGACY_IMPORTED_NAME
                );
                for reason in &import.rejected {
                    crate::say!("  not imported {reason}");
                }
                if !import.rejected.is_empty() {
                    bail!(
                        "{} of the entries in {} were not imported (listed above); the file is kept as {}",
                        import.rejected.len(),
                        embedded::LEGACY_FILE_NAME,
                        embedded::LEGACY_IMPORTED_NAME
                    );
                }
            }
        },
    }
    Ok(())
}

/// A phrase is dated by this machine's clock: one before the store's times begin
/// (`FIRST_TIME_US`, 2001-09-09; a board with no clock battery wakes in 1970) would give
/// it no time the list can be ordered by.
fn clock_dates_mints() -> anyhow::Result<()> {
    let now = crate::feed::now_ms();
    if now * 1000 < crate::feed::list::FIRST_TIME_US {
        anyhow::bail!(
            "the system clock reads {}, before {}, where phrase times begin: a phrase minted \
             now would have no time to be listed by. Set the clock right (NTP) and mint again",
            crate::feed::rfc3339(now),
            crate::feed::rfc3339(crate::feed::list::FIRST_TIME_US / 1000)
        );
    }
    Ok(())
}

/// Says when `added` were dated more than a day ahead of this machine's clock: a phrase
/// in the store is dated there (minted while a clock was set ahead, or its time written
/// by hand), and each new one comes after it, to keep the order of minting. Said at the
/// first such mint, so the operator puts that time right before more follow it.
fn say_dated_ahead(added: &[Phrase]) {
    const DAY_US: u64 = 86_400_000_000;
    let now = crate::feed::now_us();
    let Some(latest) = added.iter().map(|phrase| phrase.created).max() else {
        return;
    };
    if latest > now + DAY_US {
        crate::tell!(
            "note: dated {}, {} days ahead of this machine's clock: a phrase in the store is \
             dated there (minted while a clock was set ahead?), and new ones come after it to \
             keep the order. If its time is wrong, write the right one (docs/operations.md, \
             \"A phrase dated in the future\")",
            crate::feed::rfc3339(latest / 1000),
            (latest - now) / DAY_US
        );
    }
}

/// Says which of `added` read like another phrase in the store (one confusable skeleton,
/// `DIN0 ROAR` beside `DINO ROAR`): minted all the same, as the checker would call them
/// free, but the operator who typed one by hand should know what visitors will be told.
/// `read`: the store as the add read it, before the add, when it read it whole.
async fn say_lookalikes(store: &dyn PhraseStore, added: &[Phrase], read: Option<Vec<Phrase>>) {
    if added.is_empty() {
        return;
    }
    let all = match read {
        Some(mut before) => {
            before.extend_from_slice(added);
            before
        }
        // Read now, the added phrases among them.
        None => match store.words().await {
            Ok(all) => all,
            Err(error) => {
                crate::tell!("could not look for phrases that read alike: {error}");
                return;
            }
        },
    };
    // As the checker reads them: one skeleton, the oldest first. One pass over the store,
    // with no index of it: an add at 100,000 phrases waited 1.3 s for a whole list built.
    let mut wanted: HashMap<String, Vec<usize>> = HashMap::new();
    for (index, phrase) in added.iter().enumerate() {
        wanted
            .entry(skeleton(&phrase.word))
            .or_default()
            .push(index);
    }
    let mut found: Vec<Option<&Phrase>> = vec![None; added.len()];
    for other in &all {
        let Some(indexes) = wanted.get(&skeleton(&other.word)) else {
            continue;
        };
        for &index in indexes {
            if found[index].is_none() && other.id != added[index].id {
                found[index] = Some(other);
            }
        }
    }
    let alike = (added.iter().zip(found)).filter_map(|(phrase, other)| Some((phrase, other?)));
    let mut count = 0;
    for (phrase, other) in alike {
        count += 1;
        if count <= SKIPPED_LISTED {
            crate::tell!(
                "note: {} reads like {} by {} ({}); the checker tells visitors so",
                preview(&phrase.word),
                preview(&other.word),
                preview(&other.name),
                terminal_safe(&other.id)
            );
        }
    }
    if count > SKIPPED_LISTED {
        crate::tell!(
            "note: {} more read like a phrase already there",
            count - SKIPPED_LISTED
        );
    }
}

/// The phrases skipped as taken an import names, before it counts the rest.
const SKIPPED_LISTED: usize = 20;

/// Adds every valid entry of `file` in as few writes as the store allows, then says what
/// became of each: added, already taken, or rejected with its reason.
async fn import(store: &dyn PhraseStore, file: &std::path::Path) -> anyhow::Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    // Editors that save UTF-8 with a byte-order mark put one first; JSON has none.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let entries = crate::store::json_entries(text).with_context(|| {
        format!(
            "{} is not a JSON array of {{\"word\": ..., \"name\": ...}}",
            file.display()
        )
    })?;
    let total = entries.len();
    let mut valid = Vec::with_capacity(total);
    let mut rejected = Vec::new();
    for (index, entry) in entries.into_iter().enumerate() {
        let number = index + 1;
        let entry: serde_json::Value = match serde_json::from_str(entry.get()) {
            Ok(entry) => entry,
            Err(error) => {
                let reason = crate::store::entry_error(&error);
                rejected.push(format!("#{number}: not valid JSON ({reason})"));
                continue;
            }
        };
        let (Some(word), Some(name)) = (
            entry.get("word").and_then(|v| v.as_str()),
            entry.get("name").and_then(|v| v.as_str()),
        ) else {
            rejected.push(format!("#{number}: needs string fields word and name"));
            continue;
        };
        match NewPhrase::validated(word, name) {
            Ok(phrase) => valid.push(phrase),
            Err(error) => rejected.push(format!("#{number} {}: {error}", preview(word))),
        }
    }
    let Added {
        done: outcomes,
        read,
    } = match store.add_many(valid).await {
        Ok(added) => added,
        Err(StoreError::Partial { committed, cause }) => bail!(
            "the import stopped: {cause}; the {committed} phrases before it were committed \
             (and perhaps the ones it was writing): importing the same file again adds the \
             rest, skipping those already in as taken"
        ),
        // A write that timed out may have been applied all the same (Firestore's commit
        // is not undone by the client giving up on it), so "nothing" would not be sure.
        Err(error) => {
            return Err(error).context(
                "the import did not finish, nothing of it known to be committed (a write that \
             timed out may be in all the same): importing the same file again adds what is \
             missing, skipping what is already in as taken",
            );
        }
    };
    let added_phrases: Vec<Phrase> = outcomes
        .iter()
        .filter_map(|outcome| match outcome {
            AddOutcome::Added(phrase) => Some(phrase.clone()),
            AddOutcome::Taken { .. } => None,
        })
        .collect();
    let added = added_phrases.len();
    let taken = outcomes.len() - added;
    for reason in &rejected {
        crate::say!("rejected {reason}");
    }
    // Which were taken, so a re-import is told from a clash: the first few, then a count.
    let skipped = outcomes.iter().filter_map(|outcome| match outcome {
        AddOutcome::Taken { word, name } => Some((word, name)),
        AddOutcome::Added(_) => None,
    });
    for (word, name) in skipped.take(SKIPPED_LISTED) {
        crate::say!(
            "skipped {}: already taken by {}",
            preview(word),
            preview(name)
        );
    }
    if taken > SKIPPED_LISTED {
        crate::say!("skipped {} more as already taken", taken - SKIPPED_LISTED);
    }
    say_dated_ahead(&added_phrases);
    say_lookalikes(store, &added_phrases, read).await;
    crate::say!(
        "{total} entries: added {added}, skipped {taken} as already taken, rejected {}",
        rejected.len()
    );
    if rejected.is_empty() {
        Ok(())
    } else {
        bail!(
            "{} of {total} entries were rejected (listed above); every valid one was imported",
            rejected.len()
        )
    }
}

/// "1 phrase", "2 phrases".
fn counted(n: impl TryInto<u64> + Copy) -> String {
    let n: u64 = n.try_into().unwrap_or(u64::MAX);
    format!("{n} phrase{}", if n == 1 { "" } else { "s" })
}
