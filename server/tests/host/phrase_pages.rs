//! A page per phrase, `/words/{id}`: odd ids, hostile names, its head, 404 and 410, and
//! the links to it from the list.

use std::time::Duration;

use axum::http::StatusCode;
use lastwords::feed::{Change, Phrase};

use crate::common::{TestHost, between, phrase};

/// Ids Firestore allows (anything but `/`, `.` and `..`), with the characters that
/// mean something in a URL, in HTML or in JSON.
const ODD_IDS: &[&str] = &[
    "abc",
    "a.b",
    "...",
    ".hidden",
    "x y",
    "100%",
    "%41",
    "a?b#c",
    "a+b&c=d;e",
    "__x__",
    "日本語",
    "ü-ß",
    "🦖",
    "(it's)",
    "a\"b",
    "<i>x</i>",
    "~!*'()",
];

fn meta<'a>(html: &'a str, attribute: &str, name: &str) -> &'a str {
    between(
        html,
        &format!("<meta {attribute}=\"{name}\" content=\""),
        "\"",
    )
    .unwrap_or_else(|| panic!("no {name} in {html}"))
}

fn unescape(text: &str) -> String {
    text.replace("&amp;", "&")
        .replace("&#34;", "\"")
        .replace("&#39;", "'")
        .replace("&#60;", "<")
        .replace("&#62;", ">")
        .replace("&#38;", "&")
}

#[tokio::test]
async fn every_id_firestore_allows_has_its_page_at_its_encoded_path() {
    let host = TestHost::start(None).await;
    let phrases: Vec<_> = (ODD_IDS.iter().enumerate())
        .map(|(n, id)| phrase(id, &format!("WORD {n}"), &format!("Name {n}")))
        .collect();
    host.state.feed.replace(phrases);
    let site = &host.state.config.site;
    for (n, id) in ODD_IDS.iter().enumerate() {
        let path = site.phrase_path(id);
        assert!(
            path[1..].split('/').count() == 2 && !path.contains(['?', '#', ' ', '"', '<']),
            "{path}"
        );
        for asked in [path.clone(), path.replacen("/words/", "/Words/", 1)] {
            let (response, html) = host.get(&asked).await;
            assert_eq!(response.status(), StatusCode::OK, "{id:?} at {asked}");
            assert!(html.contains(&format!("<bdi>WORD {n}</bdi>")), "{id:?}");
            let canonical = between(&html, "<link rel=\"canonical\" href=\"", "\"").unwrap();
            assert_eq!(unescape(canonical), site.absolute_url(&path), "{id:?}");
        }
    }
    // A path whose segment decodes to another id (or to none) finds no phrase.
    assert_eq!(site.phrase_path("a.b"), "/words/a.b");
    assert_eq!(site.phrase_path("x y"), "/words/x%20y");
    assert_eq!(site.phrase_path("100%"), "/words/100%25");
    let (ab, _) = host.get("/words/%61.b").await;
    assert_eq!(ab.status(), StatusCode::OK, "another spelling of a.b");
    for missing in ["/words/A.B", "/words/a%2Fb", "/words/abc/def"] {
        let (response, html) = host.get(missing).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{missing}");
        assert!(
            html.contains("Page not found"),
            "{missing}: the site's 404 page"
        );
    }
}

