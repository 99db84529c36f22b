//! The fast path answers a cached page or card with exactly what the router sends
//! (every header, the same bytes), and leaves everything else to the router.

use std::net::{IpAddr, Ipv4Addr};

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode, header};
use lastwords::config::Environment;
use lastwords::routes::FastPath;

use crate::common::{TestHost, bytes};

const CLIENT: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

fn get(uri: &str, encoding: Option<&str>) -> Request<Body> {
    let mut request = Request::get(uri);
    if let Some(encoding) = encoding {
        request = request.header(header::ACCEPT_ENCODING, encoding);
    }
    request.body(Body::empty()).expect("a valid request")
}

/// The router's headers as hyper would send them, less the Content-Length it adds.
fn sent(headers: &HeaderMap) -> Vec<(String, String)> {
    let mut all: Vec<_> = headers
        .iter()
        .filter(|(name, _)| *name != header::CONTENT_LENGTH)
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap_or("?").to_owned()))
        .collect();
    all.sort();
    all
}

async fn first_id(host: &TestHost) -> String {
    host.state
        .feed
        .current()
        .list
        .page(lastwords::feed::list::Anchor::First, 1, "")
        .phrases[0]
        .id
        .to_string()
}

#[tokio::test]
async fn a_cached_page_or_card_is_answered_with_the_routers_headers_and_bytes() {
    for environment in [Environment::Staging, Environment::Production] {
        let host = TestHost::start_with(None, |config| config.environment = environment).await;
        let fast = FastPath::new(host.state.clone());
        let id = first_id(&host).await;
        assert!(
            fast.answer(&get("/", None), CLIENT).await.is_none(),
            "a page not rendered yet is the router's to render"
        );
        let pages = [
            "/".to_owned(),
            "/words".to_owned(),
            "/Words".to_owned(),
            format!("/words/{id}"),
            format!("/Words/{id}"),
        ];
        for path in &pages {
            for encoding in [None, Some("gzip"), Some("br"), Some("gzip, deflate, br")] {
                let (routed, body) = bytes(host.send(get(path, encoding)).await).await;
                assert_eq!(routed.status(), StatusCode::OK, "{path}");
                let prepared = fast
                    .answer(&get(path, encoding), CLIENT)
                    .await
                    .unwrap_or_else(|| panic!("{path} {encoding:?} is cached now"));
                assert_eq!(
                    sent(&prepared.headers),
                    sent(routed.headers()),
                    "{path} {encoding:?} in {environment:?}"
                );
                assert_eq!(prepared.body, body, "{path} {encoding:?}");
            }
        }
        let card = format!("/words/{id}/card.png");
        assert!(fast.answer(&get(&card, None), CLIENT).await.is_none());
        let (routed, body) = bytes(host.send(get(&card, Some("br"))).await).await;
        assert_eq!(routed.status(), StatusCode::OK);
        let prepared = fast.answer(&get(&card, Some("br")), CLIENT).await;
        let prepared = prepared.expect("the card is cached now");
        assert_eq!(sent(&prepared.headers), sent(routed.headers()));
        assert_eq!(prepared.body, body);
    }
}

#[tokio::test]
async fn everything_else_is_left_to_the_router() {
    let host = TestHost::start(None).await;
    let fast = FastPath::new(host.state.clone());
    let id = first_id(&host).await;
    for path in ["/", "/words", &format!("/words/{id}")] {
        let (_, _) = bytes(host.send(get(path, None)).await).await;
        assert!(
            fast.answer(&get(path, None), CLIENT).await.is_some(),
            "{path}"
        );
        let head = Request::builder()
            .method(Method::HEAD)
            .uri(path)
            .body(Body::empty())
            .unwrap();
        assert!(fast.answer(&head, CLIENT).await.is_none(), "HEAD {path}");
        let conditional = Request::get(path)
            .header(header::IF_NONE_MATCH, "\"x\"")
            .body(Body::empty())
            .unwrap();
        assert!(
            fast.answer(&conditional, CLIENT).await.is_none(),
            "If-None-Match {path}"
        );
        let query = format!("{path}?check=RAWR");
        assert!(
            fast.answer(&get(&query, None), CLIENT).await.is_none(),
            "{query}"
        );
    }
    for path in [
        "/words/no-such-id",
        "/words/",
        "/words/a%41",
        "/words/x/y",
        "/robots.txt",
    ] {
        assert!(
            fast.answer(&get(path, None), CLIENT).await.is_none(),
            "{path}"
        );
    }
}

#[tokio::test]
async fn past_its_rate_a_client_is_left_to_the_router_which_refuses_it() {
    let host = TestHost::rate_limited(1, 3).await;
    let fast = FastPath::new(host.state.clone());
    // The router's own request renders the page; it has no client, so no limit applies.
    let _ = bytes(host.send(get("/words", None)).await).await;
    let mut answered = Vec::new();
    for _ in 0..5 {
        answered.push(fast.answer(&get("/words", None), CLIENT).await.is_some());
    }
    assert_eq!(answered, [true, true, true, false, false]);
}
