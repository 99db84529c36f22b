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

impl Encoding {
    /// Its name in `Content-Encoding`; none for the identity.
    pub fn token(self) -> Option<&'static str> {
        match self {
            Encoding::Identity => None,
            Encoding::Gzip => Some("gzip"),
            Encoding::Brotli => Some("br"),
        }
    }
}

/// The encoding the client weights highest of those we have, brotli on a tie.
pub fn preferred_encoding(headers: &HeaderMap) -> Encoding {
    encoding_accepted(
        headers
            .get_all(header::ACCEPT_ENCODING)
            .iter()
            .map(HeaderValue::as_bytes),
    )
}

/// The same from the `Accept-Encoding` lines' values, as the request carried them: read
/// as one list, as RFC 9110 combines a field's lines (a proxy may split one). An item with
/// a malformed weight is left out, as RFC 9110 has it; `x-gzip` is gzip, and `*` weights
/// what is not named. `identity` weighted above both codings is the body as it is; on a
/// tie, the smaller body. A line that is not text is left out.
pub fn encoding_accepted<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Encoding {
    let Weights { br, gzip, identity } = weights(lines);
    if identity.is_some_and(|identity| identity > br.max(gzip)) {
        Encoding::Identity
    } else if br > 0 && br >= gzip {
        Encoding::Brotli
    } else if gzip > 0 {
        Encoding::Gzip
    } else {
        Encoding::Identity
    }
}

/// What `Accept-Encoding` weighs each coding, in thousandths (0: refused or not named).
struct Weights {
    br: u16,
    gzip: u16,
    identity: Option<u16>,
}

fn weights<'a>(lines: impl IntoIterator<Item = &'a [u8]>) -> Weights {
    let (mut br, mut gzip, mut any, mut identity) = (None, None, None, None);
    let items = lines
        .into_iter()
        .filter_map(header_text)
        .flat_map(|line| line.split(','));
    for item in items {
        let mut parts = item.split(';').map(str::trim);
        let name = parts.next().unwrap_or_default();
        let mut weight = Some(1000);
        for parameter in parts {
            // `q=` exactly (no space around `=`), or the weight is malformed.
            if let Some((name, value)) = parameter.split_once('=')
                && name.trim_end().eq_ignore_ascii_case("q")
            {
                weight = (name.len() == 1).then(|| q_value(value)).flatten();
            }
        }
        let Some(weight) = weight else { continue };
        if name.eq_ignore_ascii_case("br") {
            br = Some(weight);
        } else if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
            gzip = Some(weight);
        } else if name == "*" {
            any = Some(weight);
        } else if name.eq_ignore_ascii_case("identity") {
            identity = Some(weight);
        }
    }
    Weights {
        br: br.or(any).unwrap_or(0),
        gzip: gzip.or(any).unwrap_or(0),
        identity,
    }
}

/// A weight in thousandths: `0` to `1`, at most three decimals (RFC 9110, 12.4.2).
fn q_value(text: &str) -> Option<u16> {
    let (whole, decimals) = text.split_once('.').unwrap_or((text, ""));
    if !matches!(whole, "0" | "1")
        || decimals.len() > 3
        || !decimals.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let thousandths = decimals
        .bytes()
        .zip([100, 10, 1])
        .map(|(digit, place)| u16::from(digit - b'0') * place)
        .sum::<u16>();
    let weight = if whole == "1" {
        1000 + thousandths
    } else {
        thousandths
    };
    (weight <= 1000).then_some(weight)
}

/// A strong validator for `body`: the quoted start of its SHA-256.
pub fn strong_etag(body: &[u8]) -> String {
    format!("\"{}\"", digest(&[body]))
}

/// The start of the SHA-256 of `parts` one after the other, in hex: what a validator quotes.
pub fn digest(parts: &[&[u8]]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hex::encode(&hasher.finalize()[..12])
}

/// Whether `If-None-Match` already names `etag`.
pub fn not_modified(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|line| names_etag(line, etag))
}

/// Whether one `If-None-Match` line names `etag` (or is `*`), by the weak comparison
/// RFC 9110 asks of it: `W/"x"` names `"x"`.
pub fn names_etag(line: &str, etag: &str) -> bool {
    fn opaque(tag: &str) -> &str {
        tag.strip_prefix("W/").unwrap_or(tag)
    }
    let etag = opaque(etag);
    line.split(',')
        .map(str::trim)
        .any(|candidate| candidate == "*" || opaque(candidate) == etag)
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

/// How hard a body is compressed: once for a page kept and sent many times, or for one
/// answer alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effort {
    Kept,
    OneAnswer,
}

/// `body` in `encoding`. Kept: gzip 9, brotli 5 (quality 9 cost 15 ms per miss of the
/// words page, `scripts/bench`), the buffer shrunk to its bytes; for one answer, gzip's
/// fastest and brotli 1, which make a page of the list a third of its size as quickly.
pub fn compressed(body: &[u8], encoding: Encoding, effort: Effort) -> Bytes {
    use std::io::Write as _;
    let kept = effort == Effort::Kept;
    let mut out = match encoding {
        Encoding::Identity => return Bytes::copy_from_slice(body),
        Encoding::Gzip => {
            let level = if kept {
                flate2::Compression::new(9)
            } else {
                flate2::Compression::fast()
            };
            let mut encoder = flate2::write::GzEncoder::new(Vec::new(), level);
            let _ = encoder.write_all(body);
            encoder.finish().unwrap_or_default()
        }
        Encoding::Brotli => {
            let mut out = Vec::new();
            let params = brotli::enc::BrotliEncoderParams {
                quality: if kept { 5 } else { 1 },
                ..Default::default()
            };
            let _ = brotli::BrotliCompress(&mut &body[..], &mut out, &params);
            out
        }
    };
    if kept {
        out.shrink_to_fit();
    }
    Bytes::from(out)
}

