//! Every outcome a client can see, and the one place that decides its status: the JSON
//! answer here and the HTML error page (`routes::pages`) both ask [`AppError::status`].

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

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
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
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
}
