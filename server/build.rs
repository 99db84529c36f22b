//! Embeds the built UI (`ui/dist`) into the binary, so the release binary runs alone.
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

    let target =
        PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("ui_assets.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
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
