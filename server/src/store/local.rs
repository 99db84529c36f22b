//! The embedded store: `phrases.json` in the data folder, watched for changes and
//! written atomically (write a temporary file, then rename), so an edit by hand or a
//! CLI write shows up live and a reader never sees half a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use notify::Watcher as _;
use rand::Rng as _;
use serde::Deserialize;

use super::{PhraseSource, StoreError};
use crate::snapshot::{Feed, Phrase, into_document_order};

/// The file name inside the data folder.
pub const FILE_NAME: &str = "phrases.json";

/// A handful of phrases so a fresh clone has something to show.
const SAMPLES: &[(&str, &str, &str)] = &[
    ("0Fq8dkZ2sVt1mYw3Lr7a", "SEE YOU LATER", "Rex"),
    ("3bXn9QeP4hUc2JkT6wYd", "WAS THAT A COMET?", "Trixie"),
    ("7mRz1VaK8sLq5DfG2nHe", "I SHOULD HAVE FLOWN", "Ptera"),
    ("AcW4tY7uJ2pN9xE5kB3f", "TOO BIG TO FAIL", "Bronto"),
    ("Kp2sD6gH1jL8zX4cV9bg", "MORE TREES PLEASE", "Stego"),
    ("Qe5rT9yU3iO7pA1sD4fh", "GOOD LUCK!", "Anky"),
];

/// Phrases in a JSON file.
#[derive(Debug, Clone)]
pub struct LocalStore {
    path: PathBuf,
    /// Serialises this process's writes; the rename keeps readers safe from them.
    write_lock: Arc<tokio::sync::Mutex<()>>,
}

#[derive(Deserialize)]
struct StoredPhrase {
    id: Option<serde_json::Value>,
    word: Option<serde_json::Value>,
    name: Option<serde_json::Value>,
}

impl LocalStore {
    /// The store in `data_dir`, created with sample phrases when it has none yet.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let path = data_dir.join(FILE_NAME);
        if !path.exists() {
            std::fs::create_dir_all(data_dir).map_err(|e| file_error(data_dir, e))?;
            let samples = SAMPLES
                .iter()
                .map(|(id, word, name)| Phrase {
                    id: (*id).into(),
                    word: (*word).into(),
                    name: (*name).into(),
                })
                .collect::<Vec<_>>();
            write_atomically(&path, &samples)?;
            tracing::info!(path = %path.display(), "created the embedded store with sample phrases");
        }
        Ok(Self {
            path,
            write_lock: Arc::default(),
        })
    }

    /// Where the phrases live.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads and checks the file. Entries without a string `word` or `name` are
    /// skipped with a warning; a file that is not a JSON array is an error.
    pub fn read(&self) -> Result<Vec<Phrase>, StoreError> {
        let text = std::fs::read_to_string(&self.path).map_err(|e| file_error(&self.path, e))?;
        let entries: Vec<StoredPhrase> =
            serde_json::from_str(&text).map_err(|e| StoreError::File {
                path: self.path.display().to_string(),
                reason: format!("not a JSON array of {{id, word, name}}: {e}"),
            })?;
        let mut phrases = Vec::with_capacity(entries.len());
        for (index, entry) in entries.into_iter().enumerate() {
            match (entry.id, entry.word, entry.name) {
                (
                    Some(serde_json::Value::String(id)),
                    Some(serde_json::Value::String(word)),
                    Some(serde_json::Value::String(name)),
                ) if !id.is_empty() => phrases.push(Phrase { id, word, name }),
                _ => tracing::warn!(
                    path = %self.path.display(),
                    index,
                    "skipped an entry without a string id, word and name"
                ),
            }
        }
        Ok(into_document_order(phrases))
    }

    async fn modify<T>(
        &self,
        change: impl FnOnce(&mut Vec<Phrase>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let _one_writer = self.write_lock.lock().await;
        let mut phrases = self.read()?;
        let outcome = change(&mut phrases)?;
        write_atomically(&self.path, &into_document_order(phrases))?;
        Ok(outcome)
    }

    async fn watch(self, feed: Feed) {
        let (changed_tx, mut changed) = tokio::sync::mpsc::channel::<()>(1);
        let file_name = std::ffi::OsString::from(FILE_NAME);
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event
                && event
                    .paths
                    .iter()
                    .any(|p| p.file_name() == Some(&file_name))
            {
                let _ = changed_tx.try_send(());
            }
        });
        let folder = self.path.parent().unwrap_or(Path::new(".")).to_owned();
        let mut watcher = match watcher {
            Ok(watcher) => watcher,
            Err(error) => {
                tracing::error!(%error, "cannot watch the embedded store; edits need a restart");
                return;
            }
        };
        if let Err(error) = watcher.watch(&folder, notify::RecursiveMode::NonRecursive) {
            tracing::error!(%error, folder = %folder.display(), "cannot watch the embedded store");
            return;
        }
        while changed.recv().await.is_some() {
            while changed.try_recv().is_ok() {}
            let mut read = self.read();
            if read.is_err() {
                // An editor writing in place may be half-way through: a JSON array is
                // only valid once complete, so read again when the writes have settled.
                tokio::time::sleep(Duration::from_millis(5)).await;
                while changed.try_recv().is_ok() {}
                read = self.read();
            }
            match read {
                Ok(phrases) => {
                    let snapshot = feed.publish(phrases);
                    feed.health().synced();
                    tracing::info!(
                        version = snapshot.version,
                        count = snapshot.phrases.len(),
                        "embedded store changed"
                    );
                }
                Err(error) => {
                    tracing::error!(%error, "the embedded store is unreadable; still serving the last good list")
                }
            }
        }
    }
}

