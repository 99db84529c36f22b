//! Embeds the built UI (`ui/dist`) and the static files of the top-level `assets/`
//! into the binary, so the release binary runs alone. The icon and Open Graph art
//! (`icon.svg`, `og.svg`) and the phrase cards' backdrop and fonts (`card/`) are
//! embedded as they are: the host rasterises them at run time (`render::raster`,
//! `render::card`).
//! Without a built UI the host still compiles and says at start-up how to build it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let dist = std::env::var_os("LASTWORDS_UI_DIST")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir.join("../ui/dist"));
    println!("cargo:rerun-if-env-changed=LASTWORDS_UI_DIST");
    println!("cargo:rerun-if-changed={}", dist.display());

    let mut out = String::new();
    let optional_text = |name: &str| -> String {
        let path = dist.join(name);
        if path.is_file() {
            format!("Some(include_str!({:?}))", path.display().to_string())
        } else {
            "None".into()
        }
    };
    writeln!(
        out,
        "pub static SERVER_BUNDLE: Option<&str> = {};",
        optional_text("server.js")
    )
    .ok();
    writeln!(
        out,
        "pub static MANIFEST: Option<&str> = {};",
        optional_text("manifest.json")
    )
    .ok();

    writeln!(
        out,
        "pub static ICON_SVG: Option<&str> = {};",
        optional_text("icon.svg")
    )
    .ok();
    writeln!(
        out,
        "pub static OG_SVG: Option<&str> = {};",
        optional_text("og.svg")
    )
    .ok();

    writeln!(
        out,
        "pub static CARD_ART: Option<CardArt> = {};",
        card_art(&dist)
    )
    .ok();

    let mut files = Vec::new();
    collect(&dist.join("assets"), &dist.join("assets"), &mut files);
    files.sort();
    out.push_str("pub static ASSETS: &[EmbeddedAsset] = &[\n");
    for (relative, path) in files
        .iter()
        .filter(|(r, _)| !r.ends_with(".br") && !r.ends_with(".gz"))
    {
        let variant = |suffix: &str| -> String {
            let sibling = PathBuf::from(format!("{}.{suffix}", path.display()));
            if sibling.is_file() {
                format!("Some(include_bytes!({:?}))", sibling.display().to_string())
            } else {
                "None".into()
            }
        };
        writeln!(
            out,
            "    EmbeddedAsset {{ path: {relative:?}, body: include_bytes!({:?}), br: {}, gzip: {} }},",
            path.display().to_string(),
            variant("br"),
            variant("gz"),
        )
        .ok();
    }
    out.push_str("];\n");

    // The site's own static files, served at their path under assets/ as they are.
    let statics = manifest_dir.join("../assets");
    println!("cargo:rerun-if-changed={}", statics.display());
    let mut files = Vec::new();
    collect(&statics, &statics, &mut files);
    files.sort();
    out.push_str("pub static STATIC_FILES: &[(&str, &[u8])] = &[\n");
    for (relative, path) in &files {
        writeln!(
            out,
            "    (\"/{relative}\", include_bytes!({:?})),",
            path.display().to_string()
        )
        .ok();
    }
    out.push_str("];\n");

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    std::fs::write(out_dir.join("ui_assets.rs"), out).expect("OUT_DIR is writable");
}

/// A `CardArt { .. }` expression, or `None` when the UI build has no card art. The
/// fonts keep the order of their names, which is the order the host falls back in.
fn card_art(dist: &Path) -> String {
    let card = dist.join("card");
    let backdrop = card.join("backdrop.svg");
    let version = card.join("version");
    let mut fonts = Vec::new();
    collect(&card.join("fonts"), &card.join("fonts"), &mut fonts);
    fonts.sort();
    if !backdrop.is_file() || !version.is_file() || fonts.is_empty() {
        return "None".into();
    }
    let mut list = String::new();
    for (_, path) in &fonts {
        write!(list, "include_bytes!({:?}), ", path.display().to_string()).ok();
    }
    format!(
        "Some(CardArt {{ backdrop: include_str!({:?}), version: include_str!({:?}), fonts: &[{list}] }})",
        backdrop.display().to_string(),
        version.display().to_string()
    )
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(root, &path, files);
        } else if let Ok(relative) = path.strip_prefix(root) {
            files.push((relative.to_string_lossy().replace('\\', "/"), path.clone()));
        }
    }
}
