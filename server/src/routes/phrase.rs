//! A phrase's own page, `/words/{id}`: the phrase large, who minted it, Share, and the
//! head that makes a link to it a card (Open Graph, Twitter, JSON-LD).

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::json;

use super::pages::{cached, html_error, not_found_page, page_response};
use crate::error::AppError;
use crate::feed::list::Phrase;
use crate::render::page_cache::{CachedPage, PageKey};
use crate::render::props::{PhraseProps, RenderRequest};
use crate::render::shell::{self, Head};
use crate::site;
use crate::state::AppState;
use crate::text::grapheme_count;

/// The page of the phrase whose document id is the path's last segment; 410 for one
/// removed while this process ran, 404 for any other id.
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
        None if state.page_cache.is_gone(&id) => StatusCode::GONE,
        None => StatusCode::NOT_FOUND,
    };
    match not_found_page(&state).await {
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
        let path = config.phrase_path(&phrase.id);
        let url = config.absolute_url(&path);
        let product = &config.product_name;
        let hashtag = format!("#myLast{product}");
        let (word, name) = (&phrase.word, &phrase.name);
        let length = grapheme_count(word);
        let characters = if length == 1 {
            "character"
        } else {
            "characters"
        };
        let image = config.absolute_url(&format!("{path}/card.png"));
        let structured_data = shell::inert_json(&json!({
            "@context": "https://schema.org",
            "@type": "CreativeWork",
            "name": word,
            "text": word,
            "url": url,
            "image": image,
            "author": { "@type": "Person", "name": name },
            "isPartOf": {
                "@type": "CollectionPage",
                "name": format!("Already-minted Last {product}"),
                "url": config.absolute_url(&config.words_path()),
            },
            "publisher": { "@type": "Organization", "name": site::NAME, "url": config.absolute_url("/") },
        }));
        let head = Head {
            title: site::title(&format!("“{word}” by {name}")),
            description: format!(
                "“{word}” ({length} {characters}): Last {product} minted by {name} in the {} community. {hashtag}",
                site::NAME
            ),
            canonical: url.clone(),
            indexable: true,
            image,
            image_alt: format!("“{word}”, Last {product} by {name}"),
            feed: None,
            structured_data: Some(structured_data),
            prev: None,
            next: None,
        };
        let props = PhraseProps {
            site: state.site_props(),
            version,
            post_url: config.post_url(&format!("“{word}” {hashtag}"), &url),
            url,
            phrase: phrase.clone(),
        };
        (head, RenderRequest::Phrase(props))
    };
    cached(state, key, page).await
}
