//! The headers every response carries and the requests refused before any handler:
//! over-long targets or headers, bad encodings, missing or repeated Host.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;

use crate::error::refusal as refuse;
use crate::escape::{check_encoding, check_query};

/// The Content-Security-Policy of every response: scripts and styles only from our own
/// origin (no inline script), the WebSocket on the same origin, no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/// The security headers every response carries, name and value made once.
static SECURITY_HEADERS: [(HeaderName, HeaderValue); 7] = [
    (
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    ),
    (
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    ),
    (
        header::REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    ),
    (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
    (
        HeaderName::from_static("permissions-policy"),
        HeaderValue::from_static(
            "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
        ),
    ),
    (
        HeaderName::from_static("cross-origin-opener-policy"),
        HeaderValue::from_static("same-origin"),
    ),
    (
        CROSS_ORIGIN_RESOURCE_POLICY,
        HeaderValue::from_static("same-origin"),
    ),
];

const CROSS_ORIGIN_RESOURCE_POLICY: HeaderName =
    HeaderName::from_static("cross-origin-resource-policy");

/// Lets other sites' pages show an image of ours (a phrase's card, the Open Graph image)
/// that a share or a post links to; everything else stays ours alone.
pub fn embeddable(headers: &mut HeaderMap) {
    headers.insert(
        CROSS_ORIGIN_RESOURCE_POLICY,
        HeaderValue::from_static("cross-origin"),
    );
}

/// HSTS, in production only: a development host on plain HTTP must not teach the
/// browser to refuse it.
const STRICT_TRANSPORT_SECURITY: HeaderValue =
    HeaderValue::from_static("max-age=63072000; includeSubDomains");

/// Adds the security headers to a response's, and HSTS when `hsts` (a handler's own
/// value wins).
pub fn add_security_headers(headers: &mut HeaderMap, hsts: bool) {
    // Room for all of them at once rather than a regrowth midway.
    headers.reserve(SECURITY_HEADERS.len() + 1);
    for (name, value) in &SECURITY_HEADERS {
        if !headers.contains_key(name) {
            headers.insert(name.clone(), value.clone());
        }
    }
    if hsts && !headers.contains_key(header::STRICT_TRANSPORT_SECURITY) {
        headers.insert(header::STRICT_TRANSPORT_SECURITY, STRICT_TRANSPORT_SECURITY);
    }
}

/// A cached response's head, made once per page version and encoding (and per card):
/// its headers for hyper, and the same as bytes for [`crate::net::front`], which writes
/// them as hyper would, status line and Content-Length included, the Date after them.
#[derive(Debug)]
pub struct PreparedHead {
    pub headers: HeaderMap,
    pub wire: Bytes,
}

impl PreparedHead {
    /// The head of a 200 response with `headers` and a body of `length` bytes.
    pub fn new(headers: HeaderMap, length: usize) -> Self {
        let mut wire = Vec::with_capacity(640);
        wire.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
        write_lines(&headers, &mut wire);
        wire.extend_from_slice(format!("content-length: {length}\r\n").as_bytes());
        Self {
            headers,
            wire: wire.into(),
        }
    }
}

/// `headers` as the lines of a response head, as hyper writes them.
pub fn write_lines(headers: &HeaderMap, wire: &mut Vec<u8>) {
    for (name, value) in headers {
        wire.extend_from_slice(name.as_str().as_bytes());
        wire.extend_from_slice(b": ");
        wire.extend_from_slice(value.as_bytes());
        wire.extend_from_slice(b"\r\n");
    }
}

/// The site takes no request bodies; anything larger than this is refused.
pub const MAX_BODY: usize = 16 * 1024;
/// Longest request target (path and query) served; longer gets 414. Room for the
/// longest link the site makes: a card's path around an id of 1,500 bytes (what
/// Firestore allows), non-ASCII and so percent-encoded at three characters a byte.
pub const MAX_URI: usize = 8 * 1024;
/// Most bytes of request headers served; more gets 431.
pub const MAX_HEADERS: usize = 16 * 1024;

/// Refuses requests no page could answer well, with a body that says why (see
/// [`malformed`]).
pub async fn reject_malformed(request: Request, next: Next) -> Response {
    match malformed(&request) {
        Some(refusal) => refusal,
        None => next.run(request).await,
    }
}

/// The refusal of a request no page could answer well, with a body that says why (see
/// [`problem`]).
pub fn malformed<B>(request: &axum::http::Request<B>) -> Option<Response> {
    problem(request).map(|(status, why)| refuse(status, why))
}

/// What makes a request one no page could answer well, and its status: over-long targets
/// or headers, and paths or the query parameters read that are not valid percent-encoded
/// UTF-8 (rather than decoding them into replacement characters).
pub fn problem<B>(request: &axum::http::Request<B>) -> Option<(StatusCode, String)> {
    let uri = request.uri();
    let target_len = uri.path_and_query().map_or(0, |pq| pq.as_str().len());
    if target_len > MAX_URI {
        return Some((
            StatusCode::URI_TOO_LONG,
            format!("the address is {target_len} bytes long; at most {MAX_URI} are served"),
        ));
    }
    let header_bytes: usize = request
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    if header_bytes > MAX_HEADERS {
        return Some((
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            format!(
                "the request headers are {header_bytes} bytes; at most {MAX_HEADERS} are accepted"
            ),
        ));
    }
    if let Err(problem) = check_encoding("path", uri.path()) {
        return Some((StatusCode::BAD_REQUEST, problem));
    }
    if let Some(query) = uri.query()
        && let Err(problem) = check_query(query)
    {
        return Some((StatusCode::BAD_REQUEST, problem));
    }
    None
}

/// 400 for an HTTP/1.1 request without a Host header, and for any request with more than
/// one or with one that names no host (RFC 9112, section 3.2): a proxy and this host could
/// disagree on which site was asked for. HTTP/2 names the host in `:authority` instead.
/// Checked on the connection, before the router, so router tests need not invent a host.
pub fn host_problem<B>(request: &axum::http::Request<B>) -> Option<Response> {
    let values = request.headers().get_all(header::HOST);
    let hosts = values.iter().count();
    let needed = request.version() == axum::http::Version::HTTP_11;
    // Answered before the router, whose layer adds the security headers: added here.
    // (Not HSTS: with no one host asked for, there is no site to pin.)
    let secured = |mut refusal: Response| {
        add_security_headers(refusal.headers_mut(), false);
        refusal
    };
    let refusal = match hosts {
        0 if needed => Some(refuse(
            StatusCode::BAD_REQUEST,
            "an HTTP/1.1 request needs a Host header",
        )),
        0 => None,
        1 if !values.iter().all(|value| valid_host(value.as_bytes())) => Some(refuse(
            StatusCode::BAD_REQUEST,
            "the Host header is not a host name or address, with a port if any",
        )),
        1 => None,
        _ => Some(refuse(
            StatusCode::BAD_REQUEST,
            format!("a request may carry one Host header; this one has {hosts}"),
        )),
    };
    refusal.map(secured)
}

/// Whether a Host value is `uri-host [":" port]` (RFC 9112, 3.2; RFC 3986, 3.2.2): a name
/// of unreserved characters, sub-delimiters and percent signs, or an address in
/// brackets, then a port of digits if any.
pub fn valid_host(value: &[u8]) -> bool {
    let (host, port) = if value.first() == Some(&b'[') {
        match value.iter().position(|&b| b == b']') {
            Some(end) => (&value[1..end], &value[end + 1..]),
            None => return false,
        }
    } else {
        match value.iter().rposition(|&b| b == b':') {
            Some(colon) => (&value[..colon], &value[colon..]),
            None => (value, &b""[..]),
        }
    };
    let bracketed = value.first() == Some(&b'[');
    let host_ok = host.iter().all(|&b| {
        b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%".contains(&b) || (bracketed && b == b':')
    }) && (!bracketed || !host.is_empty());
    let port_ok = match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    };
    host_ok && port_ok
}

#[cfg(test)]
mod tests {
    use super::valid_host;

    #[test]
    fn a_host_is_a_name_or_an_address_with_a_port_if_any() {
        for host in [
            "example.com",
            "127.0.0.1:8080",
            "localhost:",
            "[::1]",
            "[::1]:443",
            "xn--d1acufc.xn--p1ai",
            "a,b",
            "my_host%41",
            "",
        ] {
            assert!(valid_host(host.as_bytes()), "{host:?}");
        }
        for host in [
            "a, b",
            "a b",
            "example.com/evil",
            "user@example.com",
            "a:b:c",
            "example.com:80a",
            "[::1",
            "[::1]x",
            "[]",
            "ex\tample",
            "caf\u{e9}.example",
        ] {
            assert!(!valid_host(host.as_bytes()), "{host:?}");
        }
    }
}
