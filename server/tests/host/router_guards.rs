//! The router's guards without a socket (the in-process half; `tests/hardening/` drives the real
//! binary): hostile or malformed requests get a clear 4xx; operators get readiness and metrics.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use lastwords::config::Environment;
use lastwords::net::client::{ClientAddr, MetricsReaders};

use crate::common::{TestHost, text};

async fn get_with(host: &TestHost, uri: &str, headers: &[(&str, String)]) -> (StatusCode, String) {
    let mut request = Request::get(uri);
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let (response, body) = text(host.send(request.body(Body::empty()).unwrap()).await).await;
    (response.status(), body)
}

#[tokio::test]
async fn malformed_percent_encoding_and_utf8_get_400_saying_what_was_wrong() {
    let host = TestHost::start(None).await;
    for (uri, says) in [
        ("/words?check=%zz", "% not followed by two hex digits"),
        ("/words?check=%", "% not followed by two hex digits"),
        ("/words?check=%FF%FE", "not valid UTF-8"),
        ("/api/phrases/check?word=%C3", "not valid UTF-8"),
        ("/%ff", "not valid UTF-8"),
        ("/words?check=a%00b", "NUL"),
    ] {
        let (status, body) = get_with(&host, uri, &[]).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}");
        assert!(body.contains(says), "{uri}: {body}");
    }
    let (status, _) = get_with(&host, "/words?check=%C3%A9t%C3%A9", &[]).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "valid percent-encoded UTF-8 is fine"
    );
    // Every parameter some route reads is held to it...
    for uri in [
        "/words?after=%zz",
        "/words?before=%E9",
        "/api/phrases?after=%zz",
        "/api/phrases?before=%zz",
        "/api/phrases?limit=%E9",
        "/api/phrases?q=%E9",
        "/api/phrases/check?word=%zz",
        "/api/phrases/live?since=%FF",
        "/words?%63heck=%zz",
    ] {
        let (status, body) = get_with(&host, uri, &[]).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}: {body}");
        assert!(body.contains("the value of "), "{uri}: {body}");
    }
    // ...and one no route reads costs the visitor nothing: a link a mailer tagged in
    // Latin-1, or with a bare %, still leads to the page.
    for uri in [
        "/?ref=50%off",
        "/words?utm_term=%E9t%E9",
        "/words?check=RAWR&utm_term=%E9",
        "/api/phrases?fbclid=%zz",
        "/sitemap.xml?x=%FF",
        "/healthz?x=%",
    ] {
        let (status, body) = get_with(&host, uri, &[]).await;
        assert_eq!(status, StatusCode::OK, "{uri}: {body}");
    }
}

#[tokio::test]
async fn oversized_targets_and_headers_are_refused_before_any_work() {
    let host = TestHost::start(None).await;
    let long = format!("/words?check={}", "A".repeat(9000));
    let (status, body) = get_with(&host, &long, &[]).await;
    assert_eq!(status, StatusCode::URI_TOO_LONG);
    assert!(body.contains("at most 8192"), "{body}");

    let (status, body) = get_with(&host, "/", &[("x-junk", "j".repeat(20_000))]).await;
    assert_eq!(status, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    assert!(body.contains("headers"), "{body}");
}

#[tokio::test]
async fn nothing_outside_the_embedded_assets_is_served() {
    let host = TestHost::start(None).await;
    for uri in [
        "/assets/../Cargo.toml",
        "/assets/%2e%2e/Cargo.toml",
        "/assets/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "/assets/..%2f..%2fetc/passwd",
        "/assets//etc/passwd",
        "/assets/%252e%252e/server/Cargo.toml",
        "/assets/",
        "/../../etc/passwd",
    ] {
        let (status, body) = get_with(&host, uri, &[]).await;
        assert!(status == StatusCode::NOT_FOUND, "{uri} answered {status}");
        assert!(
            !body.contains("[package]") && !body.contains("root:"),
            "{uri}"
        );
    }
}

#[tokio::test]
async fn wrong_methods_get_405_even_with_a_body() {
    let host = TestHost::start(None).await;
    for uri in ["/", "/words", "/api/phrases"] {
        let request = Request::post(uri)
            .body(Body::from("x".repeat(100_000)))
            .unwrap();
        let status = host.send(request).await.status();
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED, "{uri}");
    }
}

