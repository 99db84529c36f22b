//! The built UI, embedded at compile time: the server bundle, the manifest naming the
//! hashed client files, and every static asset with its precompressed variants.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

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

/// The UI's icon and Open Graph art, rasterised by the build script.
#[derive(Debug)]
pub struct RasterImages {
    /// 1200×630, for link previews.
    pub og: &'static [u8],
    /// For the web app manifest.
    pub icon_192: &'static [u8],
    pub icon_512: &'static [u8],
    /// 180×180, what iOS puts on a home screen.
    pub apple_touch_icon: &'static [u8],
    /// 16 and 32 px, for browsers that ask for `/favicon.ico` whatever the page says.
    pub favicon_ico: &'static [u8],
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
    /// Fonts the stylesheet uses on every page, preloaded so the first paint has them.
    #[serde(default)]
    pub fonts: Vec<String>,
    /// Every picture's content-hashed file under `/assets/`, by name (`dino-3`).
    #[serde(default)]
    pub art: BTreeMap<String, String>,
}

/// What the host needs from the UI build, checked once at start.
#[derive(Debug, Clone)]
pub struct Ui {
    pub server_bundle: &'static str,
    pub manifest: Manifest,
    /// The square icon, served as the SVG favicon.
    pub icon_svg: &'static str,
    /// The icon and Open Graph art as PNG and ICO.
    pub images: &'static RasterImages,
    /// What the phrase cards are drawn on and with.
    pub card: CardSources,
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
        let (Some(server_bundle), Some(manifest), Some(icon_svg), Some(images), Some(card_art)) = (
            SERVER_BUNDLE,
            MANIFEST,
            ICON_SVG,
            RASTER_IMAGES.as_ref(),
            CARD_ART.as_ref(),
        ) else {
            return Err(
                "the UI (with its art) is not built into this binary: run scripts/build (or `npm run build` in ui/) and build again"
                    .into(),
            );
        };
        let manifest: Manifest = serde_json::from_str(manifest)
            .map_err(|e| format!("ui/dist/manifest.json is not valid: {e}"))?;
        for file in [&manifest.js, &manifest.css]
            .into_iter()
            .chain(&manifest.preload)
        {
            if find(file).is_none() {
                return Err(format!(
                    "the manifest names {file}, which is not in ui/dist/assets"
                ));
            }
        }
        let mut dinos = Vec::new();
        for (name, file) in &manifest.art {
            let Some(number) = name
                .strip_prefix("dino-")
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let asset = find(file).ok_or_else(|| {
                format!("the manifest names {file}, which is not in ui/dist/assets")
            })?;
            dinos.push((number, file.clone(), asset.body));
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
            server_bundle,
            manifest,
            icon_svg,
            images,
            card,
        })
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
