//! What the benches share: a host's configuration and UI, as the binary would have them.

use std::path::Path;
use std::sync::Arc;

use lastwords::config::{Config, Settings};
use lastwords::render::assets::Ui;

/// The defaults, with the store in `data_dir` and one renderer (a bench times one).
pub fn config(data_dir: &Path) -> anyhow::Result<Arc<Config>> {
    let settings = Settings {
        data_dir: Some(data_dir.to_owned()),
        render_threads: Some(1),
        ..Settings::default()
    };
    Ok(Arc::new(settings.resolve()?))
}

/// The UI build embedded in the binary.
pub fn ui() -> anyhow::Result<Ui> {
    Ui::embedded().map_err(|message| anyhow::anyhow!(message))
}
