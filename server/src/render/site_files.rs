//! The files crawlers, browsers and link previews fetch by well-known names:
//! `robots.txt` (the sitemap itself lists phrases: [`crate::render::listings`]), the web app manifest, the favicon and icons, and the
//! Open Graph image, built once from the configuration; and the site's own static
//! files from the top-level `assets/` (such as `humans.txt`), served as they are.
//! None of them depends on data.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::json;
use tokio::sync::OnceCell;

use crate::config::{Config, Environment, Site};
use crate::net::headers;
use crate::render::negotiate;
use crate::render::raster::RasterImages;
use crate::site;

/// Paths the pages link to; the shell and the manifest name them.
pub const OG_IMAGE: &str = "/og.png";
pub const FAVICON_SVG: &str = "/favicon.svg";
pub const FAVICON_ICO: &str = "/favicon.ico";
pub const APPLE_TOUCH_ICON: &str = "/apple-touch-icon.png";
pub const ICON_192: &str = "/icon-192.png";
pub const ICON_512: &str = "/icon-512.png";
pub const WEB_MANIFEST: &str = "/manifest.webmanifest";
/// The Atom feed of the newest phrases.
pub const ATOM_FEED: &str = "/feed.atom";

/// The generated files with their media types, ready to serve.
#[derive(Debug)]
pub struct SiteFiles {
    files: Vec<File>,
    /// The icons and the Open Graph image, drawn when one is first asked for: most
    /// processes (a test's host, a replica behind a CDN) never are, and drawing takes a
    /// tenth of a second of CPU in the debug build.
    drawn: OnceCell<Result<Vec<File>, String>>,
    art: (&'static str, &'static str),
    /// A day in production; a minute in staging, where the art and URLs change often.
    cache_control: HeaderValue,
}

#[derive(Debug)]
struct File {
    path: &'static str,
    content_type: &'static str,
    body: Bytes,
    etag: String,
}

impl File {
    fn new(path: &'static str, content_type: &'static str, body: Bytes) -> File {
        File {
            path,
            content_type,
            etag: negotiate::strong_etag(&body),
            body,
        }
    }
}

/// The drawn files, in the order [`SiteFiles::paths`] lists them after the others.
type Drawn = (&'static str, &'static str, fn(&RasterImages) -> &Bytes);
const DRAWN: [Drawn; 5] = [
    (FAVICON_ICO, "image/x-icon", |images| &images.favicon_ico),
    (APPLE_TOUCH_ICON, "image/png", |images| {
        &images.apple_touch_icon
    }),
    (ICON_192, "image/png", |images| &images.icon_192),
    (ICON_512, "image/png", |images| &images.icon_512),
    (OG_IMAGE, "image/png", |images| &images.og),
];

impl SiteFiles {
    pub fn new(config: &Config, icon_svg: &'static str, og_svg: &'static str) -> Self {
        let text = |body: String| Bytes::from(body);
        let files = [
            (
                "/robots.txt",
                "text/plain; charset=utf-8",
                text(robots(&config.site)),
            ),
            (
                WEB_MANIFEST,
                "application/manifest+json",
                text(web_manifest(&config.site)),
            ),
            (
                FAVICON_SVG,
                "image/svg+xml",
                Bytes::from_static(icon_svg.as_bytes()),
            ),
        ]
        .into_iter()
        .chain(
            crate::render::assets::STATIC_FILES
                .iter()
                .map(|&(path, body)| (path, media_type(path), Bytes::from_static(body))),
        )
        .map(|(path, content_type, body)| File::new(path, content_type, body))
        .collect();
        let cache_control = HeaderValue::from_static(match config.environment {
            Environment::Production => "public, max-age=86400",
            Environment::Staging => "public, max-age=60",
        });
        Self {
            files,
            drawn: OnceCell::new(),
            art: (icon_svg, og_svg),
            cache_control,
        }
    }

    /// The path of each file, in the order [`SiteFiles::response`] numbers them.
    pub fn paths(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.files
            .iter()
            .map(|file| file.path)
            .chain(DRAWN.iter().map(|(path, _, _)| *path))
    }

    /// File `index` with its ETag and cache lifetime, or 304 when the client has it.
    pub async fn response(&self, index: usize, headers: &HeaderMap) -> Response {
        let file = match index.checked_sub(self.files.len()) {
            None => self.files.get(index),
            Some(drawn) => match self.drawn().await {
                Ok(files) => files.get(drawn),
                Err(error) => {
                    tracing::error!(%error, "cannot draw the icons");
                    return StatusCode::INTERNAL_SERVER_ERROR.into_response();
                }
            },
        };
        match file {
            Some(file) => file.response(headers, &self.cache_control),
            None => StatusCode::NOT_FOUND.into_response(),
        }
    }

    async fn drawn(&self) -> &Result<Vec<File>, String> {
        let (icon_svg, og_svg) = self.art;
        self.drawn
            .get_or_init(|| async move {
                let images =
                    tokio::task::spawn_blocking(move || RasterImages::draw(icon_svg, og_svg))
                        .await
                        .map_err(|e| format!("drawing stopped: {e}"))??;
                Ok(DRAWN
                    .iter()
                    .map(|&(path, content_type, body)| {
                        File::new(path, content_type, body(&images).clone())
                    })
                    .collect())
            })
            .await
    }
}

impl File {
    fn response(&self, headers: &HeaderMap, cache: &HeaderValue) -> Response {
        let etag = HeaderValue::from_str(&self.etag).unwrap_or(HeaderValue::from_static("\"\""));
        let mut response = if negotiate::not_modified(headers, &self.etag) {
            StatusCode::NOT_MODIFIED.into_response()
        } else {
            let mut response = self.body.clone().into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(self.content_type),
            );
            response
        };
        let out = response.headers_mut();
        out.insert(header::ETAG, etag);
        out.insert(header::CACHE_CONTROL, cache.clone());
        if self.path == OG_IMAGE {
            headers::embeddable(out);
        }
        response
    }
}

/// The media type of a static file, by its extension.
fn media_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, extension)| extension) {
        Some("txt") => "text/plain; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    }
}

fn robots(site: &Site) -> String {
    format!(
        "User-agent: *\nAllow: /\nDisallow: /api/\n\nSitemap: {}\n",
        site.absolute_url("/sitemap.xml")
    )
}

fn web_manifest(site: &Site) -> String {
    let manifest = json!({
        "name": site::APP_NAME,
        "short_name": site::NAME,
        "description": site::APP_DESCRIPTION,
        "start_url": "/",
        "scope": "/",
        "display": "browser",
        "background_color": "#000000",
        "theme_color": "#000000",
        "icons": [
            { "src": ICON_192, "sizes": "192x192", "type": "image/png" },
            { "src": ICON_512, "sizes": "512x512", "type": "image/png" },
            { "src": FAVICON_SVG, "sizes": "any", "type": "image/svg+xml" },
        ],
        "shortcuts": [
            { "name": format!("Last {}", site.product_name), "url": site.words_path() },
        ],
    });
    serde_json::to_string_pretty(&manifest).unwrap_or_default()
}
