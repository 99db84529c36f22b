//! What each page's React tree renders with, typed on this side as `ui/src/types.ts`
//! types it on the other: a field renamed here fails to compile, not to hydrate.

use std::sync::Arc;

use serde::Serialize;

use crate::check::Check;
use crate::config::{Site, SiteLinks};
use crate::phrase_list::{Cursor, Phrase};

/// The site facts every page receives (`SiteProps`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteProps {
    pub product_name: String,
    pub links: SiteLinks,
    pub press_email: String,
}

impl SiteProps {
    pub fn of(site: &Site) -> Self {
        Self {
            product_name: site.product_name.clone(),
            links: site.links.clone(),
            press_email: site.press_email.clone(),
        }
    }
}

/// `HomeProps` and `NotFoundProps`: the site facts alone.
#[derive(Debug, Serialize)]
pub struct SiteOnly<'a> {
    pub site: &'a SiteProps,
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

/// `RenderRequest`: what the server bundle is asked to render.
#[derive(Debug, Serialize)]
#[serde(tag = "route", content = "props", rename_all = "snake_case")]
// Made once per render and never stored: boxing the big one would only add an allocation.
#[allow(clippy::large_enum_variant)]
pub enum RenderRequest<'a> {
    Home(SiteOnly<'a>),
    Words(WordsProps<'a>),
    NotFound(SiteOnly<'a>),
}

impl RenderRequest<'_> {
    pub fn route(&self) -> &'static str {
        match self {
            RenderRequest::Home(_) => "home",
            RenderRequest::Words(_) => "words",
            RenderRequest::NotFound(_) => "not_found",
        }
    }
}
