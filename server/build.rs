//! Embeds the built UI (`ui/dist`) and the static files of the top-level `assets/`
//! into the binary, so the release binary runs alone, and rasterises the UI's icon and
//! Open Graph art (`icon.svg`, `og.svg`) into the PNG and ICO files that browsers, app
//! launchers and link previews ask for. The phrase cards' backdrop and fonts
//! (`card/`) are embedded as they are: the host draws the cards at run time.
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
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    let images = raster_images(&dist, &out_dir);
    writeln!(
        out,
        "pub static RASTER_IMAGES: Option<RasterImages> = {images};"
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

/// A `RasterImages { .. }` expression, or `None` when the UI is not built.
fn raster_images(dist: &Path, out_dir: &Path) -> String {
    let (icon, og) = (dist.join("icon.svg"), dist.join("og.svg"));
    if !icon.is_file() || !og.is_file() {
        return "None".into();
    }
    let icon = load_svg(&icon);
    let og = load_svg(&og);
    let mut fields = String::new();
    for (field, tree, width, height) in [
        ("og", &og, 1200, 630),
        ("icon_192", &icon, 192, 192),
        ("icon_512", &icon, 512, 512),
        ("apple_touch_icon", &icon, 180, 180),
    ] {
        let path = out_dir.join(format!("{field}.png"));
        std::fs::write(&path, render_png(tree, width, height)).expect("OUT_DIR is writable");
        write!(
            fields,
            "{field}: include_bytes!({:?}), ",
            path.display().to_string()
        )
        .ok();
    }
    let favicon = out_dir.join("favicon.ico");
    std::fs::write(
        &favicon,
        ico(&[
            (&render_png(&icon, 32, 32), 32),
            (&render_png(&icon, 16, 16), 16),
        ]),
    )
    .expect("OUT_DIR is writable");
    write!(
        fields,
        "favicon_ico: include_bytes!({:?}), ",
        favicon.display().to_string()
    )
    .ok();
    format!("Some(RasterImages {{ {fields}}})")
}

fn load_svg(path: &Path) -> resvg::usvg::Tree {
    let data =
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    resvg::usvg::Tree::from_data(&data, &resvg::usvg::Options::default())
        .unwrap_or_else(|e| panic!("{} is not an SVG resvg can draw: {e}", path.display()))
}

/// The whole drawing scaled to `width`×`height`.
fn render_png(tree: &resvg::usvg::Tree, width: u32, height: u32) -> Vec<u8> {
    let mut pixmap = resvg::tiny_skia::Pixmap::new(width, height).expect("non-zero size");
    let size = tree.size();
    let transform = resvg::tiny_skia::Transform::from_scale(
        width as f32 / size.width(),
        height as f32 / size.height(),
    );
    resvg::render(tree, transform, &mut pixmap.as_mut());
    pixmap.encode_png().expect("a pixmap encodes as PNG")
}

/// An ICO file holding PNG images (supported by every browser since 2007).
fn ico(images: &[(&[u8], u8)]) -> Vec<u8> {
    let count = images.len() as u16;
    let mut out = Vec::new();
    out.extend_from_slice(&[0, 0, 1, 0]);
    out.extend_from_slice(&count.to_le_bytes());
    let mut offset = 6 + 16 * u32::from(count);
    for (png, size) in images {
        out.extend_from_slice(&[*size, *size, 0, 0]);
        out.extend_from_slice(&1u16.to_le_bytes()); // colour planes
        out.extend_from_slice(&32u16.to_le_bytes()); // bits per pixel
        out.extend_from_slice(&(png.len() as u32).to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        offset += png.len() as u32;
    }
    for (png, _) in images {
        out.extend_from_slice(png);
    }
    out
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