impl PhraseSource for LocalStore {
    fn start(&self, feed: Feed) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            feed.publish(self.read()?);
            feed.health().synced();
            tokio::spawn(self.clone().watch(feed));
            Ok(())
        })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<Phrase>, StoreError>> {
        Box::pin(async move { self.read() })
    }

    fn add(&self, word: String, name: String) -> BoxFuture<'_, Result<Phrase, StoreError>> {
        Box::pin(self.modify(move |phrases| {
            if let Some(taken) = phrases.iter().find(|p| p.word == word) {
                return Err(StoreError::Taken {
                    word,
                    name: taken.name.clone(),
                });
            }
            let phrase = Phrase {
                id: new_document_id(),
                word,
                name,
            };
            phrases.push(phrase.clone());
            Ok(phrase)
        }))
    }

    fn remove(&self, id: String) -> BoxFuture<'_, Result<Phrase, StoreError>> {
        Box::pin(self.modify(move |phrases| {
            let index = phrases
                .iter()
                .position(|p| p.id == id)
                .ok_or(StoreError::NoSuchId(id))?;
            Ok(phrases.remove(index))
        }))
    }
}

/// A 20-character id like the ones Firestore generates.
pub fn new_document_id() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    (0..20)
        .map(|_| char::from(ALPHABET[rng.random_range(0..ALPHABET.len())]))
        .collect()
}

pub(crate) fn write_atomically(path: &Path, phrases: &[Phrase]) -> Result<(), StoreError> {
    let mut json =
        serde_json::to_string_pretty(phrases).map_err(|e| StoreError::Backend(e.to_string()))?;
    json.push('\n');
    let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
    std::fs::write(&temporary, json).map_err(|e| file_error(&temporary, e))?;
    std::fs::rename(&temporary, path).map_err(|e| file_error(path, e))
}

fn file_error(path: &Path, error: std::io::Error) -> StoreError {
    StoreError::File {
        path: path.display().to_string(),
        reason: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_fresh_folder_gets_samples_and_refuses_a_taken_word() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalStore::open(dir.path()).unwrap();
        let phrases = store.read().unwrap();
        assert_eq!(phrases.len(), SAMPLES.len());
        let taken = store.add("GOOD LUCK!".into(), "Me".into()).await;
        assert!(matches!(taken, Err(StoreError::Taken { .. })), "{taken:?}");
        let added = store.add("HELLO".into(), "Me".into()).await.unwrap();
        assert_eq!(added.id.len(), 20);
        assert_eq!(store.read().unwrap().len(), SAMPLES.len() + 1);
        store.remove(added.id).await.unwrap();
        assert_eq!(store.read().unwrap().len(), SAMPLES.len());
    }

    #[test]
    fn malformed_entries_are_skipped_and_a_broken_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(
            &path,
            r#"[{"id":"a","word":"OK","name":"n"},{"id":"b","word":7,"name":"n"}]"#,
        )
        .unwrap();
        let store = LocalStore::open(dir.path()).unwrap();
        assert_eq!(store.read().unwrap().len(), 1);
        std::fs::write(&path, "[{").unwrap();
        let message = store.read().unwrap_err().to_string();
        assert!(
            message.contains(FILE_NAME) && message.contains("JSON"),
            "{message}"
        );
    }
}
