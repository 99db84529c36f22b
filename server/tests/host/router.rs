//! The router without a socket: every route, negotiation, validators and escaping.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};

use crate::common::{TestHost, between, bytes, phrase, text};
use lastwords::feed::Phrase;

#[tokio::test]
async fn home_is_server_rendered_inside_the_document_shell() {
    let host = TestHost::start(None).await;
    let (response, html) = host.get("/").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()[header::CONTENT_TYPE],
        "text/html; charset=utf-8"
    );
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.contains("<html lang=\"en\">"));
    assert!(html.contains("<link rel=\"canonical\" href=\"http://127.0.0.1:8080/\">"));
    assert!(html.contains("property=\"og:title\""));
    assert!(html.contains("<script type=\"module\" src=\"/assets/client-"));
    assert!(html.contains("<footer"), "the footer is in the server HTML");
    assert!(html.contains("THE END IS NEAR, HURRY UP!"));
    let csp = response.headers()[header::CONTENT_SECURITY_POLICY]
        .to_str()
        .unwrap();
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"));
    assert_eq!(
        response.headers()[header::X_CONTENT_TYPE_OPTIONS],
        "nosniff"
    );
}

#[tokio::test]
async fn words_lists_every_phrase_with_its_length_and_author() {
    let host = TestHost::start(Some(vec![
        phrase("a", "SEE YOU LATER", "Rex"),
        phrase("b", "👨‍👩‍👧 BYE", "Émile"),
    ]))
    .await;
    for path in ["/words", "/Words"] {
        let (response, html) = host.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert!(html.contains("Already-minted Last Words"), "{path}");
        assert!(html.contains("SEE YOU LATER"));
        assert!(html.contains("(13)"), "the length of SEE YOU LATER");
        assert!(html.contains("(5)"), "an emoji family counts once");
        assert!(html.contains("By <bdi>Émile</bdi>"));
    }
}

#[tokio::test]
async fn the_no_js_checker_answers_on_the_server() {
    let host = TestHost::start(Some(vec![phrase("a", "HELLO", "Rex")])).await;
    let (_, taken) = host.get("/words?check=hello").await;
    assert!(taken.contains("Already taken"), "HELLO is minted");
    assert!(
        taken.contains("value=\"hello\""),
        "the input keeps what was typed"
    );
    let (_, free) = host.get("/words?check=goodbye").await;
    assert!(free.contains("It is available!"));
    let long = "A".repeat(21);
    let (response, too_long) = host.get(&format!("/words?check={long}")).await;
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "an over-long value is no error page"
    );
    assert!(
        too_long.contains("At most 20 characters"),
        "says what was wrong"
    );
}

#[tokio::test]
async fn the_no_js_checker_links_the_taker_offers_alternatives_and_names_a_look_alike_escaped() {
    let hostile = r#"<img src=x onerror="alert(1)">&amp;"#;
    let host = TestHost::start(Some(vec![
        phrase("a", "DINO ROAR", hostile),
        phrase("b", "<B>OLD</B>", "Ann"),
    ]))
    .await;
    let (_, body) = host.get("/api/phrases/check?word=dino%20roar").await;
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    let id = json["taker"]["id"].as_str().unwrap().to_owned();
    let escaped_name = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp;";

    let (_, taken) = host.get("/words?check=dino%20roar").await;
    assert!(
        taken.contains(">Already taken</p>"),
        "the message line is exact"
    );
    assert!(
        taken.contains(&format!("href=\"/words/{id}\"")),
        "links the taker"
    );
    assert!(taken.contains(&format!(
        "Minted by <bdi class=\"font-bold text-white\">{escaped_name}</bdi>"
    )));
    for alternative in ["DINO%20ROAR!", "DINO%20ROAR%3F", "ROAR%20DINO"] {
        assert!(
            taken.contains(&format!("href=\"/words?check={alternative}\"")),
            "{alternative}"
        );
    }
    assert!(
        !taken.contains("<img src=x"),
        "the name is text, not markup"
    );

    let (_, alike) = host.get("/words?check=DIN0%20ROAR").await;
    assert!(
        alike.contains(">It is available!</p>"),
        "the message line is exact"
    );
    assert!(alike.contains("But it reads like"));
    assert!(alike.contains(&format!("href=\"/words/{id}\"")));
    assert!(alike.contains(escaped_name) && !alike.contains("<img src=x"));

    // A phrase of markup is text in its link and in every alternative's.
    let (_, markup) = host.get("/words?check=%3Cb%3Eold%3C/b%3E").await;
    assert!(markup.contains("see “<bdi>&lt;B&gt;OLD&lt;/B&gt;</bdi>”"));
    assert!(markup.contains("href=\"/words?check=%3CB%3EOLD%3C%2FB%3E!\""));
    assert!(!markup.contains("<B>OLD"));
}

