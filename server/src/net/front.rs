//! The front of each connection: while its requests are plain GETs and HEADs of cached
//! pages and cards (HTTP/1.1, or HTTP/1.0 with keep-alive), they are read and answered
//! here, on the socket, with the head made for that page version and encoding
//! ([`PreparedHead`](crate::net::headers::PreparedHead)) or its 304 when `If-None-Match`
//! names it, the Date, and the body, in one vectored write. At the first request that is
//! anything else (another method, a query, two validator or Accept-Encoding lines, a
//! body, an upgrade, `Connection: close`, a missing or repeated Host, a miss, HTTP/2, bytes
//! this parser refuses) the connection goes to hyper with what was read, and hyper serves
//! the rest of it as before.
//!
//! hyper builds a `Request` (its URI parsed, its headers copied into a map) and a
//! `Response` (a header map cloned, then encoded) for every request; for a cached page
//! that was most of the host's own time a request (docs/benchmarks.md, issue 22). Here a
//! request costs the parse (`httparse`, as in hyper), a lookup and one write, with no
//! allocation. The guards are the same: the Host check and the limits of
//! [`crate::net::headers::malformed`] (anything past them goes to hyper, whose router
//! refuses it), the rate limit and the count in `/metrics` ([`FastPath::cached`]), the
//! connection's idle deadline, the write deadline of [`super::connections::Guarded`].

use std::cell::Cell;
use std::io::{self, IoSlice};
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use bytes::{Buf as _, Bytes, BytesMut};
use prometheus::IntCounter;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, ReadBuf};
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use crate::net::client::TrustedProxies;
use crate::net::headers::{MAX_HEADERS, MAX_URI, valid_host};
use crate::render::negotiate::{encoding_accepted, header_text, names_etag};
use crate::routes::{FastPath, Hit};

/// Header lines a request answered here may have; one with more goes to hyper.
const MAX_LINES: usize = 32;
/// Bytes read at a time.
const READ_SIZE: usize = 8 * 1024;
/// A request head longer than this, unfinished, goes to hyper, which refuses it.
const MAX_HEAD: usize = MAX_URI + MAX_HEADERS + 1024;

/// What serving a connection's front needs.
pub struct Front<'a> {
    pub fast: &'a FastPath,
    pub peer: SocketAddr,
    pub proxies: &'a TrustedProxies,
    /// The request timeout: how long the connection may go without a request.
    pub limit: Duration,
    /// Cancelled when the server stops.
    pub closing: &'a CancellationToken,
    /// `lastwords_connections_idle_closed_total`.
    pub idle_closed: &'a IntCounter,
}

/// How the front of a connection ended.
pub enum Ended {
    /// The peer left or went quiet past the limit, a write failed, or the server is
    /// stopping: the connection is closed.
    Closed,
    /// A request for hyper: what was read from it on, unanswered.
    Handover(Bytes),
}

/// What is sent of a hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reply {
    /// Head and body (GET).
    Whole,
    /// The head alone (HEAD).
    Head,
    /// 304: the client has it (`If-None-Match` names its validator).
    NotModified,
}

/// What the front makes of the bytes read so far.
enum Step {
    /// A cached answer to the request in the first `consumed` bytes.
    Answer {
        consumed: usize,
        hit: Hit,
        reply: Reply,
        /// HTTP/1.0 with keep-alive: answered as such, with `Connection: keep-alive`.
        http10: bool,
    },
    /// The request is not all there yet.
    More,
    /// A request hyper answers.
    Elsewhere,
}