/// Chooses the body for the client's encoding and sets the matching headers.
pub fn encoded(
    headers: &HeaderMap,
    identity: Bytes,
    gzip: Option<Bytes>,
    br: Option<Bytes>,
) -> (HeaderMap, Bytes) {
    // gzip in place of a brotli body there is not only where the client takes gzip.
    let takes_gzip = || {
        let lines = headers.get_all(header::ACCEPT_ENCODING);
        weights(lines.iter().map(HeaderValue::as_bytes)).gzip > 0
    };
    let (encoding, body) = match (preferred_encoding(headers), br, gzip) {
        (Encoding::Brotli, Some(br), _) => (Encoding::Brotli, br),
        (Encoding::Gzip, _, Some(gzip)) => (Encoding::Gzip, gzip),
        (Encoding::Brotli, None, Some(gzip)) if takes_gzip() => (Encoding::Gzip, gzip),
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
    if let Some(coding) = encoding.token() {
        out.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
    }
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
    fn a_body_with_no_brotli_goes_in_gzip_only_to_a_client_that_takes_gzip() {
        let body = |accept: &'static str| {
            let (out, body) = encoded(
                &with(header::ACCEPT_ENCODING, accept),
                Bytes::from_static(b"identity"),
                Some(Bytes::from_static(b"gzip")),
                None,
            );
            (out.get(header::CONTENT_ENCODING).cloned(), body)
        };
        assert_eq!(
            body("br, gzip;q=0"),
            (None, Bytes::from_static(b"identity"))
        );
        assert_eq!(body("br, *;q=0"), (None, Bytes::from_static(b"identity")));
        assert_eq!(
            body("br, gzip;q=0.5"),
            (
                Some(HeaderValue::from_static("gzip")),
                Bytes::from_static(b"gzip")
            )
        );
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
    fn the_highest_weight_wins_and_a_malformed_one_leaves_its_item_out() {
        let encoding = |v| preferred_encoding(&with(header::ACCEPT_ENCODING, v));
        assert_eq!(encoding("br;q=0.5, gzip;q=0.9"), Encoding::Gzip);
        assert_eq!(encoding("br;q=0.9, gzip;q=0.9"), Encoding::Brotli);
        assert_eq!(encoding("gzip;q=0.001"), Encoding::Gzip);
        assert_eq!(encoding("x-gzip"), Encoding::Gzip);
        assert_eq!(encoding("*"), Encoding::Brotli);
        assert_eq!(encoding("*;q=0.5, br;q=0.1"), Encoding::Gzip);
        assert_eq!(encoding("br;q=0, *"), Encoding::Gzip);
        assert_eq!(encoding("identity, br;q=0.5"), Encoding::Identity);
        assert_eq!(encoding("identity;q=0.5, gzip"), Encoding::Gzip);
        assert_eq!(encoding("identity, br"), Encoding::Brotli);
        assert_eq!(encoding("IDENTITY;q=0.9, *;q=0.8"), Encoding::Identity);
        for malformed in [
            "gzip;q =0",
            "gzip;q= 0",
            "gzip;q=abc",
            "gzip;q=-1",
            "gzip;q=1.5",
            "gzip;q=0.0001",
            "gzip;q=",
        ] {
            assert_eq!(encoding(malformed), Encoding::Identity, "{malformed}");
        }
        assert_eq!(encoding("gzip;q=1.000, br;q=1.0001"), Encoding::Gzip);
        assert_eq!(encoding("br;q =0, gzip;q=0.5"), Encoding::Gzip);
        assert_eq!(encoding("gzip;level=1"), Encoding::Gzip);
    }

    #[test]
    fn every_line_is_read_as_one_list() {
        let mut headers = with(header::ACCEPT_ENCODING, "identity");
        headers.append(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
        assert_eq!(preferred_encoding(&headers), Encoding::Gzip);
        headers.append(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("br;q=0.5"),
        );
        assert_eq!(preferred_encoding(&headers), Encoding::Gzip);
        headers.append(
            header::ACCEPT_ENCODING,
            HeaderValue::from_static("br, gzip;q=0"),
        );
        assert_eq!(preferred_encoding(&headers), Encoding::Brotli);
        let lines: [&[u8]; 2] = [b"gzip\x01", b"br;q=0.1"];
        assert_eq!(encoding_accepted(lines), Encoding::Brotli);
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

    #[test]
    fn if_none_match_compares_weakly() {
        for line in ["W/\"b\"", "\"x\", W/\"b\"", "*"] {
            assert!(
                not_modified(&with(header::IF_NONE_MATCH, line), "\"b\""),
                "{line}"
            );
        }
        assert!(!not_modified(
            &with(header::IF_NONE_MATCH, "W/\"bb\""),
            "\"b\""
        ));
    }
}
