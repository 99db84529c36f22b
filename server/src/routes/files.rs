//! Files served as they are: the UI build under `/assets/`, and the generated site
//! files (robots, sitemap, icons) at their fixed names.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::error::refusal;
use crate::render::assets;
use crate::render::negotiate::encoded;
use crate::render::site_files::SiteFiles;
use crate::state::AppState;

pub async fn asset(
    State(state): State<AppState>,
    Path(path): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(asset) = state.ui.get().asset(&path) else {
        return refusal(StatusCode::NOT_FOUND, "no such asset");
    };
    let (mut out, body) = encoded(&headers, asset.body, asset.gzip, asset.br);
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(assets::content_type(&path)),
    );
    out.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    (out, body).into_response()
}

/// A route for each site file, served with an ETag and a bounded cache lifetime: the
/// names are fixed (link previews and launchers keep them), so they cannot be immutable.
pub fn site_files(files: &SiteFiles) -> Router<AppState> {
    let mut router = Router::new();
    for (index, path) in files.paths().enumerate() {
        router = router.route(
            path,
            get(
                move |State(files): State<Arc<SiteFiles>>, headers: HeaderMap| async move {
                    files.response(index, &headers).await
                },
            ),
        );
    }
    router
}
