//! The page cache through the router: a further page of `/words` stays cached while the
//! list changes elsewhere and renders anew when a change falls in it; a phrase's page is
//! evicted by its own change only.

use std::time::Duration;

use axum::http::StatusCode;
use lastwords::feed::{Change, Phrase};

use crate::common::{TestHost, between, phrase};

fn numbered(n: u64) -> Phrase {
    Phrase {
        created: n,
        edited: 0,
        ..phrase(&format!("p{n:03}"), &format!("WORD {n}"), "Rex")
    }
}

async fn misses_after(host: &TestHost, path: &str) -> u64 {
    let (response, _) = host.get(path).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    host.state.metrics.cache_misses.get()
}

/// Waits until the cache's follower, which evicts in a task of its own, has applied
/// every change made so far. It applies them in order, so once it has taken in the
/// removal of `marker` (one of the oldest phrases, in no page the test reads), it has
/// applied every change before it: a page still cached then was left so on purpose.
/// The marker is replaced in the same change by a phrase just newer than it, so the
/// count, which every page of the list is headed with, stays.
async fn settle(host: &TestHost, marker: &str) {
    let stand_in = Phrase {
        id: format!("0{marker}"),
        ..host
            .state
            .feed
            .current()
            .list
            .get(marker)
            .expect("the marker")
            .as_ref()
            .clone()
    };
    host.state.feed.apply(vec![
        Change::Remove { id: marker.into() },
        Change::Upsert { phrase: stand_in },
    ]);
    let applied = async {
        while !host.state.pages.cache().is_gone(marker) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), applied)
        .await
        .expect("the cache's follower takes in the changes");
}

#[tokio::test]
async fn a_further_page_renders_again_only_when_a_change_falls_in_it() {
    let host = TestHost::start(None).await;
    // p199 newest … p000 oldest: pages of 48. The oldest few are markers for `settle`.
    host.state.feed.replace((0..200).map(numbered).collect());
    settle(&host, "p000").await;
    let page = |cursor: u64| format!("/words?after={cursor}-p{cursor:03}");
    // after p152: p151…p104; after p104: p103…p56.
    let first = misses_after(&host, &page(152)).await;
    let second = misses_after(&host, &page(104)).await;
    assert_eq!(second, first + 1);
    assert_eq!(misses_after(&host, &page(152)).await, second, "a hit");

    // A phrase at the top edited: in neither page.
    host.state.feed.apply(vec![Change::Upsert {
        phrase: Phrase {
            name: "Edited".into(),
            ..numbered(199)
        },
    }]);
    settle(&host, "p001").await;
    assert_eq!(misses_after(&host, &page(152)).await, second);
    assert_eq!(misses_after(&host, &page(104)).await, second);

    // A phrase in the first one edited: that one renders again, the other stays.
    host.state.feed.apply(vec![Change::Upsert {
        phrase: Phrase {
            name: "Edited".into(),
            ..numbered(130)
        },
    }]);
    settle(&host, "p002").await;
    let (_, html) = host.get(&page(152)).await;
    assert!(html.contains("Edited"), "the edit is on its page");
    let third = host.state.metrics.cache_misses.get();
    assert_eq!(third, second + 1);
    assert_eq!(misses_after(&host, &page(104)).await, third);

    // A phrase added at the top is in neither page, but changes the count each is
    // headed with: both render again, and say it.
    host.state.feed.apply(vec![Change::Upsert {
        phrase: numbered(500),
    }]);
    settle(&host, "p003").await;
    let (_, html) = host.get(&page(152)).await;
    assert!(html.contains("201 Last Words minted"), "the count now");
    assert_eq!(misses_after(&host, &page(104)).await, third + 2);

    // A phrase's page: a change to another phrase leaves it cached.
    let before = misses_after(&host, "/words/p010").await;
    assert_eq!(misses_after(&host, "/words/p010").await, before);
    host.state
        .feed
        .apply(vec![Change::Remove { id: "p011".into() }]);
    settle(&host, "p004").await;
    assert_eq!(misses_after(&host, "/words/p010").await, before);
    let renamed = Phrase {
        name: "Renamed".into(),
        ..numbered(10)
    };
    host.state
        .feed
        .apply(vec![Change::Upsert { phrase: renamed }]);
    let (_, html) = host.get("/words/p010").await;
    assert!(html.contains("Renamed"), "a changed phrase is another page");
}

