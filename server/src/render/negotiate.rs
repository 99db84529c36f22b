//! Content negotiation and conditional requests: which precompressed body a client
//! gets, and whether it already has it.

use axum::http::{HeaderMap, HeaderValue, header};
use bytes::Bytes;

/// A content encoding we have a precompressed variant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Identity,
    Gzip,
    Brotli,
}

/// The best encoding the client accepts, preferring brotli, then gzip.
pub fn preferred_encoding(headers: &HeaderMap) -> Encoding {
    encoding_accepted(headers.get(header::ACCEPT_ENCODING).map(|v| v.as_bytes()))
}

/// The same from the first `Accept-Encoding` line's value, as the request carried it.
pub fn encoding_accepted(accept: Option<&[u8]>) -> Encoding {
    let Some(accept) = accept.and_then(header_text) else {
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
        .any(|line| names_etag(line, etag))
}

/// Whether one `If-None-Match` line names `etag` (or is `*`).
pub fn names_etag(line: &str, etag: &str) -> bool {
    line.split(',')
        .map(str::trim)
        .any(|candidate| candidate == etag || candidate == "*")
}

/// A header value as text, read as `HeaderValue::to_str` reads one: visible ASCII only.
pub fn header_text(value: &[u8]) -> Option<&str> {
    if value
        .iter()
        .all(|&b| b == b'\t' || (0x20..0x7f).contains(&b))
    {
        std::str::from_utf8(value).ok()
    } else {
        None
    }
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
pub fn coding_headers(encoding: Encoding) -> HeaderMap {
    let mut out = HeaderMap::new();
    add_coding_headers(&mut out, encoding);
    out
}

/// Adds `Vary` and the `Content-Encoding` of a body sent in `encoding` to `out`.
pub fn add_coding_headers(out: &mut HeaderMap, encoding: Encoding) {
    out.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    let coding = match encoding {
        Encoding::Brotli => "br",
        Encoding::Gzip => "gzip",
        Encoding::Identity => return,
    };
    out.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
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
