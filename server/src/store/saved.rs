//! The last list Firestore delivered, kept in the data folder, so a host that starts
//! while Firestore is unreachable serves it instead of nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::feed::{Feed, Phrase, Snapshot};
use crate::store::StoreError;

/// The file next to the embedded store's database.
pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("firestore-snapshot.json")
}

/// Shows the saved list (if any) until the source delivers, then saves every list the
/// source delivers (written then renamed, so a crash never leaves half a file).
pub fn restore_and_keep(data_dir: &Path, feed: &Feed) {
    let file = path(data_dir);
    match std::fs::read(&file) {
        Ok(bytes) => match serde_json::from_slice::<Vec<Phrase>>(&bytes) {
            Ok(phrases) => {
                tracing::info!(count = phrases.len(), file = %file.display(), "showing the saved list until Firestore answers");
                feed.restore(phrases);
            }
            Err(error) => {
                tracing::warn!(%error, file = %file.display(), "the saved list is unreadable; ignoring it")
            }
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => tracing::warn!(%error, file = %file.display(), "cannot read the saved list"),
    }
    let mut changes = feed.subscribe();
    let writer = feed.clone();
    feed.spawn_stoppable(|stop| async move {
        let feed = writer;
        let mut last_write: Option<tokio::time::Instant> = None;
        loop {
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { return },
                // The last changes may wait out the pause below: they are saved before the
                // process goes, or a start without Firestore would show what was removed.
                () = stop.cancelled() => {
                    if changes.has_changed().unwrap_or(false) && !feed.health().is_restored() {
                        let snapshot = changes.borrow_and_update().clone();
                        save(&file, &snapshot).await;
                    }
                    return;
                }
            }
            if feed.health().is_restored() {
                continue;
            }
            // The file is only a fallback, and each write costs the whole list: a burst of
            // changes is saved once.
            if let Some(last) = last_write {
                tokio::select! {
                    () = tokio::time::sleep_until(last + SAVE_AT_MOST_EVERY) => {}
                    () = stop.cancelled() => {}
                }
            }
            let snapshot = changes.borrow_and_update().clone();
            save(&file, &snapshot).await;
            last_write = Some(tokio::time::Instant::now());
            if stop.is_cancelled() {
                return;
            }
        }
    });
}

/// Writes `snapshot`'s list to `file`, off the async threads; a failure is logged.
async fn save(file: &Path, snapshot: &Arc<Snapshot>) {
    let (file, snapshot) = (file.to_owned(), snapshot.clone());
    let written = tokio::task::spawn_blocking(move || {
        let phrases: Vec<&Phrase> = snapshot.list.iter().map(|p| &**p).collect();
        write_atomically(&file, &phrases)
    })
    .await;
    if let Ok(Err(error)) = written {
        tracing::warn!(%error, "cannot save the list for the next start");
    }
}

/// The least time between two saves of the list.
const SAVE_AT_MOST_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// Writes `phrases` as JSON to a temporary file, then renames it over `path`, so a
/// reader (or a crash) never sees half a file.
fn write_atomically(path: &Path, phrases: &[&Phrase]) -> Result<(), StoreError> {
    let file_error = |path: &Path, error: std::io::Error| StoreError::File {
        path: path.display().to_string(),
        reason: error.to_string(),
    };
    let mut json =
        serde_json::to_string_pretty(phrases).map_err(|e| StoreError::Backend(e.to_string()))?;
    json.push('\n');
    let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
    std::fs::write(&temporary, json).map_err(|e| file_error(&temporary, e))?;
    std::fs::rename(&temporary, path).map_err(|e| file_error(path, e))
}
