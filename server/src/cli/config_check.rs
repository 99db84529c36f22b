//! `lastwords config check`: the effective configuration, and what would stop `serve`.

use anyhow::bail;
use std::io::Write as _;

use crate::config::{Config, Environment};
use crate::render::assets::Ui;
use crate::store::embedded::EmbeddedStore;

/// Prints every setting; fails on what would stop `serve` or break it later.
pub fn run(config: &Config) -> anyhow::Result<()> {
    let rows = config.describe();
    let width = rows.iter().map(|(key, _)| key.len()).max().unwrap_or(0);
    for (key, value) in &rows {
        crate::say!("{key:width$}  {value}");
    }
    let mut problems = Vec::new();
    if let Err(message) = Ui::load(config.ui_dir.as_deref()) {
        problems.push(message);
    }
    let data_dir = &config.store.data_dir;
    // `serve` makes the folders missing: the nearest that is there must be a folder.
    let nearest = crate::store::embedded::nearest_existing(data_dir);
    if !nearest.is_dir() {
        problems.push(if nearest == data_dir.as_path() {
            format!("data_dir {} is not a folder", data_dir.display())
        } else {
            format!(
                "data_dir {} cannot be created: {} is not a folder",
                data_dir.display(),
                nearest.display()
            )
        });
    }
    // The store `serve` would read, looked at as it would look (without writing there):
    // what it would refuse to start on is said now, not at the deploy.
    if config.store.firestore.is_none()
        && !problems.iter().any(|p| p.starts_with("data_dir"))
        && let Err(error) =
            EmbeddedStore::check_read_only(data_dir, config.environment != Environment::Production)
    {
        problems.push(error.to_string());
    }
    if !problems.is_empty() {
        bail!(problems.join("\n"));
    }
    // The status says it; a note that cannot be written (stderr closed or full) is no
    // problem of the configuration's.
    let _ = writeln!(std::io::stderr(), "configuration ok");
    Ok(())
}
