//! `/{product}/{id}/card.png`: a phrase's card image, for link previews.

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::error::{AppError, refusal};
use crate::net::headers::{self, PreparedHead};
use crate::render::card::Card;
use crate::render::negotiate::not_modified;
use crate::state::AppState;

/// An hour: a crawler that shares a link soon after a change may keep the old card
/// that long, and asks again with the ETag after.
pub(super) const CACHE_CONTROL: HeaderValue = HeaderValue::from_static("public, max-age=3600");

pub async fn card(
    State(state): State<AppState>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, AppError> {
    let snapshot = state.feed.current();
    let Some(phrase) = snapshot.list.get(&id) else {
        // A preview asked for before the list has come is asked again, not dropped.
        if !snapshot.loaded {
            return Err(AppError::Unavailable(
                "the list of phrases has not loaded yet",
            ));
        }
        // As its page says: a crawler that kept the card's URL drops it.
        if state.pages.cache().is_gone(&id) {
            return Ok(refusal(StatusCode::GONE, "that phrase was removed"));
        }
        return Ok(refusal(StatusCode::NOT_FOUND, "no phrase has that id"));
    };
    let etag = state.cards.etag(phrase);
    if not_modified(&headers, &etag) {
        let mut response = StatusCode::NOT_MODIFIED.into_response();
        let out = response.headers_mut();
        out.insert(header::CACHE_CONTROL, CACHE_CONTROL);
        headers::embeddable(out);
        if let Ok(value) = HeaderValue::from_str(&etag) {
            out.insert(header::ETAG, value);
        }
        return Ok(response);
    }
    let card = state.cards.card(phrase).await?;
    let mut response = Response::new(Body::from(card.png.clone()));
    *response.headers_mut() = card_head(&card, state.config.hsts()).headers.clone();
    Ok(response)
}

/// Every header of a card's response but the Date, the security headers (HSTS when
/// `hsts`) too; made once per card.
pub(super) fn card_head(card: &Card, hsts: bool) -> &PreparedHead {
    card.head(|| {
        let mut out = HeaderMap::with_capacity(12);
        out.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/png"));
        out.insert(header::CACHE_CONTROL, CACHE_CONTROL);
        out.insert(header::ETAG, card.etag_header.clone());
        headers::embeddable(&mut out);
        headers::add_security_headers(&mut out, hsts);
        PreparedHead::new(out, card.png.len())
    })
}
