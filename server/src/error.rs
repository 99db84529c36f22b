//! Every outcome a client can see, and the one place that turns it into a response.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// What went wrong, as the client sees it. Internal causes are logged, never sent.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("{reason}")]
    BadRequest { reason: String },
    #[error("not found")]
    NotFound,
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
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, message) = match &self {
            AppError::BadRequest { reason } => (StatusCode::BAD_REQUEST, reason.clone()),
            AppError::NotFound => (StatusCode::NOT_FOUND, "not found".into()),
            AppError::Busy | AppError::Unavailable(_) => {
                (StatusCode::SERVICE_UNAVAILABLE, self.to_string())
            }
            AppError::Internal(cause) => {
                tracing::error!(error = %format!("{cause:#}"), "request failed");
                (StatusCode::INTERNAL_SERVER_ERROR, "internal error".into())
            }
        };
        let body = serde_json::json!({ "error": message });
        let mut response = (status, axum::Json(body)).into_response();
        if matches!(self, AppError::Busy | AppError::Unavailable(_)) {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
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