impl Front<'_> {
    /// Answers the connection's requests until one is for hyper.
    pub async fn serve<IO: AsyncRead + AsyncWrite + Unpin>(&self, io: &mut IO) -> Ended {
        let mut read = BytesMut::with_capacity(READ_SIZE);
        let mut idle_since = Instant::now();
        // One timer and one wait for the stop for the connection's front, not one a request.
        let wake = sleep_until(idle_since + self.limit);
        let closing = self.closing.cancelled();
        tokio::pin!(wake, closing);
        loop {
            // Pipelined requests are answered in order, each once all of it has arrived.
            while !read.is_empty() {
                match self.step(&read).await {
                    Step::Answer {
                        consumed,
                        hit,
                        reply,
                        http10,
                    } => {
                        let hsts = self.fast.hsts();
                        let (head, body) = hit.parts(hsts);
                        let (wire, body): (&[u8], &[u8]) = match reply {
                            Reply::Whole => (&head.wire, body),
                            Reply::Head => (&head.wire, b""),
                            Reply::NotModified => (hit.not_modified(hsts), b""),
                        };
                        // Every head is made as HTTP/1.1's: "HTTP/1.1" is its first 8 bytes.
                        let (version, keep_alive): (&[u8], &[u8]) = if http10 {
                            (b"HTTP/1.0", b"connection: keep-alive\r\n")
                        } else {
                            (b"HTTP/1.1", b"")
                        };
                        let parts = [version, &wire[8..], keep_alive, &date_line(), body];
                        if send(io, parts).await.is_err() {
                            return Ended::Closed;
                        }
                        read.advance(consumed);
                        idle_since = Instant::now();
                    }
                    Step::More => break,
                    Step::Elsewhere => return Ended::Handover(read.freeze()),
                }
            }
            if read.capacity() - read.len() < READ_SIZE / 4 {
                read.reserve(READ_SIZE);
            }
            tokio::select! {
                biased;
                () = &mut closing => {
                    return if read.is_empty() {
                        Ended::Closed
                    } else {
                        Ended::Handover(read.freeze())
                    };
                }
                outcome = io.read_buf(&mut read) => match outcome {
                    Ok(0) | Err(_) => return Ended::Closed,
                    Ok(_) => {}
                },
                // A request trickled in for the whole limit is no request: the same
                // deadline as hyper's side of the connection (`Connection::serve`).
                () = &mut wake => {
                    let deadline = idle_since + self.limit;
                    if Instant::now() >= deadline {
                        self.idle_closed.inc();
                        return Ended::Closed;
                    }
                    wake.as_mut().reset(deadline);
                }
            }
        }
    }

    /// The answer to the request `read` starts with, if it is a plain GET of a cached
    /// page or card and all of it has arrived.
    async fn step(&self, read: &[u8]) -> Step {
        let mut lines = [httparse::EMPTY_HEADER; MAX_LINES];
        let mut request = httparse::Request::new(&mut lines);
        let consumed = match request.parse(read) {
            Ok(httparse::Status::Complete(consumed)) => consumed,
            Ok(httparse::Status::Partial) if read.len() <= MAX_HEAD => return Step::More,
            _ => return Step::Elsewhere,
        };
        let Some(plain) = plain_get(&request) else {
            return Step::Elsewhere;
        };
        if FastPath::logging() {
            return Step::Elsewhere;
        }
        let peer = self.peer.ip();
        let client = if self.proxies.trusts_peer(peer) {
            self.proxies.client(peer, &forwarded(request.headers))
        } else {
            peer.to_canonical()
        };
        let Some((hit, tally)) = self.fast.cached(plain.path, plain.encoding, client).await else {
            return Step::Elsewhere;
        };
        let reply = match plain.validators {
            Some(validators) if names(validators, hit.etag()) => Reply::NotModified,
            _ if plain.head => Reply::Head,
            _ => Reply::Whole,
        };
        tally.count(reply == Reply::NotModified);
        Step::Answer {
            consumed,
            hit,
            reply,
            http10: plain.http10,
        }
    }
}

/// A request the front may answer.
struct PlainGet<'r> {
    /// HEAD rather than GET.
    head: bool,
    /// HTTP/1.0, with `Connection: keep-alive`.
    http10: bool,
    path: &'r str,
    encoding: crate::render::negotiate::Encoding,
    /// The `If-None-Match` line, if there is one.
    validators: Option<&'r [u8]>,
}

