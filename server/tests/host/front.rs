//! The front of each connection (`net::front`) on a real socket, against the whole
//! server: cached pages answered there carry the router's headers and bytes, pipelined
//! requests are answered in order across the handover to hyper, a request trickled a
//! byte at a time is answered once it is all there, the Host check and `Connection:
//! close` still hold, and a page's head never meets another version's body.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use lastwords::config::Environment;
use lastwords::feed::list::Anchor;
use lastwords::feed::{Change, Phrase};
use lastwords::render::negotiate::Encoding;
use lastwords::render::page_cache::CachedPage;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

use crate::common::{TestHost, between, bytes, phrase};

/// The whole server (`server::serve`) on a loopback port, stopped when dropped.
struct Serving {
    address: SocketAddr,
    _stop: mpsc::Sender<()>,
}

async fn serve(host: &TestHost) -> Serving {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = mpsc::channel(1);
    let stop_stream = until_dropped(stopped);
    tokio::spawn(lastwords::server::serve(
        listener,
        host.state.clone(),
        stop_stream,
    ));
    Serving {
        address,
        _stop: stop,
    }
}

/// Yields once the sender is dropped.
fn until_dropped(mut stopped: mpsc::Receiver<()>) -> impl futures_util::Stream<Item = ()> {
    futures_util::stream::once(async move {
        let _ = stopped.recv().await;
    })
}

/// A response as it came off the socket.
#[derive(Debug)]
struct Raw {
    head_line: String,
    status: u16,
    headers: BTreeMap<String, Vec<String>>,
    body: Vec<u8>,
}

impl Raw {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|values| values[0].as_str())
    }

    /// The headers both sides send the same: all but the Date and the body's length.
    fn comparable(&self) -> BTreeMap<String, Vec<String>> {
        let mut headers = self.headers.clone();
        for own in ["date", "content-length"] {
            headers.remove(own);
        }
        headers
    }
}

/// Reads one response to a request of `method` (HEAD's has no body).
async fn read_response(socket: &mut (impl AsyncRead + Unpin), method: &str) -> Raw {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let byte = socket.read_u8().await.expect("a response head");
        head.push(byte);
    }
    let text = String::from_utf8(head).expect("an ASCII head");
    let mut lines = text.split("\r\n");
    let head_line = lines.next().unwrap().to_owned();
    let status = head_line[9..12].parse().unwrap();
    let mut headers: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in lines.filter(|line| !line.is_empty()) {
        let (name, value) = line.split_once(": ").expect("name: value");
        headers
            .entry(name.to_ascii_lowercase())
            .or_default()
            .push(value.to_owned());
    }
    let length: usize = headers
        .get("content-length")
        .map_or(0, |values| values[0].parse().unwrap());
    let mut body = vec![0; if method == "HEAD" { 0 } else { length }];
    socket.read_exact(&mut body).await.expect("the whole body");
    Raw {
        head_line,
        status,
        headers,
        body,
    }
}

fn get(path: &str, extra: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n{extra}\r\n")
}

/// What the router sends for `path` in `encoding`, which also caches it there.
async fn routed(host: &TestHost, path: &str, encoding: &str) -> (Vec<(String, String)>, Vec<u8>) {
    let request = Request::get(path)
        .header(header::ACCEPT_ENCODING, encoding)
        .body(Body::empty())
        .unwrap();
    let (response, body) = bytes(host.send(request).await).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    let headers = response
        .headers()
        .iter()
        .filter(|(name, _)| *name != header::CONTENT_LENGTH)
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_owned()))
        .collect();
    (headers, body)
}

fn as_map(headers: Vec<(String, String)>) -> BTreeMap<String, Vec<String>> {
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, value) in headers {
        map.entry(name).or_default().push(value);
    }
    map
}

/// Sends `requests` on one connection at once and reads their responses.
async fn exchange(address: SocketAddr, requests: &[(&str, String)]) -> Vec<Raw> {
    let mut socket = TcpStream::connect(address).await.unwrap();
    let all: String = requests.iter().map(|(_, text)| text.as_str()).collect();
    socket.write_all(all.as_bytes()).await.unwrap();
    let mut responses = Vec::new();
    for (method, _) in requests {
        responses.push(read_response(&mut socket, method).await);
    }
    responses
}

fn request(method: &str, path: &str, extra: &str) -> String {
    format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\n{extra}\r\n")
}

/// An HTTP/1.0 request that keeps its connection open.
fn http10(method: &str, path: &str, extra: &str) -> String {
    format!("{method} {path} HTTP/1.0\r\nHost: localhost\r\nConnection: keep-alive\r\n{extra}\r\n")
}

