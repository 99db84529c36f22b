//! Golden SSR tests: a render request in (`golden/<case>.json`), React's markup out
//! (`golden/<case>.html`). After a deliberate UI change, refresh them with
//! `UPDATE_GOLDEN=1 cargo test --test host golden` and review the diff.

use std::path::PathBuf;
use std::time::Duration;

use lastwords::render::assets::Ui;
use lastwords::render::pool::{PoolOptions, RendererPool};

#[tokio::test]
async fn every_case_renders_exactly_its_golden_html() {
    let ui = Ui::embedded().expect("the UI is built (run scripts/build or scripts/test)");
    let pool = RendererPool::start(
        ui.server_bundle.clone(),
        PoolOptions {
            threads: 1,
            timeout: Duration::from_secs(5),
            queue: 8,
        },
    )
    .expect("the server bundle loads");
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    // In CI the goldens are what is checked, never what is written.
    assert!(
        !(update && std::env::var("CI").is_ok_and(|ci| ci == "true")),
        "UPDATE_GOLDEN is set with CI=true: refresh the golden files locally and commit them"
    );
    let mut cases = 0;
    for entry in std::fs::read_dir(&folder).expect("the golden folder exists") {
        let input = entry.expect("a readable entry").path();
        if input.extension().is_none_or(|ext| ext != "json") {
            continue;
        }
        cases += 1;
        let request = std::fs::read_to_string(&input).expect("a readable case");
        let html = pool
            .render(&ui.server_bundle, request)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", input.display()));
        let expected_path = input.with_extension("html");
        if update {
            std::fs::write(&expected_path, &html).expect("write the golden file");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_else(|_| {
            panic!(
                "{} is missing: run with UPDATE_GOLDEN=1",
                expected_path.display()
            )
        });
        assert_eq!(html, expected, "{} renders differently", input.display());
    }
    assert!(cases >= 3, "the golden cases went missing");
}
