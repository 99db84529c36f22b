//! What each page's React tree renders with, typed on this side as `ui/src/types.ts`
//! types it on the other: a field renamed here fails to compile, not to hydrate.

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::{RawValue, to_raw_value};

use crate::config::{Site, SiteLinks};
use crate::feed::check::Check;
use crate::feed::list::{Cursor, Phrase};

/// The site facts every page receives (`SiteProps`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteProps {
    pub product_name: String,
    /// The list's path (`/words`), so the UI never derives a URL the host routes.
    pub words_path: String,
    pub links: SiteLinks,
    pub press_email: String,
}

impl SiteProps {
    pub fn of(site: &Site) -> Self {
        Self {
            product_name: site.product_name.clone(),
            words_path: site.words_path(),
            links: site.links.clone(),
            press_email: site.press_email.clone(),
        }
    }
}

/// `HomeProps`: the site facts alone.
#[derive(Debug, Serialize)]
pub struct SiteOnly<'a> {
    pub site: &'a SiteProps,
}

/// `NotFoundProps`: the site facts, and whether what was asked for was a phrase since
/// removed (said only when it was).
#[derive(Debug, Serialize)]
pub struct Missing<'a> {
    pub site: &'a SiteProps,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
}

/// `WordsProps`: one page of the list, the count, and the checker's answer.
#[derive(Debug, Serialize)]
pub struct WordsProps<'a> {
    pub site: &'a SiteProps,
    pub version: u64,
    pub loaded: bool,
    pub count: usize,
    /// This page only.
    pub phrases: Vec<Arc<Phrase>>,
    /// The text the phrases were found by; empty for the newest-first list.
    pub query: &'a str,
    pub next: Option<Cursor>,
    pub prev: Option<Cursor>,
    pub check: Check,
}

/// `PhraseProps`: one phrase's page.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhraseProps<'a> {
    pub site: &'a SiteProps,
    /// The list version the page was made from, for the live feed's `since`.
    pub version: u64,
    pub phrase: Arc<Phrase>,
    /// The page's absolute URL, which Share passes on.
    pub url: String,
    /// A link that opens a post on the social network with the URL and the hashtag.
    pub post_url: String,
}

/// `RenderRequest`: what the server bundle is asked to render, a route and its props
/// (as JSON, see [`RenderRequest::props_json`] and [`request_json`]).
#[derive(Debug)]
// Made once per render and never stored: boxing the big one would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub enum RenderRequest<'a> {
    Home(SiteOnly<'a>),
    Words(WordsProps<'a>),
    NotFound(Missing<'a>),
    Phrase(PhraseProps<'a>),
}

impl RenderRequest<'_> {
    pub fn route(&self) -> &'static str {
        match self {
            RenderRequest::Home(_) => "home",
            RenderRequest::Words(_) => "words",
            RenderRequest::NotFound(_) => "not_found",
            RenderRequest::Phrase(_) => "phrase",
        }
    }

    /// The list version the props carry, for the live feed to resume from.
    pub fn version(&self) -> Option<u64> {
        match self {
            RenderRequest::Words(props) => Some(props.version),
            RenderRequest::Phrase(props) => Some(props.version),
            RenderRequest::Home(_) | RenderRequest::NotFound(_) => None,
        }
    }

    /// The props as JSON, made once a render: the page embeds them for hydration, and
    /// the server bundle's request carries them ([`request_json`]).
    pub fn props_json(&self) -> serde_json::Result<Box<RawValue>> {
        match self {
            RenderRequest::Home(props) => to_raw_value(props),
            RenderRequest::NotFound(props) => to_raw_value(props),
            RenderRequest::Words(props) => to_raw_value(props),
            RenderRequest::Phrase(props) => to_raw_value(props),
        }
    }
}

/// The request as the server bundle reads it, `{"route": …, "props": …}`, around props
/// already serialised.
pub fn request_json(route: &'static str, props: &RawValue) -> serde_json::Result<String> {
    /// `RenderRequest` in `ui/src/types.ts`.
    #[derive(Serialize)]
    struct Request<'a> {
        /// Which page.
        route: &'static str,
        /// What it renders with.
        props: &'a RawValue,
    }
    serde_json::to_string(&Request { route, props })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_carries_the_props_as_the_page_embeds_them() {
        let site = SiteProps {
            product_name: "Words".into(),
            words_path: "/words".into(),
            links: SiteLinks {
                chat: "c".into(),
                social: "s".into(),
                marketplace: "m".into(),
                blog: "b".into(),
            },
            press_email: "p@x.example".into(),
        };
        let request = RenderRequest::NotFound(Missing {
            site: &site,
            removed: false,
        });
        let props = request.props_json().unwrap();
        let expected = r#"{"site":{"productName":"Words","wordsPath":"/words","links":{"chat":"c","social":"s","marketplace":"m","blog":"b"},"pressEmail":"p@x.example"}}"#;
        assert_eq!(props.get(), expected);
        assert_eq!(
            request_json(request.route(), &props).unwrap(),
            format!(r#"{{"route":"not_found","props":{expected}}}"#)
        );
    }
}
