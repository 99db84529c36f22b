//! A host on a UI build's folder (`--ui-dir`, what scripts/dev runs): it serves that
//! build, takes up each new one written there from the next request on, with no
//! restart, and goes on serving the last good one when a new bundle does not load.

use std::path::Path;
use std::time::{Duration, Instant};

use lastwords::render::assets::{ASSETS, MANIFEST, SERVER_BUNDLE, Ui};

use crate::common::TestHost;

/// The copy the builds below change in the server bundle.
const EYEBROW: &str = "NFTs for the climate";

#[tokio::test]
async fn each_new_build_in_the_folder_is_served_and_a_broken_one_is_not() {
    let bundle = SERVER_BUNDLE.expect("the UI is built (run scripts/build or scripts/test)");
    let manifest = MANIFEST.expect("the UI is built");
    assert!(bundle.contains(EYEBROW), "the bundle says {EYEBROW:?}");
    let folder = tempfile::tempdir().expect("a temporary folder");
    let folder = folder.path();
    write_build(folder, &bundle.replace(EYEBROW, "Build one"), manifest, &[]);
    let host =
        TestHost::start_with_ui(Ui::from_folder(folder).expect("the folder's build loads")).await;
    let (response, home) = host.get("/").await;
    assert_eq!(response.status(), 200);
    assert!(home.contains("Build one"), "{home}");

    // A new bundle and a stylesheet of another name: the page renders anew and links it.
    let mut next: serde_json::Value = serde_json::from_str(manifest).unwrap();
    next["css"] = "app-two.css".into();
    let two = serde_json::to_string(&next).unwrap();
    write_build(
        folder,
        &bundle.replace(EYEBROW, "Build two"),
        &two,
        &[("app-two.css", "/* two */")],
    );
    let home = served(&host, "/", "Build two").await;
    assert!(home.contains(r#"href="/assets/app-two.css""#), "{home}");
    assert_eq!(host.get("/assets/app-two.css").await.1, "/* two */");

    // A bundle that throws as it loads is refused: pages not rendered yet render with the
    // last good one. (The host looks at the manifest at least once a second.)
    write_build(folder, "throw new Error('half a bundle')", &two, &[]);
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (response, words) = host.get("/words").await;
    assert_eq!(response.status(), 200, "{words}");
    assert!(host.get("/").await.1.contains("Build two"));

    write_build(
        folder,
        &bundle.replace(EYEBROW, "Build three"),
        manifest,
        &[],
    );
    served(&host, "/", "Build three").await;
}

/// Writes a build into `folder` as ui/dev.mjs does: the assets (the binary's and `extra`),
/// the server bundle, and last the manifest, renamed into place.
fn write_build(folder: &Path, bundle: &str, manifest: &str, extra: &[(&str, &str)]) {
    let assets = folder.join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    for asset in ASSETS {
        std::fs::write(assets.join(asset.path), asset.body).unwrap();
    }
    for (name, text) in extra {
        std::fs::write(assets.join(name), text).unwrap();
    }
    std::fs::write(folder.join("server.js"), bundle).unwrap();
    let partial = folder.join("manifest.json.partial");
    std::fs::write(&partial, manifest).unwrap();
    std::fs::rename(&partial, folder.join("manifest.json")).unwrap();
}

/// `uri`'s page once it holds `text`, asked for every 20 ms for up to 10 s.
async fn served(host: &TestHost, uri: &str, text: &str) -> String {
    let started = Instant::now();
    loop {
        let (response, body) = host.get(uri).await;
        if response.status() == 200 && body.contains(text) {
            return body;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{uri} never showed {text:?}; last: {body}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
