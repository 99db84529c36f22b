//! A phrase's own page, `/words/{id}`: the phrase large, who minted it, Share, and the
//! head that makes a link to it a card ([`Head::phrase`]).

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;

use super::pages::{html_error, not_found_page, page_response, removed_page};
use crate::error::AppError;
use crate::feed::list::Phrase;
use crate::render::head::Head;
use crate::render::page_cache::{CachedPage, PageKey};
use crate::render::props::{PhraseProps, RenderRequest};
use crate::site;
use crate::state::AppState;

/// The page of the phrase whose document id is the path's last segment; 410 for one
/// removed (while this process ran, or before on the embedded store), 404 for any other id.
pub async fn phrase(
    State(state): State<AppState>,
    headers: HeaderMap,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let snapshot = state.feed.current();
    let id = id.map(|Path(id)| id).unwrap_or_default();
    let status = match snapshot.list.get(&id) {
        Some(phrase) => {
            return match phrase_page(&state, snapshot.version, phrase.clone()).await {
                Ok(page) => page_response(&state, StatusCode::OK, &headers, page).await,
                Err(error) => html_error(&state, error),
            };
        }
        None if !snapshot.loaded => {
            return html_error(
                &state,
                AppError::Unavailable("the list of phrases has not loaded yet"),
            );
        }
        None if state.pages.cache().is_gone(&id) => StatusCode::GONE,
        None => StatusCode::NOT_FOUND,
    };
    let page = if status == StatusCode::GONE {
        removed_page(&state).await
    } else {
        not_found_page(&state).await
    };
    match page {
        Ok(page) => page_response(&state, status, &headers, page).await,
        Err(error) => html_error(&state, error),
    }
}

async fn phrase_page(
    state: &AppState,
    version: u64,
    phrase: Arc<Phrase>,
) -> Result<Arc<CachedPage>, AppError> {
    let key = PageKey::Phrase(phrase.clone());
    let page = || {
        let config = &state.config.site;
        let url = config.absolute_url(&config.phrase_path(&phrase.id));
        let head = Head::phrase(config, &phrase, &url);
        // Isolated as in the title: a right-to-left phrase would otherwise turn the whole
        // post, hashtag first.
        let post = format!(
            "“{}” {}",
            crate::render::head::isolated(&phrase.word),
            site::hashtag(&config.product_name)
        );
        let props = PhraseProps {
            site: state.site_props(),
            version,
            post_url: config.post_url(&post, &url),
            url,
            phrase: phrase.clone(),
        };
        (head, RenderRequest::Phrase(props))
    };
    state.pages.cached(key, page).await
}
