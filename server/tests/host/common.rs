//! Builds a whole host (real renderer, real UI bundle, embedded store) for tests.

use std::num::NonZeroU32;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, Response};
use http_body_util::BodyExt as _;
use lastwords::config::{Config, Settings};
use lastwords::feed::Phrase;
use lastwords::net::client::ClientAddr;
use lastwords::net::rate_limit::Rate;
use lastwords::render::assets::Ui;
use lastwords::routes;
use lastwords::state::AppState;
use lastwords::store::embedded::{EmbeddedStore, LEGACY_FILE_NAME, Seed};
use tower::ServiceExt as _;

pub struct TestHost {
    pub state: AppState,
    pub router: Router,
    _data: tempfile::TempDir,
}

impl TestHost {
    /// A host on the sample phrases, or on `phrases` when given.
    pub async fn start(phrases: Option<Vec<Phrase>>) -> TestHost {
        Self::start_with(phrases, |_| {}).await
    }

    /// A host whose rate limit lets a client ask `per_second` times a second after a
    /// burst of `burst`.
    pub async fn rate_limited(per_second: u32, burst: u32) -> TestHost {
        let rate = Rate {
            per_second: NonZeroU32::new(per_second).expect("a rate"),
            burst: NonZeroU32::new(burst).expect("a burst"),
        };
        Self::start_with(None, |config| config.http.rate = Some(rate)).await
    }

    /// A host whose test configuration `adjust` changes first.
    pub async fn start_with(
        phrases: Option<Vec<Phrase>>,
        adjust: impl FnOnce(&mut Config),
    ) -> TestHost {
        Self::start_full(phrases, adjust, embedded_ui()).await
    }

    /// A host whose renderers run `bundle` instead of the UI's server bundle.
    pub async fn start_with_bundle(bundle: &'static str) -> TestHost {
        let mut ui = embedded_ui();
        ui.server_bundle = bundle.into();
        Self::start_full(None, |_| {}, ui).await
    }

    /// A host on `ui`, such as a build read from a folder.
    pub async fn start_with_ui(ui: Ui) -> TestHost {
        Self::start_full(None, |_| {}, ui).await
    }

    async fn start_full(
        phrases: Option<Vec<Phrase>>,
        adjust: impl FnOnce(&mut Config),
        ui: Ui,
    ) -> TestHost {
        let data = tempfile::tempdir().expect("a temporary folder");
        if let Some(phrases) = phrases {
            let json = serde_json::to_string(&phrases).expect("phrases serialise");
            // The legacy file is imported, ids and all, when the store is created.
            std::fs::write(data.path().join(LEGACY_FILE_NAME), json).expect("write phrases");
        }
        let mut config = Settings {
            data_dir: Some(data.path().to_owned()),
            render_threads: Some(1),
            ..Settings::default()
        }
        .resolve()
        .expect("the defaults are valid");
        adjust(&mut config);
        // Production serves only a store made before (no sample phrases made up).
        EmbeddedStore::open_or_create(data.path(), Seed::Samples).expect("the store is made");
        let config = Arc::new(config);
        let state = lastwords::app::start(config, ui)
            .await
            .expect("the app starts");
        TestHost {
            router: routes::router(state.clone()),
            state,
            _data: data,
        }
    }

    pub async fn send(&self, request: Request<Body>) -> Response<Body> {
        self.router
            .clone()
            .oneshot(request)
            .await
            .expect("the router never fails")
    }

    /// `/metrics` as Prometheus on the same machine reads it (a request without a client,
    /// as only these tests make, may not).
    pub async fn scrape(&self) -> (Response<()>, String) {
        let mut request = Request::get("/metrics").body(Body::empty()).unwrap();
        let loopback = std::net::Ipv4Addr::LOCALHOST.into();
        request.extensions_mut().insert(ClientAddr(loopback));
        text(self.send(request).await).await
    }

    pub async fn get(&self, uri: &str) -> (Response<()>, String) {
        let response = self
            .send(Request::get(uri).body(Body::empty()).unwrap())
            .await;
        text(response).await
    }
}

/// The UI built into the test binary.
pub fn embedded_ui() -> Ui {
    Ui::embedded().expect("the UI is built (run scripts/build or scripts/test)")
}

pub async fn text(response: Response<Body>) -> (Response<()>, String) {
    let (head, body) = bytes(response).await;
    (head, String::from_utf8(body).expect("bodies are UTF-8"))
}

/// The text between the first `start` in `html` and the `end` after it.
pub fn between<'a>(html: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = html.find(start)? + start.len();
    let to = html[from..].find(end)?;
    Some(&html[from..from + to])
}

pub fn phrase(id: &str, word: &str, name: &str) -> Phrase {
    Phrase {
        id: id.into(),
        word: word.into(),
        name: name.into(),
        created: 0,
        edited: 0,
    }
}

pub async fn bytes(response: Response<Body>) -> (Response<()>, Vec<u8>) {
    let (parts, body) = response.into_parts();
    let bytes = body
        .collect()
        .await
        .expect("the body is readable")
        .to_bytes();
    (Response::from_parts(parts, ()), bytes.to_vec())
}
