//! What crawlers, link previews and app launchers fetch besides the pages.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};

use crate::common::{TestHost, bytes};

const BASE: &str = "http://127.0.0.1:8080";

async fn fetch(host: &TestHost, path: &str) -> (axum::http::Response<()>, Vec<u8>) {
    let request = Request::get(path).body(Body::empty()).unwrap();
    let (response, body) = bytes(host.send(request).await).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    (response, body)
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG signature");
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[tokio::test]
async fn robots_and_sitemap_point_crawlers_at_every_page_with_absolute_urls() {
    let host = TestHost::start(None).await;
    let (response, robots) = fetch(&host, "/robots.txt").await;
    assert_eq!(
        response.headers()[header::CONTENT_TYPE],
        "text/plain; charset=utf-8"
    );
    let robots = String::from_utf8(robots).unwrap();
    assert!(robots.contains("User-agent: *"));
    assert!(
        robots.contains("Disallow: /api/"),
        "the API is not for crawling"
    );
    assert!(robots.contains(&format!("Sitemap: {BASE}/sitemap.xml")));

    let (_, sitemap) = fetch(&host, "/sitemap.xml").await;
    let sitemap = String::from_utf8(sitemap).unwrap();
    assert!(sitemap.starts_with("<?xml"));
    assert!(sitemap.contains(&format!("<loc>{BASE}/</loc>")));
    assert!(sitemap.contains(&format!("<loc>{BASE}/words</loc>")));
    // The two pages and the six sample phrases' pages, each with a lastmod.
    assert_eq!(sitemap.matches("<url>").count(), 8);
    assert_eq!(sitemap.matches("<lastmod>").count(), 6);
    assert!(sitemap.contains(&format!("<loc>{BASE}/words/0Fq8dkZ2sVt1mYw3Lr7a</loc>")));
}

#[tokio::test]
async fn the_web_app_manifest_names_icons_that_exist() {
    let host = TestHost::start(None).await;
    let (response, manifest) = fetch(&host, "/manifest.webmanifest").await;
    assert_eq!(
        response.headers()[header::CONTENT_TYPE],
        "application/manifest+json"
    );
    let manifest: serde_json::Value = serde_json::from_slice(&manifest).unwrap();
    assert_eq!(manifest["short_name"], "Dinos");
    assert_eq!(manifest["start_url"], "/");
    let icons = manifest["icons"].as_array().unwrap();
    for icon in icons {
        let src = icon["src"].as_str().unwrap();
        let (response, body) = fetch(&host, src).await;
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            icon["type"].as_str().unwrap()
        );
        if let Some((w, h)) = icon["sizes"].as_str().unwrap().split_once('x') {
            assert_eq!(
                png_size(&body),
                (w.parse().unwrap(), h.parse().unwrap()),
                "{src}"
            );
        }
    }
    assert!(icons.iter().any(|icon| icon["sizes"] == "512x512"));
}

#[tokio::test]
async fn icons_and_the_link_preview_image_are_rasterised_at_their_sizes() {
    let host = TestHost::start(None).await;
    let (response, og) = fetch(&host, "/og.png").await;
    assert_eq!(response.headers()[header::CONTENT_TYPE], "image/png");
    assert_eq!(png_size(&og), (1200, 630));
    let (_, touch) = fetch(&host, "/apple-touch-icon.png").await;
    assert_eq!(png_size(&touch), (180, 180));

    let (response, ico) = fetch(&host, "/favicon.ico").await;
    assert_eq!(response.headers()[header::CONTENT_TYPE], "image/x-icon");
    assert_eq!(&ico[..4], &[0, 0, 1, 0], "an ICO header");
    assert_eq!(u16::from_le_bytes([ico[4], ico[5]]), 2, "16 and 32 px");
    let (response, svg) = fetch(&host, "/favicon.svg").await;
    assert_eq!(response.headers()[header::CONTENT_TYPE], "image/svg+xml");
    assert!(String::from_utf8(svg).unwrap().contains("<svg"));
}