#[tokio::test]
async fn the_list_or_a_phrase_with_a_slash_after_it_leads_there() {
    let host = TestHost::start(None).await;
    for (path, to) in [
        ("/words/", "/words"),
        ("/Words/", "/words"),
        ("/words/?check=rawr", "/words?check=rawr"),
        ("/words/a1/", "/words/a1"),
        ("/Words/a1/", "/words/a1"),
        ("/words/a1/?utm_source=x", "/words/a1?utm_source=x"),
        ("/words/h%C3%A9%20l%C3%A0/", "/words/h%C3%A9%20l%C3%A0"),
        // No phrase between the slashes: the list, in one step.
        ("/words//", "/words"),
        ("/Words//?check=rawr", "/words?check=rawr"),
    ] {
        let (response, _) = host.get(path).await;
        assert_eq!(response.status(), StatusCode::PERMANENT_REDIRECT, "{path}");
        assert_eq!(response.headers()[header::LOCATION], to, "{path}");
    }
}

#[tokio::test]
async fn unknown_paths_get_the_server_rendered_404_page() {
    let host = TestHost::start(None).await;
    let (response, html) = host.get("/no/such/page").await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert!(html.contains("Page not found"));
    // Most links that end here were a phrase's: the list is one step away.
    assert!(
        html.contains("href=\"/words\">All Last Words</a>"),
        "{html}"
    );
    assert!(html.contains("<meta name=\"robots\" content=\"noindex\">"));
}

#[tokio::test]
async fn a_matching_etag_gets_304_and_a_change_gets_a_new_page() {
    let host = TestHost::start(None).await;
    let (first, _) = host.get("/words").await;
    let etag = first.headers()[header::ETAG].clone();
    // The page carries the feed's version, which its validator leaves out.
    assert!(
        etag.to_str().unwrap().starts_with("W/\""),
        "a weak validator: {etag:?}"
    );
    let request = Request::get("/words")
        .header(header::IF_NONE_MATCH, etag.clone())
        .body(Body::empty())
        .unwrap();
    let (again, body) = text(host.send(request).await).await;
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    // What a cache keeps from the 200 comes with the 304 (RFC 9110, 15.4.5).
    assert_eq!(again.headers()[header::CACHE_CONTROL], "no-cache");
    assert_eq!(again.headers()[header::VARY], "accept-encoding");
    assert_eq!(again.headers()[header::ETAG], etag);
    // A proxy that recompresses weakens the tag; If-None-Match compares weakly.
    let weak = format!(
        "\"other\", W/{}",
        etag.to_str().unwrap().trim_start_matches("W/")
    );
    let request = Request::get("/words")
        .header(header::IF_NONE_MATCH, weak)
        .body(Body::empty())
        .unwrap();
    assert_eq!(host.send(request).await.status(), StatusCode::NOT_MODIFIED);

    host.state.feed.replace(vec![phrase("z", "NEW ONE", "Zed")]);
    let request = Request::get("/words")
        .header(header::IF_NONE_MATCH, etag.clone())
        .body(Body::empty())
        .unwrap();
    let (changed, html) = text(host.send(request).await).await;
    assert_eq!(changed.status(), StatusCode::OK);
    assert_ne!(changed.headers()[header::ETAG], etag);
    assert!(html.contains("NEW ONE"));
}

