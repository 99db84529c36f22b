//! The last list Firestore delivered, kept in the data folder, so a host that starts
//! while Firestore is unreachable serves it instead of nothing.

use std::path::{Path, PathBuf};

use crate::snapshot::{Feed, Phrase};
use crate::store::local::write_atomically;

/// The file next to the embedded store's `phrases.json`.
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
    let feed = feed.clone();
    tokio::spawn(async move {
        while changes.changed().await.is_ok() {
            if feed.health().is_restored() {
                continue;
            }
            let snapshot = changes.borrow_and_update().clone();
            let file = file.clone();
            let written =
                tokio::task::spawn_blocking(move || write_atomically(&file, &snapshot.phrases))
                    .await;
            if let Ok(Err(error)) = written {
                tracing::warn!(%error, "cannot save the list for the next start");
            }
        }
    });
}
