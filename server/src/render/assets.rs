//! The built UI, embedded at compile time: the server bundle, the manifest naming the
//! hashed client files, and every static asset with its precompressed variants. In
//! development (`--ui-dir`) the bundle, the manifest and the assets are read from a
//! build's folder instead, and [`CurrentUi`] is replaced whenever a new build lands there.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use bytes::Bytes;
use serde::Deserialize;

/// One file served under `/assets/`.
#[derive(Debug)]
pub struct EmbeddedAsset {
    /// The path below `/assets/`, content-hashed where it may be cached for a year.
    pub path: &'static str,
    pub body: &'static [u8],
    /// Brotli-compressed at build time, when smaller.
    pub br: Option<&'static [u8]>,
    /// Gzip-compressed at build time, when smaller.
    pub gzip: Option<&'static [u8]>,
}

/// What the phrase cards are drawn on and with (`ui/dist/card`).
#[derive(Debug)]
pub struct CardArt {
    /// The 1200×630 backdrop every card shares.
    pub backdrop: &'static str,
    /// A hash of the backdrop and the fonts, part of every card's ETag.
    pub version: &'static str,
    /// TrueType faces, each brotli-compressed, in the order the layout falls back
    /// through them: the display face first.
    pub fonts: &'static [&'static [u8]],
}

include!(concat!(env!("OUT_DIR"), "/ui_assets.rs"));

/// Names of the hashed client files, written by `ui/build.mjs`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Manifest {
    /// The client entry module.
    pub js: String,
    /// The one stylesheet.
    pub css: String,
    /// Modules the entry imports, worth preloading.
    #[serde(default)]
    pub preload: Vec<String>,
    /// The modules each island imports on demand (the list's, a phrase's), by island name:
    /// preloaded by the pages that have the island, fetched by no other.
    #[serde(default)]
    pub islands: BTreeMap<String, Vec<String>>,
    /// Fonts the stylesheet uses on every page, preloaded so the first paint has them.
    #[serde(default)]
    pub fonts: Vec<String>,
    /// Every picture's content-hashed file under `/assets/`, by name (`dino-3`).
    #[serde(default)]
    pub art: BTreeMap<String, String>,
}

/// What the host needs from the UI build, checked when it is loaded.
#[derive(Debug, Clone)]
pub struct Ui {
    /// What every renderer thread loads: `server.js`.
    pub server_bundle: Arc<str>,
    pub manifest: Manifest,
    /// The square icon, served as the SVG favicon.
    pub icon_svg: &'static str,
    /// The Open Graph art, drawn as `/og.png` (`render::raster`).
    pub og_svg: &'static str,
    /// What the phrase cards are drawn on and with.
    pub card: CardSources,
    /// Where the files under `/assets/` come from.
    assets: Assets,
}

/// The files served under `/assets/`.
#[derive(Debug, Clone)]
enum Assets {
    /// Built into the binary: [`find`].
    Embedded,
    /// Read from a build's folder when it was loaded, by path below `assets/`: a
    /// snapshot, so a build being written meanwhile never shows half.
    Read {
        folder: PathBuf,
        files: Arc<HashMap<String, Bytes>>,
    },
}

/// One file under `/assets/`: its body, and its precompressed variants where the build
/// made them (the binary's; a development build makes none).
#[derive(Debug, Clone)]
pub struct AssetBody {
    pub body: Bytes,
    pub br: Option<Bytes>,
    pub gzip: Option<Bytes>,
}

/// The phrase cards' backdrop and fonts, and the Dinos they may show.
#[derive(Debug, Clone)]
pub struct CardSources {
    pub art: &'static CardArt,
    /// Each minted Dino's picture (`dino-1`, `dino-2`, ...), in number order, as its
    /// content-hashed file name and SVG.
    pub dinos: Vec<(String, &'static [u8])>,
}

impl Ui {
    /// The embedded UI, or a message telling the operator how to build it.
    pub fn embedded() -> Result<Ui, String> {
        let (Some(server_bundle), Some(manifest), Some(icon_svg), Some(og_svg), Some(card_art)) =
            (SERVER_BUNDLE, MANIFEST, ICON_SVG, OG_SVG, CARD_ART.as_ref())
        else {
            return Err(
                "the UI (with its art) is not built into this binary: run scripts/build (or `npm run build` in ui/) and build again"
                    .into(),
            );
        };
        let manifest = parse_manifest(manifest, "ui/dist/manifest.json", |file| {
            find(file).is_some()
        })?;
        let mut dinos = Vec::new();
        for (number, file) in dino_files(&manifest) {
            // Present: `parse_manifest` checked every file it names.
            if let Some(asset) = find(file) {
                dinos.push((number, file.clone(), asset.body));
            }
        }
        if dinos.is_empty() {
            return Err("the UI build has no Dino art (dino-N) for the phrase cards".into());
        }
        dinos.sort_by_key(|(number, _, _)| *number);
        let card = CardSources {
            art: card_art,
            dinos: dinos
                .into_iter()
                .map(|(_, file, svg)| (file, svg))
                .collect(),
        };
        Ok(Ui {
            server_bundle: server_bundle.into(),
            manifest,
            icon_svg,
            og_svg,
            card,
            assets: Assets::Embedded,
        })
    }

