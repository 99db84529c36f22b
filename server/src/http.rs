//! Small pieces of HTTP shared by the handlers: content negotiation, conditional
//! requests and the headers every response carries.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;

use crate::escape::check_encoding;
use crate::page_cache::Page;

/// A content encoding we have a precompressed variant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Identity,
    Gzip,
    Brotli,
}

/// The best encoding the client accepts, preferring brotli, then gzip.
pub fn preferred_encoding(headers: &HeaderMap) -> Encoding {
    let Some(accept) = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
    else {
        return Encoding::Identity;
    };
    let accepts = |wanted: &str| {
        accept.split(',').any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let name = parts.next().unwrap_or_default();
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            });
            name.eq_ignore_ascii_case(wanted) && !refused
        })
    };
    if accepts("br") {
        Encoding::Brotli
    } else if accepts("gzip") {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

/// A strong validator for `body`: the quoted start of its SHA-256.
pub fn strong_etag(body: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    format!("\"{}\"", hex::encode(&Sha256::digest(body)[..12]))
}

/// Whether `If-None-Match` already names `etag`.
pub fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|candidate| candidate == etag || candidate == "*")
}

/// Chooses the body for the client's encoding and sets the matching headers.
pub fn encoded(
    headers: &HeaderMap,
    identity: Bytes,
    gzip: Option<Bytes>,
    br: Option<Bytes>,
) -> (HeaderMap, Bytes) {
    let (encoding, body) = match (preferred_encoding(headers), br, gzip) {
        (Encoding::Brotli, Some(br), _) => (Encoding::Brotli, br),
        (Encoding::Brotli | Encoding::Gzip, _, Some(gzip)) => (Encoding::Gzip, gzip),
        _ => (Encoding::Identity, identity),
    };
    (coding_headers(encoding), body)
}

/// `Vary` and the `Content-Encoding` of a body sent in `encoding`.
fn coding_headers(encoding: Encoding) -> HeaderMap {
    let mut out = HeaderMap::new();
    out.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    let coding = match encoding {
        Encoding::Brotli => "br",
        Encoding::Gzip => "gzip",
        Encoding::Identity => return out,
    };
    out.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
    out
}

/// An HTML page with its validator, or 304 when the client has it.
pub async fn page_response(status: StatusCode, headers: &HeaderMap, page: Arc<Page>) -> Response {
    let etag = HeaderValue::from_str(&page.etag).unwrap_or(HeaderValue::from_static("\"\""));
    if status == StatusCode::OK && not_modified(headers, &page.etag) {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response();
    }
    let wanted = preferred_encoding(headers);
    let (encoding, body) = match page.ready(wanted) {
        Some(body) => (wanted, body),
        // The first client of an encoding has the page compressed, off the async threads.
        None => {
            let compressing = page.clone();
            match tokio::task::spawn_blocking(move || compressing.encode(wanted)).await {
                Ok(body) => (wanted, body),
                Err(_) => (Encoding::Identity, page.html.clone()),
            }
        }
    };
    let mut out = coding_headers(encoding);
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    out.insert(header::ETAG, etag);
    (status, out, Body::from(body)).into_response()
}

/// The Content-Security-Policy of every response: scripts and styles only from our own
/// origin (no inline script), the WebSocket on the same origin, no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/// Adds the security headers to every response.
pub async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    let fixed = [
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "strict-origin-when-cross-origin"),
        (header::X_FRAME_OPTIONS, "DENY"),
    ];
    for (name, value) in fixed {
        headers
            .entry(name)
            .or_insert(HeaderValue::from_static(value));
    }
    headers
        .entry("permissions-policy")
        .or_insert(HeaderValue::from_static(
            "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
        ));
    headers
        .entry("cross-origin-opener-policy")
        .or_insert(HeaderValue::from_static("same-origin"));
    response
}

/// The site takes no request bodies; anything larger than this is refused.
pub const MAX_BODY: usize = 16 * 1024;
/// Longest request target (path and query) served; longer gets 414.
pub const MAX_URI: usize = 4 * 1024;
/// Most bytes of request headers served; more gets 431.
pub const MAX_HEADERS: usize = 16 * 1024;

/// Refuses requests no page could answer well, with a body that says why: over-long
/// targets or headers, and paths or queries that are not valid percent-encoded UTF-8
/// (rather than decoding them into replacement characters).
pub async fn reject_malformed(request: Request, next: Next) -> Response {
    let uri = request.uri();
    let target_len = uri.path_and_query().map_or(0, |pq| pq.as_str().len());
    if target_len > MAX_URI {
        return refuse(
            StatusCode::URI_TOO_LONG,
            format!("the address is {target_len} bytes long; at most {MAX_URI} are served"),
        );
    }
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if header_bytes > MAX_HEADERS {
        return refuse(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!(
                "the request headers are {header_bytes} bytes; at most {MAX_HEADERS} are accepted"
            ),
        );
    }
    if let Err(problem) = check_encoding("path", uri.path()) {
        return refuse(StatusCode::BAD_REQUEST, problem);
    }
    if let Some(query) = uri.query()
        && let Err(problem) = check_encoding("query", query)
    {
        return refuse(StatusCode::BAD_REQUEST, problem);
    }
    next.run(request).await
}

/// 400 for an HTTP/1.1 request without a Host header, and for any request with more than
/// one (RFC 9112, section 3.2): a proxy and this host could disagree on which site was
/// asked for. HTTP/2 names the host in `:authority` instead. Checked on the connection,
/// before the router, so router tests need not invent a host.
pub fn host_problem<B>(request: &axum::http::Request<B>) -> Option<Response> {
    let hosts = request.headers().get_all(header::HOST).iter().count();
    let needed = request.version() == axum::http::Version::HTTP_11;
    match hosts {
        0 if needed => Some(refuse(
            StatusCode::BAD_REQUEST,
            "an HTTP/1.1 request needs a Host header".into(),
        )),
        0 | 1 => None,
        _ => Some(refuse(
            StatusCode::BAD_REQUEST,
            format!("a request may carry one Host header; this one has {hosts}"),
        )),
    }
}

fn refuse(status: StatusCode, message: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        )],
        format!("{message}\n"),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(name: header::HeaderName, value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(name, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn prefers_brotli_then_gzip_and_honours_q_zero() {
        let encoding = |v| preferred_encoding(&with(header::ACCEPT_ENCODING, v));
        assert_eq!(encoding("gzip, deflate, br"), Encoding::Brotli);
        assert_eq!(encoding("gzip, br;q=0"), Encoding::Gzip);
        assert_eq!(encoding("identity"), Encoding::Identity);
        assert_eq!(preferred_encoding(&HeaderMap::new()), Encoding::Identity);
    }

    #[test]
    fn if_none_match_matches_any_listed_tag() {
        assert!(not_modified(
            &with(header::IF_NONE_MATCH, "\"a\", \"b\""),
            "\"b\""
        ));
        assert!(!not_modified(
            &with(header::IF_NONE_MATCH, "\"a\""),
            "\"b\""
        ));
    }
}