#[tokio::test]
async fn fixed_name_files_revalidate_by_etag() {
    let host = TestHost::start(None).await;
    let (response, _) = fetch(&host, "/og.png").await;
    assert_eq!(
        response.headers()[header::CACHE_CONTROL],
        "public, max-age=60",
        "staging keeps them a minute"
    );
    let etag = response.headers()[header::ETAG].clone();
    let request = Request::get("/og.png")
        .header(header::IF_NONE_MATCH, etag)
        .body(Body::empty())
        .unwrap();
    let not_modified = host.send(request).await;
    assert_eq!(not_modified.status(), StatusCode::NOT_MODIFIED);
    // A post elsewhere may show the preview image; a 304's headers replace the cached
    // response's, so it says so too. The icons stay ours alone.
    for headers in [response.headers(), not_modified.headers()] {
        assert_eq!(headers["cross-origin-resource-policy"], "cross-origin");
    }
    let (icon, _) = fetch(&host, "/icon-192.png").await;
    assert_eq!(
        icon.headers()["cross-origin-resource-policy"],
        "same-origin"
    );
}

#[tokio::test]
async fn pages_describe_themselves_to_link_previews_and_search_engines() {
    let host = TestHost::start(None).await;
    let (_, home) = host.get("/").await;
    for tag in [
        format!("<meta property=\"og:image\" content=\"{BASE}/og.png\">"),
        "<meta property=\"og:image:width\" content=\"1200\">".into(),
        "<meta name=\"twitter:card\" content=\"summary_large_image\">".into(),
        "<link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">".into(),
        "<link rel=\"apple-touch-icon\" href=\"/apple-touch-icon.png\">".into(),
        "<link rel=\"manifest\" href=\"/manifest.webmanifest\">".into(),
    ] {
        assert!(home.contains(&tag), "{tag}");
    }
    let start = home
        .find("<script type=\"application/ld+json\">")
        .expect("JSON-LD on /")
        + "<script type=\"application/ld+json\">".len();
    let end = start + home[start..].find("</script>").unwrap();
    let data: serde_json::Value = serde_json::from_str(&home[start..end]).unwrap();
    assert_eq!(data["@type"], "Organization");
    assert_eq!(data["url"], format!("{BASE}/"));
    assert_eq!(data["sameAs"].as_array().unwrap().len(), 4);

    let (_, words) = host.get("/words").await;
    assert!(words.contains("og:image"));
    assert!(
        !words.contains("application/ld+json"),
        "the organisation is described once, on /"
    );
}

#[tokio::test]
async fn production_lets_caches_keep_fixed_name_files_for_a_day() {
    let host = TestHost::start_with(None, |config| {
        config.environment = lastwords::config::Environment::Production;
    })
    .await;
    let (response, _) = fetch(&host, "/robots.txt").await;
    assert_eq!(
        response.headers()[header::CACHE_CONTROL],
        "public, max-age=86400"
    );
}

#[tokio::test]
async fn the_404_page_asks_not_to_be_indexed_and_claims_no_canonical_url() {
    let host = TestHost::start(None).await;
    let (_, html) = host.get("/no/such/page").await;
    assert!(html.contains("<meta name=\"robots\" content=\"noindex\">"));
    assert!(!html.contains("rel=\"canonical\"") && !html.contains("og:url"));
    assert!(html.contains("Nothing lives here."));
}

#[tokio::test]
async fn every_file_in_assets_is_served_at_its_path_as_it_is() {
    let host = TestHost::start(None).await;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets");
    let mut served = 0;
    for entry in std::fs::read_dir(&root).unwrap().flatten() {
        let name = entry.file_name().into_string().unwrap();
        let (response, body) = fetch(&host, &format!("/{name}")).await;
        assert_eq!(body, std::fs::read(entry.path()).unwrap(), "{name}");
        assert!(response.headers().contains_key(header::ETAG));
        served += 1;
    }
    assert!(served > 0, "assets/ holds the site's static files");
    let (response, humans) = fetch(&host, "/humans.txt").await;
    assert_eq!(
        response.headers()[header::CONTENT_TYPE],
        "text/plain; charset=utf-8"
    );
    assert!(
        String::from_utf8(humans)
            .unwrap()
            .contains("Open Font License")
    );
}