/// `request` if it is a GET or HEAD of a path with nothing that changes the answer or
/// the connection but the encoding and one validator line, one Host, and within the
/// limits the router holds requests to; HTTP/1.1, or HTTP/1.0 with keep-alive.
fn plain_get<'r>(request: &httparse::Request<'_, 'r>) -> Option<PlainGet<'r>> {
    let head = match request.method {
        Some("GET") => false,
        Some("HEAD") => true,
        _ => return None,
    };
    // HTTP/1.0 only with keep-alive: one that closes is hyper's to close.
    let http10 = match request.version {
        Some(1) => false,
        Some(0) => true,
        _ => return None,
    };
    let mut keep_alive = false;
    // Origin form, no query, nothing percent-encoded: what the router would read as is.
    let path = request.path?;
    if path.len() > MAX_URI || !path.starts_with('/') || !path.bytes().all(plain_path_byte) {
        return None;
    }
    let mut hosts = 0;
    let mut accept = None;
    let mut validators = None;
    let mut header_bytes = 0;
    for line in request.headers.iter() {
        let name = line.name;
        header_bytes += name.len() + line.value.len() + 4;
        if name.eq_ignore_ascii_case("host") {
            if !valid_host(line.value) {
                return None;
            }
            hosts += 1;
        } else if name.eq_ignore_ascii_case("accept-encoding") {
            // Two lines of either are the router's to read together.
            if accept.replace(line.value).is_some() {
                return None;
            }
        } else if name.eq_ignore_ascii_case("if-none-match") {
            if validators.replace(line.value).is_some() {
                return None;
            }
        } else if name.eq_ignore_ascii_case("connection") {
            if !line.value.eq_ignore_ascii_case(b"keep-alive") || keep_alive {
                return None;
            }
            keep_alive = true;
        } else if ["content-length", "transfer-encoding", "upgrade", "expect"]
            .iter()
            .any(|other| name.eq_ignore_ascii_case(other))
        {
            return None;
        }
    }
    if hosts != 1 || header_bytes > MAX_HEADERS || (http10 && !keep_alive) {
        return None;
    }
    Some(PlainGet {
        head,
        http10,
        path,
        encoding: encoding_accepted(accept),
        validators,
    })
}

/// Whether an `If-None-Match` value names `etag` (or `*`), as the router reads one.
fn names(validators: &[u8], etag: &str) -> bool {
    header_text(validators).is_some_and(|line| names_etag(line, etag))
}

/// Unreserved and sub-delimiter characters, `:`, `@` and `/`.
fn plain_path_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&byte)
}