    /// The build `ui/build.mjs` (or `ui/dev.mjs`) wrote into `folder`: its server
    /// bundle, manifest and `assets/`. The icons and the phrase cards' art stay the
    /// binary's (drawn from its SVG and fonts once per process, not on every edit), so
    /// the binary must embed a build too.
    pub fn from_folder(folder: &Path) -> Result<Ui, String> {
        let embedded = Ui::embedded()?;
        let read = |name: &str| {
            let path = folder.join(name);
            std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))
        };
        // The manifest first: a build writes it last, so the bundle and assets read
        // after it are at least as new as it is.
        let manifest = read("manifest.json")?;
        let server_bundle = read("server.js")?;
        let mut files = HashMap::new();
        read_assets(&folder.join("assets"), &folder.join("assets"), &mut files)?;
        let where_from = folder.join("manifest.json").display().to_string();
        let manifest = parse_manifest(&manifest, &where_from, |file| files.contains_key(file))?;
        Ok(Ui {
            server_bundle: server_bundle.into(),
            manifest,
            assets: Assets::Read {
                folder: folder.to_owned(),
                files: Arc::new(files),
            },
            ..embedded
        })
    }

    /// The build in `folder` when one is given (`--ui-dir`), else the binary's.
    pub fn load(folder: Option<&Path>) -> Result<Ui, String> {
        match folder {
            Some(folder) => Ui::from_folder(folder),
            None => Ui::embedded(),
        }
    }

    /// The folder this UI was read from, if it was not the binary's.
    pub fn folder(&self) -> Option<&Path> {
        match &self.assets {
            Assets::Embedded => None,
            Assets::Read { folder, .. } => Some(folder),
        }
    }

    /// The file at `path` below `/assets/`, if the build has it.
    pub fn asset(&self, path: &str) -> Option<AssetBody> {
        match &self.assets {
            Assets::Embedded => find(path).map(|asset| AssetBody {
                body: Bytes::from_static(asset.body),
                br: asset.br.map(Bytes::from_static),
                gzip: asset.gzip.map(Bytes::from_static),
            }),
            Assets::Read { files, .. } => files.get(path).map(|body| AssetBody {
                body: body.clone(),
                br: None,
                gzip: None,
            }),
        }
    }
}

/// `text` as a manifest whose every named file `exists`, or what is wrong with it.
fn parse_manifest(
    text: &str,
    where_from: &str,
    exists: impl Fn(&str) -> bool,
) -> Result<Manifest, String> {
    let manifest: Manifest =
        serde_json::from_str(text).map_err(|e| format!("{where_from} is not valid: {e}"))?;
    let named = [&manifest.js, &manifest.css]
        .into_iter()
        .chain(&manifest.preload)
        .chain(manifest.islands.values().flatten())
        .chain(&manifest.fonts)
        .chain(manifest.art.values());
    for file in named {
        if !exists(file) {
            return Err(format!(
                "{where_from} names {file}, which is not in the build's assets"
            ));
        }
    }
    Ok(manifest)
}

/// The manifest's Dino pictures (`dino-3`), with their numbers.
fn dino_files(manifest: &Manifest) -> impl Iterator<Item = (u32, &String)> {
    manifest.art.iter().filter_map(|(name, file)| {
        let number = name.strip_prefix("dino-")?.parse::<u32>().ok()?;
        Some((number, file))
    })
}

/// Every file below `dir`, keyed by its path below `root` with `/` between folders.
/// A file gone between the listing and the read is left out: the build that removed
/// it no longer names it.
fn read_assets(root: &Path, dir: &Path, files: &mut HashMap<String, Bytes>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            read_assets(root, &path, files)?;
            continue;
        }
        let Ok(relative) = path.strip_prefix(root) else {
            continue;
        };
        let key = relative
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        match std::fs::read(&path) {
            Ok(body) => {
                files.insert(key, Bytes::from(body));
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(format!("cannot read {}: {error}", path.display())),
        }
    }
    Ok(())
}

/// The UI pages are rendered with and `/assets/` served from. The binary's build is
/// fixed for the life of the process and read with no lock; a build read from a folder
/// (development) sits behind a lock so [`CurrentUi::replace`] can swap it whole.
#[derive(Debug, Clone)]
pub enum CurrentUi {
    Fixed(Arc<Ui>),
    Replaceable(Arc<RwLock<Arc<Ui>>>),
}

impl CurrentUi {
    /// Fixed for the binary's build, replaceable for one read from a folder.
    pub fn new(ui: Ui) -> Self {
        match ui.folder() {
            None => CurrentUi::Fixed(Arc::new(ui)),
            Some(_) => CurrentUi::Replaceable(Arc::new(RwLock::new(Arc::new(ui)))),
        }
    }

    /// The build as it is now.
    pub fn get(&self) -> Arc<Ui> {
        match self {
            CurrentUi::Fixed(ui) => ui.clone(),
            CurrentUi::Replaceable(ui) => match ui.read() {
                Ok(ui) => ui.clone(),
                Err(poisoned) => poisoned.into_inner().clone(),
            },
        }
    }

    /// Serves `ui` from now on; the binary's build is never replaced.
    pub fn replace(&self, ui: Ui) {
        if let CurrentUi::Replaceable(current) = self {
            let ui = Arc::new(ui);
            match current.write() {
                Ok(mut current) => *current = ui,
                Err(poisoned) => *poisoned.into_inner() = ui,
            }
        }
    }
}

/// The asset at `path` (below `/assets/`), if it exists.
pub fn find(path: &str) -> Option<&'static EmbeddedAsset> {
    static INDEX: OnceLock<HashMap<&'static str, &'static EmbeddedAsset>> = OnceLock::new();
    INDEX
        .get_or_init(|| ASSETS.iter().map(|asset| (asset.path, asset)).collect())
        .get(path)
        .copied()
}

/// The media type of an asset, from its extension.
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("webp") => "image/webp",
        Some("avif") => "image/avif",
        Some("ico") => "image/x-icon",
        Some("woff2") => "font/woff2",
        Some("json") => "application/json",
        Some("webmanifest") => "application/manifest+json",
        Some("txt") => "text/plain; charset=utf-8",
        Some("xml") => "application/xml",
        _ => "application/octet-stream",
    }
}