#[tokio::test]
async fn readyz_answers_once_the_list_is_loaded() {
    let host = TestHost::start(None).await;
    let (status, body) = get_with(&host, "/readyz", &[]).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ready"));
    let (status, body) = get_with(&host, "/healthz", &[]).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok"));
    // Kept by no cache between the host and its load balancer or Prometheus: a kept
    // answer would hide a drain, an outage or a restart.
    for path in ["/healthz", "/readyz"] {
        let (response, _) = host.get(path).await;
        assert_eq!(
            response.headers()[header::CACHE_CONTROL],
            "no-store",
            "{path}"
        );
    }
    let (response, _) = host.scrape().await;
    assert_eq!(
        response.headers()[header::CACHE_CONTROL],
        "no-store",
        "/metrics"
    );
}

#[tokio::test]
async fn metrics_count_requests_by_route_renders_and_the_feed() {
    let host = TestHost::start(None).await;
    get_with(&host, "/words", &[]).await;
    get_with(&host, "/words", &[]).await;
    get_with(&host, "/no/such/page", &[]).await;
    let (response, metrics) = host.scrape().await;
    assert_eq!(response.status(), StatusCode::OK);
    for line in [
        "lastwords_http_requests_total{route=\"/words\",status=\"200\"} 2",
        "lastwords_http_requests_total{route=\"unmatched\",status=\"404\"} 1",
        "lastwords_render_seconds_count 2",
        "lastwords_render_cache_hits_total 1",
        "lastwords_render_cache_misses_total 2",
        "lastwords_websocket_connections 0",
        "lastwords_feed_synced 1",
        "lastwords_feed_up 1",
        "lastwords_feed_documents_skipped_total 0",
        "# TYPE lastwords_render_seconds histogram",
        "lastwords_card_cache_bytes 0",
    ] {
        assert!(metrics.contains(line), "{line} missing from\n{metrics}");
    }
    // The pages rendered weigh what they hold, with their compressed variants.
    let weight = metrics
        .lines()
        .find_map(|line| line.strip_prefix("lastwords_render_cache_bytes "))
        .and_then(|value| value.parse::<f64>().ok());
    assert!(weight.is_some_and(|bytes| bytes > 10_000.0), "{metrics}");
}

#[tokio::test]
async fn metrics_are_for_the_network_inside_not_a_visitor_nor_through_the_load_balancer() {
    let scrape = async |host: &TestHost, client: &str, headers: &[(&str, &str)]| {
        let mut request = Request::get("/metrics");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut request = request.body(Body::empty()).unwrap();
        let client: std::net::IpAddr = client.parse().unwrap();
        request.extensions_mut().insert(ClientAddr(client));
        let (response, body) = text(host.send(request).await).await;
        (response.status(), body)
    };
    let host = TestHost::start(None).await;
    for client in ["127.0.0.1", "10.4.0.9", "fd12::3"] {
        let (status, body) = scrape(&host, client, &[]).await;
        assert_eq!(status, StatusCode::OK, "{client}");
        assert!(body.contains("# TYPE lastwords_build_info gauge"), "{body}");
    }
    for (client, headers) in [
        ("203.0.113.5", &[][..]),
        ("10.0.0.2", &[("x-forwarded-for", "203.0.113.5")][..]),
        ("127.0.0.1", &[("forwarded", "for=203.0.113.5")][..]),
    ] {
        let (status, body) = scrape(&host, client, headers).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{client} {headers:?}");
        assert_eq!(
            body,
            "/metrics is served to the networks --metrics-from names (by default loopback and \
             private ones, not through a proxy)\n"
        );
    }
    let open = TestHost::start_with(None, |config| {
        config.http.metrics_from = MetricsReaders::Any;
    })
    .await;
    let (status, _) = scrape(&open, "203.0.113.5", &[("x-forwarded-for", "203.0.113.5")]).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn production_adds_hsts_and_staging_does_not() {
    let staging = TestHost::start(None).await;
    let response = staging
        .send(Request::get("/").body(Body::empty()).unwrap())
        .await;
    assert!(
        response
            .headers()
            .get(header::STRICT_TRANSPORT_SECURITY)
            .is_none()
    );

    let production =
        TestHost::start_with(None, |config| config.environment = Environment::Production).await;
    for uri in ["/", "/assets/nope", "/api/phrases"] {
        let response = production
            .send(Request::get(uri).body(Body::empty()).unwrap())
            .await;
        assert_eq!(
            response.headers()[header::STRICT_TRANSPORT_SECURITY],
            "max-age=63072000; includeSubDomains",
            "{uri}"
        );
    }
}

#[tokio::test]
async fn the_csp_forbids_inline_script_framing_plugins_and_base_tags() {
    let host = TestHost::start(None).await;
    let response = host
        .send(Request::get("/").body(Body::empty()).unwrap())
        .await;
    let csp = response.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    for directive in [
        "default-src 'self'",
        "script-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "object-src 'none'",
    ] {
        assert!(csp.contains(directive), "{directive} in {csp}");
    }
    assert!(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"));
    for name in ["cross-origin-opener-policy", "cross-origin-resource-policy"] {
        assert_eq!(response.headers()[name], "same-origin", "{name}");
    }
    assert_eq!(
        response.headers()[header::REFERRER_POLICY],
        "strict-origin-when-cross-origin"
    );
    assert!(
        response.headers()["permissions-policy"]
            .to_str()
            .unwrap()
            .contains("camera=()")
    );
}

/// Renders `words` until the phrase NEW ONE appears; throws for everything else.
const FLAKY_BUNDLE: &str = r#"globalThis.__lastwords = { render(request) {
    const { route } = JSON.parse(request);
    if (route === "words" && !request.includes("NEW ONE")) return "<main><p>FIRST WORDS RENDER</p></main>";
    throw new Error("renderer broke for " + route);
} };"#;