/// The forwarded headers of a request from a trusted proxy, for [`TrustedProxies::client`].
fn forwarded(lines: &[httparse::Header<'_>]) -> HeaderMap {
    let mut out = HeaderMap::new();
    for line in lines {
        let Ok(name) = HeaderName::from_bytes(line.name.as_bytes()) else {
            continue;
        };
        if (name == "x-forwarded-for" || name == axum::http::header::FORWARDED)
            && let Ok(value) = HeaderValue::from_bytes(line.value)
        {
            out.append(name, value);
        }
    }
    out
}

/// `date: <HTTP-date>` and the blank line that ends a head.
fn date_line() -> [u8; 39] {
    let mut line = [0; 39];
    line[..6].copy_from_slice(b"date: ");
    line[6..35].copy_from_slice(&http_date());
    line[35..].copy_from_slice(b"\r\n\r\n");
    line
}

/// The `Date` of a response the router makes: the same clock as the fast path's. Hyper's
/// own, which it writes where a response has none, moves only forward: after the clock
/// was stepped back it kept the later date for the length of the step.
pub fn date_value() -> HeaderValue {
    HeaderValue::from_bytes(&http_date()).expect("an HTTP-date is a header value")
}

/// Now as an HTTP-date, made once a second per thread (whichever way the clock went).
fn http_date() -> [u8; 29] {
    thread_local! {
        static DATE: Cell<(u64, [u8; 29])> = const { Cell::new((0, [0; 29])) };
    }
    let now = SystemTime::now();
    let second = now
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    DATE.with(|cached| {
        let (at, date) = cached.get();
        if at == second && second != 0 {
            return date;
        }
        // httpdate panics outside 1970–9999; a clock that far off gets the nearest end.
        let shown = now.clamp(
            UNIX_EPOCH,
            UNIX_EPOCH + Duration::from_secs(253_402_300_799),
        );
        let mut date = [0; 29];
        date.copy_from_slice(httpdate::fmt_http_date(shown).as_bytes());
        cached.set((second, date));
        date
    })
}

/// Writes all of `parts`, vectored.
async fn send<IO: AsyncWrite + Unpin>(io: &mut IO, parts: [&[u8]; 5]) -> io::Result<()> {
    let mut slices = parts.map(IoSlice::new);
    let mut rest: &mut [IoSlice<'_>] = &mut slices;
    while !rest.is_empty() {
        match io.write_vectored(rest).await? {
            0 => return Err(io::ErrorKind::WriteZero.into()),
            written => IoSlice::advance_slices(&mut rest, written),
        }
    }
    Ok(())
}

/// A socket whose first reads return bytes already read from it: how a connection
/// whose front read a request for hyper is handed over.
pub struct Rewind<IO> {
    read: Bytes,
    io: IO,
}

impl<IO> Rewind<IO> {
    pub fn new(read: Bytes, io: IO) -> Self {
        Self { read, io }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Rewind<IO> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.read.is_empty() {
            return Pin::new(&mut this.io).poll_read(cx, buf);
        }
        let taken = this.read.len().min(buf.remaining());
        buf.put_slice(&this.read.split_to(taken));
        Poll::Ready(Ok(()))
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Rewind<IO> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Option<(String, crate::render::negotiate::Encoding)> {
        let mut lines = [httparse::EMPTY_HEADER; MAX_LINES];
        let mut request = httparse::Request::new(&mut lines);
        assert!(request.parse(text.as_bytes()).unwrap().is_complete());
        plain_get(&request).map(|plain| (plain.path.to_owned(), plain.encoding))
    }

    #[test]
    fn a_validator_line_names_an_etag_as_the_router_reads_it() {
        assert!(names(b"\"a\"", "\"a\""));
        assert!(names(b"\"b\", \"a\"", "\"a\""));
        assert!(names(b"*", "\"a\""));
        // Weak comparison, as RFC 9110 has If-None-Match compare.
        assert!(names(b"W/\"a\"", "\"a\""));
        assert!(!names(b"\"a\x01\"", "\"a\""));
        assert!(!names(b"", "\"a\""));
    }

    #[test]
    fn only_plain_gets_with_one_host_are_answered_in_front() {
        use crate::render::negotiate::Encoding;
        let get = |extra: &str| parse(&format!("GET /words HTTP/1.1\r\nHost: a\r\n{extra}\r\n"));
        assert_eq!(get(""), Some(("/words".into(), Encoding::Identity)));
        assert_eq!(
            get("Accept-Encoding: gzip, br\r\nConnection: Keep-Alive\r\n"),
            Some(("/words".into(), Encoding::Brotli))
        );
        assert_eq!(
            parse("GET /words HTTP/1.0\r\nHost: a\r\nConnection: Keep-Alive\r\n\r\n"),
            Some(("/words".into(), Encoding::Identity))
        );
        assert_eq!(
            get("If-None-Match: \"x\"\r\n"),
            Some(("/words".into(), Encoding::Identity))
        );
        for other in [
            "If-None-Match: \"x\"\r\nIf-None-Match: \"y\"\r\n",
            "Connection: close\r\n",
            "Connection: Upgrade\r\nUpgrade: websocket\r\n",
            "Content-Length: 0\r\n",
            "Transfer-Encoding: chunked\r\n",
            "Expect: 100-continue\r\n",
            "Host: b\r\n",
        ] {
            assert_eq!(get(other), None, "{other}");
        }
        assert_eq!(
            get(&format!("X-Long: {}\r\n", "a".repeat(MAX_HEADERS))),
            None
        );
        for request in [
            "GET /words HTTP/1.1\r\n\r\n",
            "GET /words HTTP/1.0\r\nHost: a\r\n\r\n",
            "GET /words HTTP/1.0\r\nHost: a\r\nConnection: close\r\n\r\n",
            "POST /words HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /words?check=RAWR HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET /words/a%20b HTTP/1.1\r\nHost: a\r\n\r\n",
            "GET http://a/words HTTP/1.1\r\nHost: a\r\n\r\n",
        ] {
            assert_eq!(parse(request), None, "{request}");
        }
    }

    #[test]
    fn the_date_line_is_an_http_date_and_ends_the_head() {
        let line = date_line();
        let text = std::str::from_utf8(&line).unwrap();
        let date = text
            .strip_prefix("date: ")
            .unwrap()
            .strip_suffix("\r\n\r\n")
            .unwrap();
        let parsed = httpdate::parse_http_date(date).unwrap();
        let off = SystemTime::now().duration_since(parsed).unwrap_or_default();
        assert!(off < Duration::from_secs(5), "{date}");
    }

    #[tokio::test]
    async fn a_rewound_socket_reads_what_was_read_first() {
        let (near, mut far) = tokio::io::duplex(64);
        far.write_all(b" world").await.unwrap();
        drop(far);
        let mut rewound = Rewind::new(Bytes::from_static(b"hello"), near);
        let mut all = String::new();
        rewound.read_to_string(&mut all).await.unwrap();
        assert_eq!(all, "hello world");
    }
}