/// What a browser or a crawler revalidating meets behind a load balancer, or after a
/// deploy: each host process numbers the list's versions its own way.
#[tokio::test]
async fn two_hosts_on_one_list_give_each_page_the_same_validator() {
    // As one Firestore gives every host: the same ids, words, names and mint times.
    let phrases: Vec<_> = (0..60)
        .map(|n| Phrase {
            created: 1_700_000_000_000_000 + n,
            edited: 0,
            ..phrase(&format!("p{n:03}"), &format!("WORD {n}"), "Rex")
        })
        .collect();
    let (a, b) = (TestHost::start(None).await, TestHost::start(None).await);
    a.state.feed.replace(phrases.clone());
    b.state.feed.replace(phrases);
    let (_, first) = a.get("/words").await;
    let later = format!(
        "/words?after={}",
        between(&first, "href=\"/words?after=", "\"").expect("a link to older phrases")
    );
    for path in ["/words", later.as_str(), "/words/p007"] {
        let (one, html_one) = a.get(path).await;
        let (other, html_other) = b.get(path).await;
        assert_eq!(one.status(), StatusCode::OK, "{path}");
        assert_ne!(
            html_one, html_other,
            "{path}: each page holds its host's version"
        );
        let etag = one.headers()[header::ETAG].clone();
        assert_eq!(other.headers()[header::ETAG], etag, "{path}");
        for encoding in ["gzip", "br"] {
            let mut tags = Vec::new();
            for host in [&a, &b] {
                let request = Request::get(path)
                    .header(header::ACCEPT_ENCODING, encoding)
                    .body(Body::empty())
                    .unwrap();
                tags.push(host.send(request).await.headers()[header::ETAG].clone());
            }
            assert_eq!(tags[0], tags[1], "{path} {encoding}");
            assert_ne!(tags[0], etag, "{path} {encoding}: a variant of its own");
        }
        let request = Request::get(path)
            .header(header::IF_NONE_MATCH, etag)
            .body(Body::empty())
            .unwrap();
        assert_eq!(
            b.send(request).await.status(),
            StatusCode::NOT_MODIFIED,
            "{path}"
        );
    }
    assert!(
        a.get("/words/p007").await.1.contains("WORD 7"),
        "the phrase's own page"
    );
    // A change is a new page, on either host.
    let before = a.get("/words").await.0.headers()[header::ETAG].clone();
    b.state.feed.replace(vec![phrase("z", "NEW ONE", "Zed")]);
    assert_ne!(b.get("/words").await.0.headers()[header::ETAG], before);
}

#[tokio::test]
async fn pages_render_once_per_data_version() {
    let host = TestHost::start(None).await;
    for _ in 0..3 {
        host.get("/words").await;
        host.get("/").await;
    }
    let misses = host.state.metrics.cache_misses.get();
    assert_eq!(misses, 2, "one render for / and one for /words");
}

#[tokio::test]
async fn a_page_is_the_same_in_every_encoding_whichever_is_asked_for_first() {
    let host = TestHost::start(None).await;
    let fetch = |encoding: &'static str| {
        let request = Request::get("/words")
            .header(header::ACCEPT_ENCODING, encoding)
            .body(Body::empty())
            .unwrap();
        async { bytes(host.send(request).await).await }
    };
    // Each encoding is made when first asked for: gzip first here, then brotli.
    let (gzip, gzipped) = fetch("gzip").await;
    let (br, brotlied) = fetch("br").await;
    let (identity, html) = fetch("identity").await;
    assert_eq!(gzip.headers()[header::CONTENT_ENCODING], "gzip");
    assert_eq!(br.headers()[header::CONTENT_ENCODING], "br");
    assert!(identity.headers().get(header::CONTENT_ENCODING).is_none());
    assert!(String::from_utf8_lossy(&html).contains("Already-minted Last Words"));

    let mut from_gzip = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&gzipped[..]),
        &mut from_gzip,
    )
    .unwrap();
    let mut from_br = Vec::new();
    brotli::BrotliDecompress(&mut &brotlied[..], &mut from_br).unwrap();
    assert_eq!(from_gzip, html);
    assert_eq!(from_br, html);
    assert_eq!(
        fetch("br").await.1,
        brotlied,
        "made once, then served as made"
    );
}