#[tokio::test]
async fn a_failing_renderer_serves_the_last_good_page_or_an_html_500_page() {
    let host = TestHost::start_with_bundle(FLAKY_BUNDLE).await;
    let (status, html) = get_with(&host, "/words", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("FIRST WORDS RENDER"));

    // A new version needs a new render, which throws: the last good page stands in.
    host.state
        .feed
        .replace(vec![crate::common::phrase("z", "NEW ONE", "Rex")]);
    let (status, html) = get_with(&host, "/words", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("FIRST WORDS RENDER"));

    // No good page yet: an HTML page that says what happened, not JSON.
    let request = Request::get("/").body(Body::empty()).unwrap();
    let (response, html) = text(host.send(request).await).await;
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        response.headers()[header::CONTENT_TYPE],
        "text/html; charset=utf-8"
    );
    assert!(html.contains("Something went wrong") && html.contains("href=\"/\""));
    assert!(
        !html.contains("renderer broke"),
        "the cause stays in the log"
    );

    // Other requests are unaffected.
    let (status, _) = get_with(&host, "/api/phrases", &[]).await;
    assert_eq!(status, StatusCode::OK);
    let (response, metrics) = host.scrape().await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        metrics.contains("lastwords_render_failures_total 2"),
        "{metrics}"
    );
}

/// Renders the checker's answer slowly (300 ms of busy engine) and the plain page at once.
const SLOW_CHECK_BUNDLE: &str = r#"globalThis.__lastwords = { render(request) {
    const { props } = JSON.parse(request);
    if (props.check && props.check.input !== "") {
        const until = Date.now() + 300;
        while (Date.now() < until) {}
        return "<main><p>CHECKED</p></main>";
    }
    return "<main><p>LIST OF " + props.phrases.length + "</p></main>";
} };"#;

#[tokio::test]
async fn a_flood_of_no_script_checks_does_not_hold_up_the_list_after_a_change() {
    let host = Arc::new(TestHost::start_with_bundle(SLOW_CHECK_BUNDLE).await);
    let (status, html) = get_with(&host, "/words?check=", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("LIST OF"), "an empty check is the plain page");

    // Four visitors without JavaScript check words; each answer is a render of its own.
    // The tasks only answer: asserting in them would hang this test on a failure.
    let checks: Vec<_> = ["RAWR", "ROAR", "GRR", "BYE"]
        .into_iter()
        .map(|word| {
            let host = host.clone();
            let task =
                tokio::spawn(
                    async move { get_with(&host, &format!("/words?check={word}"), &[]).await },
                );
            (word, task)
        })
        .collect();
    // The flood is on once a check holds the checks' one renderer.
    poll_until(
        || host.state.check_renders.available_permits() == 0,
        "a check render under way",
    )
    .await;

    // The list changes: the next visitor's page is a miss that must not wait for all four.
    host.state
        .feed
        .replace(vec![crate::common::phrase("z", "NEW ONE", "Rex")]);
    let (status, html) = get_with(&host, "/words", &[]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("LIST OF 1"), "{html}");
    let checked_before = checks.iter().filter(|(_, task)| task.is_finished()).count();
    assert!(
        checked_before <= 1,
        "the list waited for {checked_before} check renders"
    );
    for (word, task) in checks {
        let answer = tokio::time::timeout(DEADLINE, task)
            .await
            .unwrap_or_else(|_| panic!("the check of {word} was not answered in {DEADLINE:?}"));
        let (status, html) = answer.unwrap_or_else(|e| panic!("the check of {word} failed: {e}"));
        assert_eq!(status, StatusCode::OK, "{word}");
        assert!(html.contains("CHECKED"), "{word}: {html}");
    }
}

