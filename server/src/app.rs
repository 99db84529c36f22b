//! The running app, built one way for the binary, the tests and the benches: the store
//! followed into a feed, the renderers started, the state shared by every handler.
//! [`crate::routes::router`] makes the router of it; [`crate::server::serve`] serves it.
//!
//! In development (`--ui-dir`) the app also follows the UI build's folder: each new
//! build is taken up without a restart ([`follow_ui`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use notify::Watcher as _;

use crate::config::Config;
use crate::feed::Feed;
use crate::metrics::Metrics;
use crate::render::assets::Ui;
use crate::state::AppState;
use crate::store::Backend;

/// How often the UI folder's manifest is looked at without a file event (a file system
/// that sends none, a watcher that could not start).
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// How many phrases removed before the start are remembered as gone (410): the newest,
/// which crawlers are likeliest to ask for again. Each costs the page cache some 360
/// bytes; 100,000 took 36 MB and half a second of every start.
const GONE_AT_START: u64 = 10_000;

/// Starts following `config`'s store and the renderers of `ui`, and `ui`'s folder if
/// it was read from one.
pub async fn start(config: Arc<Config>, ui: Ui) -> anyhow::Result<AppState> {
    let feed = Feed::new();
    let metrics = Arc::new(Metrics::new());
    let samples = config.environment != crate::config::Environment::Production;
    let gone = Backend::of(&config.store)
        .follow(&feed, &metrics, samples, GONE_AT_START)
        .await?;
    // Starting a JS engine per renderer thread blocks.
    let state =
        tokio::task::spawn_blocking(move || AppState::start(config, ui, feed, metrics)).await??;
    // A crawler that kept a removed phrase's link is told it is gone (410) after a restart
    // as before one, so it drops the link rather than asks again.
    state.pages.cache().remember_gone(gone).await;
    if let Some(folder) = state.ui.get().folder() {
        tokio::spawn(follow_ui(folder.to_owned(), state.clone()));
    }
    Ok(state)
}

/// Takes up each new build written into `folder` until the server stops. A build
/// writes its manifest last (ui/build.mjs, ui/dev.mjs), so a changed manifest means a
/// whole build is there.
async fn follow_ui(folder: PathBuf, state: AppState) {
    let manifest = folder.join("manifest.json");
    let (changed_tx, mut changed) = tokio::sync::mpsc::channel::<()>(1);
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let names_manifest = |event: notify::Event| {
            let name = Some(std::ffi::OsStr::new("manifest.json"));
            event.paths.iter().any(|path| path.file_name() == name)
        };
        if event.is_ok_and(names_manifest) {
            let _ = changed_tx.try_send(());
        }
    })
    .and_then(|mut watcher| {
        watcher.watch(&folder, notify::RecursiveMode::NonRecursive)?;
        Ok(watcher)
    });
    let watching = match &watcher {
        Ok(_) => true,
        Err(error) => {
            tracing::warn!(%error, folder = %folder.display(), every_s = LOOK_EVERY.as_secs(), "cannot watch the UI folder; looking at its manifest on a timer instead");
            false
        }
    };
    tracing::info!(folder = %folder.display(), "following the UI build");
    let mut seen = stamp(&manifest);
    let inode = |path: &Path| stamp(path).map(|(_, _, inode)| inode);
    let mut folder_seen = inode(&folder);
    loop {
        tokio::select! {
            () = state.shutdown.cancelled() => return,
            Some(()) = changed.recv(), if watching => {}
            () = tokio::time::sleep(LOOK_EVERY) => {}
        }
        // A folder removed and made again (a clean-up under scripts/dev) is watched anew:
        // the watch went with the old one.
        let folder_now = inode(&folder);
        if folder_now != folder_seen {
            folder_seen = folder_now;
            if let (Ok(watcher), Some(_)) = (&mut watcher, folder_now) {
                let _ = watcher.watch(&folder, notify::RecursiveMode::NonRecursive);
            }
        }
        // Events come for reads too (this host's own): only a new file counts.
        let now = stamp(&manifest);
        if now == seen {
            continue;
        }
        seen = now;
        // Gone (a clean-up under way): the build it had stays served until another is written.
        if seen.is_none() {
            continue;
        }
        let (folder, state) = (folder.clone(), state.clone());
        let started = Instant::now();
        let taken = tokio::task::spawn_blocking(move || take_up(&folder, &state)).await;
        match taken {
            Ok(Ok(())) => tracing::info!(
                took_ms = started.elapsed().as_millis() as u64,
                "took up the new UI build"
            ),
            Ok(Err(error)) => tracing::warn!(
                %error,
                "the new UI build was not taken up; the previous one is still served"
            ),
            Err(error) => tracing::error!(%error, "taking up the new UI build failed"),
        }
    }
}

/// Takes up the build in `folder`: every renderer runs its bundle from its next render,
/// then pages link its files and render anew. A build that does not load changes nothing.
fn take_up(folder: &Path, state: &AppState) -> Result<(), String> {
    let ui = Ui::from_folder(folder)?;
    state.pages.take_up(ui).map_err(|error| error.to_string())
}

/// What tells one manifest file from the next: a build renames a new file into place.
fn stamp(path: &Path) -> Option<(Option<std::time::SystemTime>, u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    let metadata = std::fs::metadata(path).ok()?;
    Some((metadata.modified().ok(), metadata.len(), metadata.ino()))
}