/// The page's canonical URL, without the site's origin.
fn canonical(html: &str) -> &str {
    let start = html
        .find("<link rel=\"canonical\" href=\"")
        .expect("a canonical link")
        + 28;
    let url = &html[start..start + html[start..].find('"').unwrap()];
    url.strip_prefix("http://127.0.0.1:8080").unwrap_or(url)
}

/// The page's title.
fn title(html: &str) -> &str {
    between(html, "<title>", "</title>").expect("a title")
}

/// The words shown, newest first (in the page, not its head).
fn shown(html: &str) -> Vec<u64> {
    let html = &html[html.find("<body").expect("a body")..];
    html.match_indices("WORD ")
        .filter_map(|(at, _)| {
            let digits: String = html[at + 5..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        })
        .collect()
}

#[tokio::test]
async fn a_page_of_the_list_has_one_address_however_it_is_asked_for_and_an_empty_one_is_gone() {
    let host = TestHost::start(None).await;
    // p199 newest … p000 oldest: pages of 48.
    host.state.feed.replace((0..200).map(numbered).collect());
    let host = &host;
    let page = |path: &'static str| async move {
        let (response, html) = host.get(path).await;
        (response.status(), html)
    };
    let (status, html) = page("/words").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(canonical(&html), "/words");
    assert_eq!(title(&html), "Already-minted Last Words — Dinos");
    assert!(html.contains("href=\"/words?after=152-p152\""), "Older");

    // The second page, as its own links name it, and as the third page's Newer link
    // (`before`), a cursor made up between two phrases, and after the phrase its link
    // named was removed: the same phrases, one address.
    let second: Vec<u64> = (104..=151).rev().collect();
    for path in [
        "/words?after=152-p152",
        "/words?before=103-p103",
        "/words?after=152-p152x",
    ] {
        let (status, html) = page(path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(shown(&html)[..48], second, "{path}");
        assert_eq!(canonical(&html), "/words?after=152-p152", "{path}");
        // Each page a title of its own for a crawler's list, the page's newest phrase.
        assert_eq!(
            title(&html),
            "Already-minted Last Words: “WORD 151” and older — Dinos",
            "{path}"
        );
    }
    // The first page's phrases asked for with `before`: the first page. So is a Newer
    // link to it followed after phrases above its cursor were removed: filled, as the
    // first page is, not a part of it under its address.
    let first: Vec<u64> = (152..=199).rev().collect();
    for path in ["/words?before=151-p151", "/words?before=190-p190"] {
        let (status, html) = page(path).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(shown(&html)[..48], first, "{path}");
        assert_eq!(canonical(&html), "/words", "{path}");
    }
    host.state
        .feed
        .apply(vec![Change::Remove { id: "p152".into() }]);
    settle(host, "p000").await;
    let (_, html) = page("/words?after=152-p152").await;
    assert_eq!(shown(&html)[..48], second);
    assert_eq!(canonical(&html), "/words?after=153-p153");
    assert!(title(&html).contains("WORD 151"), "named by what it shows");

    // Past either end, or after the oldest: nothing to show, so no page, not an empty
    // list that says no phrase was ever minted.
    for path in [
        "/words?after=0-p000",
        "/words?after=0-a",
        "/words?before=999-zzz",
    ] {
        let (status, html) = page(path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(html.contains("This page of the list is empty"), "{path}");
        assert!(
            html.contains("noindex") && html.contains("href=\"/words\""),
            "{path}"
        );
        assert!(!html.contains("minted yet"), "{path}");
    }
    // A check that finds nothing is an answer, not a missing page.
    let (status, html) = page("/words?check=zzzz&after=0-p000").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("No minted Last Words contain"), "{html}");
    // Past a find's last match, its newer matches a link away: none older, not none.
    let (status, html) = page("/words?check=word%2015&after=0-p000").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("No older minted Last Words contain") && html.contains("rel=\"prev\""),
        "{html}"
    );
}
