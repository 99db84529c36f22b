//! What each page's `<head>` tells search engines and link previews: its title and
//! description, its canonical URL and place in a series, whether to index it, the
//! preview image, the Atom feed it offers and schema.org data about it.

use std::borrow::Cow;

use serde_json::json;

use crate::config::Site;
use crate::escape::inert_json;
use crate::feed::Phrase;
use crate::feed::list::Cursor;
use crate::feed::rfc3339;
use crate::render::negotiate::digest;
use crate::render::site_files::{ATOM_FEED, ICON_512, OG_IMAGE};
use crate::site;
use crate::text::grapheme_count;

/// What the `<head>` says about one page.
#[derive(Debug, Clone)]
pub struct Head {
    /// The page's title, ending with the site's name.
    pub title: String,
    /// The summary search results and link previews show.
    pub description: String,
    /// Absolute URL of the page.
    pub canonical: String,
    /// False for pages search engines should skip, such as the 404 page.
    pub indexable: bool,
    /// Absolute URL of the 1200×630 link-preview image.
    pub image: String,
    /// What the image shows, for those who cannot see it.
    pub image_alt: String,
    /// The Atom feed the page offers.
    pub feed: Option<FeedLink>,
    /// schema.org data about the site, already inert (see [`inert_json`]).
    pub structured_data: Option<String>,
    /// Absolute URL of the page before this one in a series.
    pub prev: Option<String>,
    /// Absolute URL of the page after this one in a series.
    pub next: Option<String>,
}

/// A `<link rel="alternate">` to an Atom feed.
#[derive(Debug, Clone)]
pub struct FeedLink {
    /// What a feed reader calls the feed.
    pub title: String,
    /// Absolute URL of the feed.
    pub href: String,
}

impl FeedLink {
    /// The feed of the newest phrases.
    fn newest_phrases(config: &Site) -> Self {
        Self {
            title: format!("New Last {} — {}", config.product_name, site::NAME),
            href: config.absolute_url(ATOM_FEED),
        }
    }
}

impl Head {
    /// The home page's, with schema.org's description of who runs the site.
    pub fn home(config: &Site) -> Self {
        Self {
            title: site::HOME_TITLE.into(),
            description: site::HOME_DESCRIPTION.into(),
            canonical: config.absolute_url("/"),
            indexable: true,
            image: config.absolute_url(OG_IMAGE),
            image_alt: site::PREVIEW_IMAGE_ALT.into(),
            feed: None,
            structured_data: Some(organization(config)),
            prev: None,
            next: None,
        }
    }

    /// A page of the phrases page: one listing for search engines, named `after` the
    /// phrase just newer than it (`start`), titled by its own newest (`first`), and
    /// linked to the pages before (`prev`) and after (`next`) it; with `check`, what a
    /// visitor typed, which is theirs and not indexed.
    pub fn words(
        config: &Site,
        check: &str,
        start: Option<&Cursor>,
        first: Option<&Phrase>,
        prev: Option<&Cursor>,
        next: Option<&Cursor>,
    ) -> Self {
        let path = config.words_path();
        let url_at = |key: &str, cursor: &Cursor| {
            let mut query = url::form_urlencoded::Serializer::new(String::new());
            if !check.is_empty() {
                query.append_pair("check", check);
            }
            query.append_pair(key, &cursor.to_string());
            config.absolute_url(&format!("{path}?{}", query.finish()))
        };
        // Named by what it shows, not by how it was asked for: a `before` page and the
        // `after` page with the same phrases, or a cursor made up between two phrases,
        // are one page to a crawler.
        let later = start.filter(|_| check.is_empty());
        let canonical = match later {
            Some(start) => url_at("after", start),
            None => config.absolute_url(&path),
        };
        let list = format!("Already-minted Last {}", config.product_name);
        // A later page titled by its newest phrase, as its address names the one before:
        // a crawler's list of titles then tells the pages apart.
        let title = match (later, first) {
            (Some(_), Some(first)) => format!("{list}: “{}” and older", isolated(&first.word)),
            _ => list,
        };
        Self {
            title: site::title(&title),
            description: format!(
                "Every Last {} already minted by the {} community, and a checker to see whether yours is still free.",
                config.product_name,
                site::NAME
            ),
            canonical,
            indexable: check.is_empty(),
            image: config.absolute_url(OG_IMAGE),
            image_alt: site::PREVIEW_IMAGE_ALT.into(),
            feed: Some(FeedLink::newest_phrases(config)),
            structured_data: None,
            prev: prev.map(|cursor| url_at("before", cursor)),
            next: next.map(|cursor| url_at("after", cursor)),
        }
    }

    /// The 404 page's: not indexed, and the same for every missing path.
    /// The 404 page, or with `removed` the 410 of a phrase removed while the host ran.
    pub fn not_found(config: &Site, removed: bool) -> Self {
        let (title, description) = if removed {
            (
                format!("This Last {} has been removed", config.product_name),
                "This phrase was minted and has since been removed.",
            )
        } else {
            (
                "Page not found".to_owned(),
                "This page does not exist. The meteor may have got it.",
            )
        };
        Self {
            title: site::title(&title),
            description: description.into(),
            canonical: config.absolute_url("/"),
            indexable: false,
            image: config.absolute_url(OG_IMAGE),
            image_alt: site::PREVIEW_IMAGE_ALT.into(),
            feed: None,
            structured_data: None,
            prev: None,
            next: None,
        }
    }