#[tokio::test]
async fn names_and_phrases_stay_text_in_the_page_the_head_and_the_json_ld() {
    let host = TestHost::start(None).await;
    let name_40 = "Ñ".repeat(39) + "\"";
    // 16 characters as a person sees them, 400 bytes: the most a phrase may hold.
    let family_400 = "👨\u{200d}👩\u{200d}👧\u{200d}👦".repeat(16);
    assert_eq!(family_400.len(), 400);
    let hostile = [
        ("m", "<B>HI</B>", "</script><script>alert(1)</script>"),
        ("q", "\"QUOTED\" 'Q'", "\"><img src=x onerror=alert(1)>"),
        ("b", "שָׁלוֹם ABC", "مرحبا abc ‏"),
        (
            "l",
            "🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖🦖",
            name_40.as_str(),
        ),
        ("e", "A & B", "&amp; &lt;"),
        (
            "z",
            family_400.as_str(),
            "É\u{301}\u{302}\u{303}\u{304} 漢字",
        ),
    ];
    host.state.feed.replace(
        hostile
            .iter()
            .map(|(id, word, name)| phrase(id, word, name))
            .collect(),
    );
    let site = &host.state.config.site;
    for (id, word, name) in hostile {
        let (response, html) = host.get(&site.phrase_path(id)).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert!(
            !html.contains("<script>alert") && !html.contains("<img"),
            "{html}"
        );
        assert_eq!(
            html.matches("</script>").count(),
            3,
            "only the module, the JSON-LD and the props scripts close"
        );
        let title = unescape(between(&html, "<title>", "</title>").unwrap());
        // Isolated where a right-to-left letter could reorder the title; plain text as it
        // is, so a title copied holds no invisible characters.
        let isolated = |text: &str| {
            let rtl = text.chars().any(|c| {
                matches!(
                    unicode_bidi::bidi_class(c),
                    unicode_bidi::BidiClass::R | unicode_bidi::BidiClass::AL
                )
            });
            if rtl {
                format!("\u{2068}{text}\u{2069}")
            } else {
                text.to_owned()
            }
        };
        assert_eq!(
            title,
            format!("“{}” by {} — Dinos", isolated(word), isolated(name))
        );
        // Read left to right whatever the phrase's script: the site's name stays last.
        assert_eq!(
            unicode_bidi::get_base_direction(title.as_str()),
            unicode_bidi::Direction::Ltr,
            "{title}"
        );
        for (attribute, key) in [
            ("property", "og:title"),
            ("name", "twitter:title"),
            ("name", "description"),
            ("property", "og:image:alt"),
        ] {
            let value = unescape(meta(&html, attribute, key));
            assert!(
                value.contains(word) && value.contains(name),
                "{key}: {value}"
            );
        }
        let card = unescape(meta(&html, "property", "og:image"));
        let unversioned = site.absolute_url(&format!("{}/card.png?v=", site.phrase_path(id)));
        assert!(
            card.starts_with(&unversioned) && card.len() == unversioned.len() + 12,
            "{card}"
        );
        assert_eq!(unescape(meta(&html, "name", "twitter:image")), card);
        assert_eq!(meta(&html, "name", "twitter:card"), "summary_large_image");
        let ld = between(&html, "<script type=\"application/ld+json\">", "</script>").unwrap();
        assert!(
            !ld.contains('<') && !ld.contains('>') && !ld.contains('&'),
            "{ld}"
        );
        let ld: serde_json::Value = serde_json::from_str(ld).unwrap();
        assert_eq!(ld["@type"], "CreativeWork");
        assert_eq!(ld["name"], word);
        assert_eq!(ld["author"]["name"], name);
        assert_eq!(ld["url"], site.absolute_url(&site.phrase_path(id)));
        assert!(ld.get("dateCreated").is_none(), "an order, not a time");
        // The post link carries the page's URL and the hashtag, encoded.
        let post =
            unescape(between(&html, "href=\"https://twitter.com/intent/tweet?", "\"").unwrap());
        let query: Vec<(String, String)> = url::form_urlencoded::parse(post.as_bytes())
            .into_owned()
            .collect();
        assert_eq!(
            query[0],
            ("text".into(), format!("“{}” #myLastWords", isolated(word)))
        );
        assert_eq!(
            unicode_bidi::get_base_direction(query[0].1.as_str()),
            unicode_bidi::Direction::Ltr,
            "the post reads as the title does, its hashtag last"
        );
        assert_eq!(
            query[1],
            ("url".into(), site.absolute_url(&site.phrase_path(id)))
        );
    }
    // The feed's summary sets them apart as the title does.
    let (_, feed) = host.get("/feed.atom").await;
    assert!(
        feed.contains("<summary>“\u{2068}שָׁלוֹם ABC\u{2069}”, Last Words by \u{2068}مرحبا abc"),
        "{feed}"
    );
    assert!(feed.contains("<summary>“A &amp; B”, Last Words by &amp;amp; &amp;lt;</summary>"));
}

#[tokio::test]
async fn a_phrase_page_says_when_it_was_minted() {
    let host = TestHost::start(None).await;
    let minted = 1_795_000_000_123_456;
    host.state.feed.replace(vec![Phrase {
        created: minted,
        edited: 0,
        ..phrase("t", "TIMED", "Rex")
    }]);
    let (_, html) = host.get("/words/t").await;
    let ld = between(&html, "<script type=\"application/ld+json\">", "</script>").unwrap();
    let ld: serde_json::Value = serde_json::from_str(ld).unwrap();
    assert_eq!(ld["dateCreated"], "2026-11-18T11:06:40Z");
}