/// A request the front leaves to hyper, so that what follows it is hyper's.
fn to_hyper() -> (&'static str, String) {
    ("GET", get("/api/phrases?limit=1", ""))
}

#[tokio::test]
async fn pipelined_requests_are_answered_in_order_with_the_routers_headers_and_bytes() {
    let host = TestHost::start(None).await;
    let serving = serve(&host).await;
    let (words_identity, words_html) = routed(&host, "/words", "identity").await;
    let (words_br, words_br_body) = routed(&host, "/words", "br").await;
    let (home, home_html) = routed(&host, "/", "identity").await;

    // Three answered in front, then one for hyper, then a page hyper's side answers.
    let responses = exchange(
        serving.address,
        &[
            ("GET", get("/words", "")),
            (
                "GET",
                get(
                    "/words",
                    "Accept-Encoding: br\r\nConnection: keep-alive\r\n",
                ),
            ),
            ("HEAD", request("HEAD", "/words", "")),
            to_hyper(),
            ("GET", get("/", "")),
            ("GET", get("/words", "If-None-Match: \"nope\"\r\n")),
        ],
    )
    .await;
    assert!(responses.iter().all(|r| r.status == 200), "{responses:?}");
    assert_eq!(responses[0].comparable(), as_map(words_identity.clone()));
    assert_eq!(responses[0].body, words_html);
    assert_eq!(responses[1].comparable(), as_map(words_br));
    assert_eq!(responses[1].body, words_br_body);
    assert!(responses[2].body.is_empty());
    assert_eq!(responses[2].comparable(), responses[0].comparable());
    assert!(
        responses[3]
            .header("content-type")
            .unwrap()
            .contains("json")
    );
    assert_eq!(responses[4].comparable(), as_map(home));
    assert_eq!(responses[4].body, home_html);
    assert_eq!(responses[5].body, words_html);
    for response in &responses[..2] {
        let date = response.header("date").expect("a Date");
        assert!(httpdate_like(date), "{date}");
        assert_eq!(
            response.header("content-length"),
            Some(response.body.len().to_string().as_str())
        );
    }
}

#[tokio::test]
async fn head_and_validators_are_answered_in_front_as_hyper_answers_them() {
    for environment in [Environment::Staging, Environment::Production] {
        let host = TestHost::start_with(None, |config| config.environment = environment).await;
        let serving = serve(&host).await;
        let id = host
            .state
            .feed
            .current()
            .list
            .page(Anchor::First, 1, "")
            .phrases[0]
            .id
            .to_string();
        let card = format!("/words/{id}/card.png");
        routed(&host, "/words", "gzip").await;
        routed(&host, &card, "identity").await;
        // The validators below go with gzip, whose page has a tag of its own.
        let etag = |path: &str| {
            let path = path.to_owned();
            async move {
                let got = exchange(
                    serving.address,
                    &[("GET", get(&path, "Accept-Encoding: gzip\r\n"))],
                )
                .await;
                got[0].header("etag").unwrap().to_owned()
            }
        };
        let (words_etag, card_etag) = (etag("/words").await, etag(&card).await);
        let validator =
            |etag: &str| format!("If-None-Match: \"x\", {etag}\r\nAccept-Encoding: gzip\r\n");
        let cases = [
            (
                "HEAD",
                request("HEAD", "/words", "Accept-Encoding: gzip\r\n"),
            ),
            ("GET", request("GET", "/words", &validator(&words_etag))),
            ("HEAD", request("HEAD", "/words", &validator(&words_etag))),
            ("GET", request("GET", "/words", "If-None-Match: *\r\n")),
            ("HEAD", request("HEAD", &card, "")),
            ("GET", request("GET", &card, &validator(&card_etag))),
            ("GET", request("GET", &card, &validator("\"old\""))),
            ("GET", http10("GET", "/words", "")),
            ("HEAD", http10("HEAD", "/words", &validator(&words_etag))),
        ];
        let front = exchange(serving.address, &cases).await;
        let mut after = vec![to_hyper()];
        after.extend(cases.iter().cloned());
        let hyper = exchange(serving.address, &after).await;
        for ((front, hyper), (_, request)) in front.iter().zip(&hyper[1..]).zip(&cases) {
            assert_eq!(front.head_line, hyper.head_line, "{request:?}");
            assert_eq!(front.status, hyper.status, "{request:?}");
            assert_eq!(
                front.comparable(),
                hyper.comparable(),
                "{request:?} {environment:?}"
            );
            assert_eq!(
                front.header("content-length"),
                hyper.header("content-length"),
                "{request:?}"
            );
            assert_eq!(front.body, hyper.body, "{request:?}");
        }
        let statuses: Vec<u16> = front.iter().map(|r| r.status).collect();
        assert_eq!(statuses, [200, 304, 304, 304, 200, 304, 200, 200, 304]);
        assert!(front[7].head_line.starts_with("HTTP/1.0 200"));
    }
}