    /// A phrase's page at `url`, whose link shows as a card: the phrase's card image,
    /// and schema.org's description of the phrase, its author and the list it is in.
    pub fn phrase(config: &Site, phrase: &Phrase, url: &str) -> Self {
        let product = &config.product_name;
        let length = grapheme_count(&phrase.word);
        // Each set apart from the line around it, as the page's <bdi> does: a Hebrew phrase
        // would otherwise turn the whole title right-to-left, the site's name first.
        let (word, name) = (isolated(&phrase.word), isolated(&phrase.name));
        let characters = if length == 1 {
            "character"
        } else {
            "characters"
        };
        let image = config.absolute_url(&card_path(config, phrase));
        let mut work = json!({
            "@context": "https://schema.org",
            "@type": "CreativeWork",
            "name": phrase.word,
            "text": phrase.word,
            "url": url,
            "image": image,
            "author": { "@type": "Person", "name": phrase.name },
            "isPartOf": {
                "@type": "CollectionPage",
                "name": format!("Already-minted Last {product}"),
                "url": config.absolute_url(&config.words_path()),
            },
            "publisher": { "@type": "Organization", "name": site::NAME, "url": config.absolute_url("/") },
        });
        // When it was minted, where the store says (a row with only an order does not).
        if let Some(minted) = phrase.minted_ms() {
            work["dateCreated"] = rfc3339(minted).into();
            if let Some(edited) = phrase.edited_ms().filter(|&edited| edited > minted) {
                work["dateModified"] = rfc3339(edited).into();
            }
        }
        let structured_data = inert_json(&work);
        Self {
            title: site::title(&format!("“{word}” by {name}")),
            description: format!(
                "“{word}” ({length} {characters}): Last {product} minted by {name} in the {} community. {}",
                site::NAME,
                site::hashtag(product)
            ),
            canonical: url.to_owned(),
            indexable: true,
            image,
            image_alt: format!("“{word}”, Last {product} by {name}"),
            feed: None,
            structured_data: Some(structured_data),
            prev: None,
            next: None,
        }
    }
}

/// The path of `phrase`'s card, with a version of what it shows: link previews are
/// kept by their image's address (for weeks, by some networks), so a phrase edited gets
/// a new one, and its previews the new card. The host serves the card whatever the version.
fn card_path(config: &Site, phrase: &Phrase) -> String {
    let (word, name) = (phrase.word.as_bytes(), phrase.name.as_bytes());
    // The word's length first, so no two pairs hash alike.
    let digest = digest(&[&(word.len() as u64).to_be_bytes(), word, name]);
    format!(
        "{}/card.png?v={}",
        config.phrase_path(&phrase.id),
        &digest[..12]
    )
}

/// `text` isolated from the direction of what surrounds it (Unicode's first-strong
/// isolate), for the lines a browser tab or a search result shows without markup; as it
/// is when nothing in it could reorder them (no right-to-left letter, Arabic digit or
/// direction control), so a plain title copied holds no invisible characters.
pub(crate) fn isolated(text: &str) -> Cow<'_, str> {
    use unicode_bidi::BidiClass::{AL, AN, FSI, LRE, LRI, LRO, PDF, PDI, R, RLE, RLI, RLO};
    let turns = text.chars().any(|c| {
        matches!(
            unicode_bidi::bidi_class(c),
            R | AL | AN | LRE | RLE | LRO | RLO | PDF | LRI | RLI | FSI | PDI
        )
    });
    if turns {
        Cow::Owned(format!("\u{2068}{text}\u{2069}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// schema.org's description of who runs the site, for search engines.
fn organization(config: &Site) -> String {
    let links = &config.links;
    inert_json(&json!({
        "@context": "https://schema.org",
        "@type": "Organization",
        "name": site::NAME,
        "url": config.absolute_url("/"),
        "logo": config.absolute_url(ICON_512),
        "description": site::ORGANIZATION_DESCRIPTION,
        "email": config.press_email,
        "sameAs": [links.chat, links.social, links.marketplace, links.blog],
    }))
}

#[cfg(test)]
mod tests {
    use super::isolated;

    #[test]
    fn every_character_that_turns_a_line_is_where_the_page_looks_for_one() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/turning.json");
        let listed: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let ranges: Vec<(u32, u32)> = listed["ranges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|range| {
                let (from, to) = range.as_str().unwrap().split_once("..").unwrap();
                let hex = |at: &str| u32::from_str_radix(at, 16).unwrap();
                (hex(from), hex(to))
            })
            .collect();
        let outside: Vec<String> = (0..=0x10FFFF_u32)
            .filter_map(char::from_u32)
            .filter(|&c| {
                let mut buffer = [0; 4];
                isolated(c.encode_utf8(&mut buffer)).len() > c.len_utf8()
            })
            .filter(|&c| {
                !ranges
                    .iter()
                    .any(|&(from, to)| (from..=to).contains(&(c as u32)))
            })
            .map(|c| format!("{:04X}", c as u32))
            .collect();
        assert!(
            outside.is_empty(),
            "tests/vectors/turning.json misses {outside:?}"
        );
    }
}