/// Longest a test waits for something it expects; far past what any of them needs.
const DEADLINE: Duration = Duration::from_secs(30);

/// Looks at `condition` every 10 ms until it holds; fails naming `what` after [`DEADLINE`].
async fn poll_until(condition: impl Fn() -> bool, what: &str) {
    let started = Instant::now();
    while !condition() {
        assert!(
            started.elapsed() < DEADLINE,
            "{what}: not within {DEADLINE:?}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn the_json_api_refuses_in_json_saying_why() {
    // A burst of one: the 405 takes it (the malformed ones are refused before the limit).
    let host = TestHost::rate_limited(1, 1).await;
    let cases = [
        (Request::get("/api/phrases?q=%zz"), 400, "two hex digits"),
        (
            Request::get("/api/phrases/check?word=%FF"),
            400,
            "not valid UTF-8",
        ),
        (Request::get("/api/%zz"), 400, "two hex digits"),
        (Request::post("/api/phrases"), 405, "GET and HEAD only"),
        (Request::get("/api/phrases"), 429, "slow down"),
    ];
    let client = ClientAddr(std::net::Ipv4Addr::new(192, 0, 2, 1).into());
    for (request, status, says) in cases {
        let request = request.extension(client).body(Body::empty()).unwrap();
        let (response, body) = text(host.send(request).await).await;
        assert_eq!(response.status().as_u16(), status, "{body}");
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/json");
        assert_eq!(response.headers()[header::CACHE_CONTROL], "no-store");
        let answer: serde_json::Value = serde_json::from_str(&body).expect("the body is JSON");
        let error = answer["error"].as_str().expect("it says why in `error`");
        assert!(error.contains(says), "{status}: {error:?}");
        match status {
            405 => assert_eq!(response.headers()[header::ALLOW], "GET,HEAD"),
            429 => assert!(response.headers().contains_key(header::RETRY_AFTER)),
            _ => {}
        }
    }
}

#[tokio::test]
async fn a_parameter_given_twice_is_named_in_the_apis_words() {
    let host = TestHost::start(None).await;
    for (uri, says) in [
        (
            "/api/phrases?limit=1&limit=2",
            "limit is given more than once",
        ),
        (
            "/api/phrases/check?word=A&word=B",
            "word is given more than once",
        ),
    ] {
        let (status, body) = get_with(&host, uri, &[]).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{uri}");
        let answer: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(answer["error"], says, "{uri}");
    }
}

#[tokio::test]
async fn every_plain_text_refusal_is_one_line_saying_why() {
    let host = TestHost::start(None).await;
    let upgrade = |origin: &'static str| {
        vec![
            ("connection", "upgrade".to_owned()),
            ("upgrade", "websocket".to_owned()),
            ("sec-websocket-version", "13".to_owned()),
            ("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==".to_owned()),
            ("origin", origin.to_owned()),
        ]
    };
    for (uri, headers, status, says) in [
        ("/words?check=%zz", vec![], 400, "two hex digits"),
        ("/api/phrases/live", vec![], 400, "is a WebSocket"),
        (
            "/api/phrases/live",
            upgrade("https://elsewhere.example"),
            403,
            "origin may not open",
        ),
        ("/assets/nothing.js", vec![], 404, "no such asset"),
    ] {
        let mut request = Request::get(uri);
        for (name, value) in &headers {
            request = request.header(*name, value);
        }
        let (response, body) = text(host.send(request.body(Body::empty()).unwrap()).await).await;
        assert_eq!(response.status().as_u16(), status, "{uri}");
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "text/plain; charset=utf-8",
            "{uri}"
        );
        assert!(body.contains(says), "{uri}: {body:?}");
        assert!(
            body.ends_with('\n') && body.lines().count() == 1,
            "{uri}: {body:?}"
        );
    }
}

#[tokio::test]
async fn an_unknown_api_path_is_a_json_404_naming_the_endpoints_and_a_check_is_asked_afresh() {
    let host = TestHost::start(None).await;
    for path in [
        "/api",
        "/api/",
        "/api/phrases/",
        "/api/nope",
        "/api/phrases/check/",
    ] {
        let (response, body) = host.get(path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "application/json",
            "{path}"
        );
        assert_eq!(response.headers()[header::CACHE_CONTROL], "no-store");
        let json: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        let error = json["error"].as_str().expect("an error line");
        assert!(error.contains("GET /api/phrases/check?word="), "{error}");
    }
    let (response, _) = host.get("/api/phrases/check?word=abc").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[header::CACHE_CONTROL], "no-cache");
}