#[tokio::test]
async fn unknown_ids_get_404_and_a_removed_phrase_410_until_it_is_back() {
    let host = TestHost::start(Some(vec![phrase("keep", "KEEP", "Rex")])).await;
    let (unknown, html) = host.get("/words/no-such-id").await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert!(html.contains("noindex"));
    assert!(html.contains("Page not found"));
    let kept = host.state.feed.current().list.get("keep").cloned().unwrap();
    let (first, _) = host.get("/words/keep").await;
    assert_eq!(first.status(), StatusCode::OK);
    host.state
        .feed
        .apply(vec![Change::Remove { id: "keep".into() }]);
    let gone = async {
        loop {
            let (response, html) = host.get("/words/keep").await;
            if response.status() == StatusCode::GONE {
                return html;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let html = tokio::time::timeout(Duration::from_secs(5), gone)
        .await
        .expect("a removed phrase's page answers 410");
    // Someone following a shared link is told it was removed, not that it never was.
    assert!(
        html.contains("This Last Words has been removed") && !html.contains("Page not found"),
        "{html}"
    );
    assert!(html.contains("noindex"));
    assert!(html.contains("href=\"/words\""));
    host.state.feed.apply(vec![Change::Upsert {
        phrase: (*kept).clone(),
    }]);
    let (back, html) = host.get("/words/keep").await;
    assert_eq!(back.status(), StatusCode::OK);
    assert!(html.contains("<bdi>KEEP</bdi>"));
}

#[tokio::test]
async fn every_card_on_the_list_links_to_its_phrase_page() {
    let host = TestHost::start(None).await;
    host.state.feed.replace(
        ODD_IDS
            .iter()
            .enumerate()
            .map(|(n, id)| phrase(id, &format!("W{n}"), "n"))
            .collect(),
    );
    let (_, html) = host.get("/words").await;
    let site = &host.state.config.site;
    for id in ODD_IDS {
        let href = format!(
            "<a href=\"{}\">",
            site.phrase_path(id)
                .replace('&', "&amp;")
                .replace('\'', "&#x27;")
        );
        assert!(html.contains(&href), "{href} in the list");
    }
    let feed = between(
        &html,
        "<link rel=\"alternate\" type=\"application/atom+xml\"",
        ">",
    )
    .unwrap();
    assert!(
        feed.contains("href=\"http://127.0.0.1:8080/feed.atom\""),
        "{feed}"
    );
}

#[tokio::test]
async fn the_longest_ids_have_their_page_and_card_and_the_sitemap_keeps_to_its_limit() {
    let host = TestHost::start(None).await;
    // The longest ids Firestore allows, 1,500 bytes: percent-encoded, a non-ASCII one
    // takes three characters a byte, 4,500 in all.
    let accented = "é".repeat(750);
    let plain = "a".repeat(1500);
    let listed = "b".repeat(900);
    host.state.feed.replace(vec![
        phrase(&accented, "ACCENTED", "Name"),
        phrase(&plain, "PLAIN", "Name"),
        phrase(&listed, "LISTED", "Name"),
    ]);
    let site = &host.state.config.site;
    for id in [&accented, &plain] {
        let path = site.phrase_path(id);
        let (response, html) = host.get(&path).await;
        assert_eq!(response.status(), StatusCode::OK, "{} bytes", path.len());
        assert!(html.contains("<bdi>"), "the phrase's own page");
        let card = host
            .send(
                axum::http::Request::get(format!("{path}/card.png"))
                    .body(axum::body::Body::empty())
                    .unwrap(),
            )
            .await;
        assert_eq!(card.status(), StatusCode::OK, "{} bytes", path.len());
    }
    // A sitemap holds at most 50 MiB: a URL whose line would take 50,000 of them past
    // that (some 980 characters) is left out rather than make search engines refuse the
    // file; the protocol's own bound is 2,048.
    let (_, sitemap) = host.get("/sitemap.xml").await;
    let locs: Vec<&str> = sitemap
        .split("<loc>")
        .skip(1)
        .filter_map(|rest| rest.split_once("</loc>").map(|(loc, _)| loc))
        .collect();
    assert!(locs.iter().all(|loc| loc.len() < 1000), "{locs:?}");
    assert!(locs.contains(&site.absolute_url(&site.phrase_path(&listed)).as_str()));
    assert_eq!(locs.len(), 3, "the two pages and the 900-byte id's");
}

#[tokio::test]
async fn a_phrase_edited_gets_a_card_address_of_its_own_so_link_previews_show_the_new_card() {
    let host = TestHost::start(None).await;
    let image = async |word: &str, name: &str| {
        host.state.feed.replace(vec![phrase("e1", word, name)]);
        let (_, html) = host.get("/words/e1").await;
        unescape(meta(&html, "property", "og:image"))
    };
    let first = image("FIRST WORDS", "Ann").await;
    assert_eq!(
        image("FIRST WORDS", "Ann").await,
        first,
        "unchanged, the same"
    );
    let renamed = image("FIRST WORDS", "Anne").await;
    let reworded = image("OTHER WORDS", "Anne").await;
    assert!(first != renamed && renamed != reworded && first != reworded);
    // Every version, old or new, is answered with the card as the phrase is now.
    let path = first
        .split_once("/words/")
        .map(|(_, rest)| format!("/words/{rest}"));
    let response = host
        .send(
            axum::http::Request::get(path.unwrap())
                .body(axum::body::Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "image/png");
}