/// `Thu, 26 Nov 2026 12:00:00 GMT`.
fn httpdate_like(date: &str) -> bool {
    date.len() == 29 && date.ends_with(" GMT") && date.as_bytes()[3] == b','
}

#[tokio::test]
async fn a_request_trickled_a_byte_at_a_time_is_answered_once_it_is_all_there() {
    let host = TestHost::start(None).await;
    let serving = serve(&host).await;
    let (_, html) = routed(&host, "/words", "identity").await;
    let mut socket = TcpStream::connect(serving.address).await.unwrap();
    socket.set_nodelay(true).unwrap();
    for _ in 0..2 {
        for byte in get("/words", "Accept-Encoding: identity\r\n").bytes() {
            socket.write_all(&[byte]).await.unwrap();
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let response = read_response(&mut socket, "GET").await;
        assert_eq!(response.status, 200);
        assert_eq!(response.body, html);
    }
}

#[tokio::test]
async fn a_missing_or_repeated_host_is_refused_and_connection_close_is_honoured() {
    let host = TestHost::start(None).await;
    let serving = serve(&host).await;
    routed(&host, "/words", "identity").await;
    for request in [
        "GET /words HTTP/1.1\r\n\r\n".to_owned(),
        get("/words", "Host: elsewhere\r\n"),
    ] {
        let mut socket = TcpStream::connect(serving.address).await.unwrap();
        // A cached page first, answered in front, then the refused request.
        socket
            .write_all(format!("{}{request}", get("/words", "")).as_bytes())
            .await
            .unwrap();
        assert_eq!(read_response(&mut socket, "GET").await.status, 200);
        assert_eq!(
            read_response(&mut socket, "GET").await.status,
            400,
            "{request:?}"
        );
    }
    let mut socket = TcpStream::connect(serving.address).await.unwrap();
    socket
        .write_all(get("/words", "Connection: close\r\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(read_response(&mut socket, "GET").await.status, 200);
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), socket.read_to_end(&mut rest)).await;
    assert!(matches!(closed, Ok(Ok(0))), "closed after the response");
}

#[tokio::test]
async fn past_its_rate_a_client_in_front_is_refused_by_the_router() {
    let host = TestHost::rate_limited(1, 3).await;
    let serving = serve(&host).await;
    routed(&host, "/words", "identity").await;
    let mut socket = TcpStream::connect(serving.address).await.unwrap();
    socket
        .write_all(get("/words", "").repeat(5).as_bytes())
        .await
        .unwrap();
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let response = read_response(&mut socket, "GET").await;
        if response.status == 429 {
            assert!(response.header("retry-after").is_some());
        }
        statuses.push(response.status);
    }
    assert_eq!(statuses, [200, 200, 200, 429, 429]);
}

fn numbered(n: u64) -> Phrase {
    Phrase {
        created: n,
        edited: 0,
        ..phrase(&format!("q{n:05}"), &format!("WORD {n}"), "Rex")
    }
}

/// The ETag of a page that carries the list's version, as the host makes it.
fn etag_of(body: &[u8]) -> String {
    let html = String::from_utf8(body.to_vec()).expect("a page is UTF-8");
    let version = between(&html, "\"version\":", ",")
        .and_then(|digits| digits.parse().ok())
        .expect("the page carries its version");
    CachedPage::carrying_version(html, version)
        .etag(Encoding::Identity)
        .to_owned()
}

#[tokio::test]
async fn a_page_head_never_meets_another_versions_body() {
    let host = TestHost::start_with(None, |config| config.http.rate = None).await;
    let serving = serve(&host).await;
    let address = serving.address;
    let reader = tokio::spawn(async move {
        let mut socket = TcpStream::connect(address).await.unwrap();
        let mut etags = std::collections::HashSet::new();
        for _ in 0..400 {
            socket
                .write_all(get("/words", "").as_bytes())
                .await
                .unwrap();
            let response = read_response(&mut socket, "GET").await;
            assert_eq!(response.status, 200);
            let etag = response.header("etag").unwrap().to_owned();
            assert_eq!(etag, etag_of(&response.body), "the ETag is its body's");
            etags.insert(etag);
        }
        etags.len()
    });
    for n in 0..40 {
        host.state.feed.apply(vec![Change::Upsert {
            phrase: numbered(n),
        }]);
        // The router renders the new version, so the front has it to answer with.
        routed(&host, "/words", "identity").await;
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let versions = reader.await.unwrap();
    assert!(versions > 1, "the reader saw the page change");
}
