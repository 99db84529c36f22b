//! Every outcome a client can see, and the one place that decides its status: the JSON
//! answer here and the HTML error page (`routes::pages`) both ask [`AppError::status`].
//! A request refused before or beside any page (limits, caps, a bad handshake) gets a
//! plain-text [`refusal`], which the JSON API says in JSON instead ([`in_json`]). One
//! body shape per content type: JSON `{"error": ...}`, the HTML error page, and one line
//! of text.

use std::fmt::Display;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// When a client refused for want of a place should come back: a busy renderer's queue
/// drains within a second; a connection or socket place frees up more slowly.
const RETRY_AFTER_BUSY: HeaderValue = HeaderValue::from_static("1");
const RETRY_AFTER_FULL: HeaderValue = HeaderValue::from_static("5");

/// Refusals are not kept by caches: a 404 is cacheable by default (RFC 9110, 15.1), and
/// one for the next release's hashed bundle, asked of a host still on the last one during
/// a rolling deploy, would outlive the deploy in a CDN.
pub const NOT_STORED: HeaderValue = HeaderValue::from_static("no-store");

/// What a [`refusal`] says, kept on it for [`in_json`].
#[derive(Debug, Clone)]
struct Refused(String);

/// A plain-text refusal: `message` as one line, kept by no cache, and on 503 when to
/// come back.
pub fn refusal(status: StatusCode, message: impl Display) -> Response {
    let message = message.to_string();
    let mut response = (
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            ),
            (header::CACHE_CONTROL, NOT_STORED),
        ],
        format!("{message}\n"),
    )
        .into_response();
    response.extensions_mut().insert(Refused(message));
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, RETRY_AFTER_FULL);
    }
    response
}

/// `response` as the JSON API answers: a [`refusal`] says the same as `{"error": ...}`,
/// with its status and headers; any other response is left as it is.
pub fn in_json(mut response: Response) -> Response {
    let Some(Refused(message)) = response.extensions_mut().remove::<Refused>() else {
        return response;
    };
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let body = serde_json::json!({ "error": message }).to_string();
    Response::from_parts(parts, body.into())
}

/// Marks a refusal of work the host has no room for (a full render queue, every live
/// socket taken): counted where it is made, and told in the log as a run, not once a
/// request, which a crowd would make a line each.
#[derive(Debug, Clone, Copy)]
pub struct Shed(pub &'static str);

/// Marks a 503 whose cause the log has already told where it happened (the phrase list
/// not loaded: the store's lines say why), so a request answered with it is no line of
/// its own, which visitors' traffic would make a flood of.
#[derive(Debug, Clone, Copy)]
pub struct ToldElsewhere;

/// What went wrong, as the client sees it. Internal causes are logged, never sent.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{reason}")]
    BadRequest { reason: String },
    #[error("busy, try again shortly")]
    Busy,
    /// Something the answer depends on is not there yet.
    #[error("{0}")]
    Unavailable(&'static str),
    #[error("internal error")]
    Internal(#[from] anyhow::Error),
}

impl AppError {
    pub fn bad_request(reason: impl Into<String>) -> Self {
        AppError::BadRequest {
            reason: reason.into(),
        }
    }

    /// The status every response for this outcome carries, whatever its content type.
    pub fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest { .. } => StatusCode::BAD_REQUEST,
            AppError::Busy | AppError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// `status` with the headers that belong to it: a retry hint on 503, so clients and
    /// load balancers come back in a second rather than give up.
    pub fn respond(&self, body: impl IntoResponse) -> Response {
        let mut response = (self.status(), body).into_response();
        if self.status() == StatusCode::SERVICE_UNAVAILABLE {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, RETRY_AFTER_BUSY);
        }
        match self {
            AppError::Busy => {
                response
                    .extensions_mut()
                    .insert(Shed("the render queue is full (--render-queue)"));
            }
            AppError::Unavailable(_) => {
                response.extensions_mut().insert(ToldElsewhere);
            }
            _ => {}
        }
        response
    }

    /// Logs an internal cause (once, here), with what failed.
    pub fn log(&self, what: &'static str) {
        if let AppError::Internal(cause) = self {
            tracing::error!(error = %format!("{cause:#}"), "{what}");
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        self.log("request failed");
        let message = match &self {
            AppError::BadRequest { reason } => reason.clone(),
            other => other.to_string(),
        };
        self.respond(axum::Json(serde_json::json!({ "error": message })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_is_503_with_retry_after() {
        let response = AppError::Busy.into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
    }

    #[test]
    fn a_refusal_is_one_line_of_text_and_a_full_host_says_when_to_come_back() {
        let response = refusal(StatusCode::SERVICE_UNAVAILABLE, "too many connections");
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "text/plain; charset=utf-8"
        );
        assert_eq!(response.headers()[header::RETRY_AFTER], "5");
        let response = refusal(StatusCode::BAD_REQUEST, "no");
        assert!(response.headers().get(header::RETRY_AFTER).is_none());
        assert_eq!(response.headers()[header::CACHE_CONTROL], "no-store");
    }
}