#[tokio::test]
async fn pages_and_assets_are_served_compressed_when_accepted() {
    let host = TestHost::start(None).await;
    let request = Request::get("/words")
        .header(header::ACCEPT_ENCODING, "gzip, br")
        .body(Body::empty())
        .unwrap();
    let response = host.send(request).await;
    assert_eq!(response.headers()[header::CONTENT_ENCODING], "br");
    assert_eq!(response.headers()[header::VARY], "accept-encoding");

    let js = &host.state.ui.get().manifest.js;
    let request = Request::get(format!("/assets/{js}"))
        .header(header::ACCEPT_ENCODING, "gzip")
        .body(Body::empty())
        .unwrap();
    let response = host.send(request).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[header::CONTENT_ENCODING], "gzip");
    assert_eq!(
        response.headers()[header::CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    assert!(
        response.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );

    let (missing, _) = host.get("/assets/../Cargo.toml").await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn hostile_phrases_are_displayed_literally_and_the_props_stay_inert() {
    let attack = "</script><script>alert(1)</script>";
    // Past the store's content rules (too long, line separators): published straight to
    // the feed, so escaping is shown to hold even for what the rules would refuse.
    let host = TestHost::start(None).await;
    host.state.feed.replace(vec![
        phrase("a", attack, attack),
        phrase("b", "<!--\u{2028}\u{2029}", "&amp;"),
    ]);
    let (_, html) = host.get("/words").await;
    assert!(
        !html.contains("<script>alert(1)"),
        "no injected script element"
    );
    assert_eq!(
        html.matches("</script>").count(),
        2,
        "only the shell's two scripts close"
    );
    assert!(
        html.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
        "shown as text"
    );
    let props_start = html.find("id=\"__props\">").unwrap();
    let props = &html[props_start..];
    assert!(props.contains("\\u003c/script\\u003e"));
    assert!(!props.contains('\u{2028}') && !props.contains("<!--"));
    assert!(
        html.contains("&amp;amp;"),
        "an entity in a name is escaped, not decoded"
    );
}

#[tokio::test]
async fn the_json_api_checks_words_and_explains_bad_ones() {
    let host = TestHost::start(Some(vec![phrase("a", "HELLO", "Rex")])).await;
    let (response, body) = host.get("/api/phrases/check?word=hello").await;
    assert_eq!(response.status(), StatusCode::OK);
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["word"], "HELLO");
    assert_eq!(json["available"], false);

    let (missing, body) = host.get("/api/phrases/check").await;
    assert_eq!(missing.status(), StatusCode::BAD_REQUEST);
    assert!(body.contains("?word="));
    let (long, body) = host
        .get(&format!("/api/phrases/check?word={}", "x".repeat(21)))
        .await;
    assert_eq!(long.status(), StatusCode::BAD_REQUEST);
    assert!(body.contains("at most 20 characters"), "{body}");

    let (list, body) = host.get("/api/phrases").await;
    let etag = list.headers()[header::ETAG].clone();
    assert!(body.contains("\"HELLO\""));
    let request = Request::get("/api/phrases")
        .header(header::IF_NONE_MATCH, etag)
        .body(Body::empty())
        .unwrap();
    assert_eq!(host.send(request).await.status(), StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn the_check_api_names_the_taker_offers_alternatives_and_warns_of_look_alikes() {
    let host = TestHost::start(Some(vec![
        phrase("rex", "DINO ROAR", "<b>Rex</b>"),
        phrase("ann", "DINO ROAR!", "Ann"),
    ]))
    .await;
    let json = |body: &str| serde_json::from_str::<serde_json::Value>(body).unwrap();
    let (_, body) = host.get("/api/phrases/check?word=dino%20roar").await;
    let taken = json(&body);
    assert_eq!(taken["available"], false);
    // The store gives its own ids: the look-alike must name the same one.
    let rex = taken["taker"]["id"].as_str().unwrap().to_owned();
    assert!(!rex.is_empty());
    assert_eq!(taken["taker"]["word"], "DINO ROAR");
    assert_eq!(taken["taker"]["name"], "<b>Rex</b>");
    assert_eq!(
        taken["alternatives"],
        serde_json::json!(["DINO ROAR?", "ROAR DINO", "DINO ROARS"])
    );
    assert!(taken["lookalike"].is_null());

    // A zero for the O, a Cyrillic І for the I: free, and read like DINO ROAR.
    for word in ["DIN0%20ROAR", "D%D0%86NO%20ROAR"] {
        let (_, body) = host.get(&format!("/api/phrases/check?word={word}")).await;
        let alike = json(&body);
        assert_eq!(alike["available"], true, "{word}");
        assert_eq!(alike["lookalike"]["id"], rex.as_str(), "{word}");
        assert_eq!(alike["lookalike"]["name"], "<b>Rex</b>", "{word}");
        assert!(alike["taker"].is_null());
        assert_eq!(alike["alternatives"], serde_json::json!([]));
    }
    let (_, body) = host.get("/api/phrases/check?word=goodbye").await;
    let free = json(&body);
    assert_eq!(free["available"], true);
    assert!(free["lookalike"].is_null() && free["taker"].is_null());
}

#[tokio::test]
async fn wrong_methods_get_405_and_head_works() {
    let host = TestHost::start(None).await;
    let post = host
        .send(Request::post("/").body(Body::empty()).unwrap())
        .await;
    let (post, body) = text(post).await;
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
    // Says what is answered, as every refusal does; the Allow header says it to a client.
    assert_eq!(body, "this address answers GET and HEAD only\n");
    assert_eq!(post.headers()[header::ALLOW], "GET,HEAD");
    assert_eq!(
        post.headers()[header::CONTENT_TYPE],
        "text/plain; charset=utf-8"
    );
    let head = host
        .send(Request::head("/words").body(Body::empty()).unwrap())
        .await;
    assert_eq!(head.status(), StatusCode::OK);
}

#[tokio::test]
async fn healthz_answers() {
    let host = TestHost::start(None).await;
    let (response, body) = host.get("/healthz").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(body, "ok");
}
