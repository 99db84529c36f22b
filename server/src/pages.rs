//! The site's pages: what each route passes to React, what its `<head>` says, and how
//! a render is cached and wrapped in the document shell.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde::Serialize;
use serde_json::json;

use crate::app::AppState;
use crate::config::Config;
use crate::error::AppError;
use crate::page_cache::{Page, PageKey};
use crate::renderer::RenderError;
use crate::shell::{self, Head};
use crate::site_files;
use crate::snapshot::Snapshot;
use crate::text::{ContentError, NormalizedWord};

/// The outcome of checking a word, shown by the checker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// What the visitor typed.
    pub input: String,
    /// Upper-cased, as phrases are stored.
    pub normalized: String,
    /// Characters (grapheme clusters) of `normalized`.
    pub length: usize,
    pub status: CheckStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Empty,
    Available,
    Taken,
    TooLong,
    /// Holds something no phrase may (an invisible, control or unassigned character).
    Invalid,
    /// The list has not loaded yet, so nobody can tell.
    Unavailable,
}

impl Check {
    pub fn new(input: &str, snapshot: &Snapshot) -> Self {
        let NormalizedWord { word, length } = NormalizedWord::new(input);
        let status = match NormalizedWord::validated(input) {
            Err(ContentError::Empty { .. }) => CheckStatus::Empty,
            Err(ContentError::TooLong { .. }) => CheckStatus::TooLong,
            Err(_) => CheckStatus::Invalid,
            Ok(_) if !snapshot.loaded => CheckStatus::Unavailable,
            Ok(_) if snapshot.is_taken(&word) => CheckStatus::Taken,
            Ok(_) => CheckStatus::Available,
        };
        Self {
            input: input.into(),
            normalized: word,
            length,
            status,
        }
    }
}

/// The home page, rendered once.
pub async fn home(state: &AppState) -> Result<Arc<Page>, AppError> {
    let page = || {
        let head = Head {
            title: "Dinos — the NFT collection that saves the world".into(),
            description: "Dinos is a donation-driven collection of dinosaur NFTs that raises money for climate non-profits. Leave your Last Words before the meteor hits.".into(),
            canonical: state.config.absolute_url("/"),
            indexable: true,
            image: state.config.absolute_url(site_files::OG_IMAGE),
            structured_data: Some(organization(&state.config)),
        };
        (head, json!({ "site": state.site_props() }))
    };
    cached(state, PageKey::Home, "home", page).await
}

/// The phrases page; with `check`, the checker's answer computed on the server.
pub async fn words(state: &AppState, check: Option<&str>) -> Result<Arc<Page>, AppError> {
    let snapshot = state.feed.current();
    // Built only when a render is due: a cache hit must not copy 200 phrases.
    let page = || {
        let config = &state.config;
        let head = Head {
            title: format!("Already-minted Last {} — Dinos", config.product_name),
            description: format!(
                "Every Last {} already minted by the Dinos community, and a checker to see whether yours is still free.",
                config.product_name
            ),
            canonical: config.absolute_url(&config.words_path()),
            indexable: true,
            image: config.absolute_url(site_files::OG_IMAGE),
            structured_data: None,
        };
        let props = json!({
            "site": state.site_props(),
            "version": snapshot.version,
            "phrases": snapshot.phrases,
            "loaded": snapshot.loaded,
            "check": Check::new(check.unwrap_or_default(), &snapshot),
        });
        (head, props)
    };
    // An empty check is the page everyone gets.
    match check.filter(|word| !word.is_empty()) {
        None => {
            let key = PageKey::Words {
                version: snapshot.version,
            };
            cached(state, key, "words", page).await
        }
        Some(_) => {
            let _turn = state
                .check_renders
                .acquire()
                .await
                .map_err(|_| AppError::Busy)?;
            let (head, props) = page();
            render(state, "words", &head, &props).await.map(Arc::new)
        }
    }
}

/// The 404 page. It does not repeat the path, so one cached render serves every miss.
pub async fn not_found(state: &AppState) -> Result<Arc<Page>, AppError> {
    let page = || {
        let head = Head {
            title: "Page not found — Dinos".into(),
            description: "This page does not exist. The meteor may have got it.".into(),
            canonical: state.config.absolute_url("/"),
            indexable: false,
            image: state.config.absolute_url(site_files::OG_IMAGE),
            structured_data: None,
        };
        (head, json!({ "site": state.site_props(), "path": "" }))
    };
    cached(state, PageKey::NotFound, "not_found", page).await
}

/// schema.org's description of who runs the site, for search engines.
fn organization(config: &Config) -> String {
    let links = &config.links;
    shell::inert_json(&json!({
        "@context": "https://schema.org",
        "@type": "Organization",
        "name": "Dinos",
        "url": config.absolute_url("/"),
        "logo": config.absolute_url(site_files::ICON_512),
        "description": "A donation-driven collection of dinosaur NFTs that raises money for climate non-profits.",
        "email": config.press_email,
        "sameAs": [links.chat, links.social, links.marketplace, links.blog],
    }))
}

async fn cached(
    state: &AppState,
    key: PageKey,
    route: &str,
    page: impl FnOnce() -> (Head, serde_json::Value),
) -> Result<Arc<Page>, AppError> {
    // The head and props are built only on a miss; a hit only reads the cache.
    let fresh = state
        .pages
        .get_or_render(key, || async move {
            let (head, props) = page();
            render(state, route, &head, &props).await
        })
        .await;
    match fresh {
        Ok(page) => Ok(page),
        Err(AppError::Busy) => Err(AppError::Busy),
        Err(error) => match state.pages.last_good(key) {
            Some(page) => {
                tracing::warn!(route, "serving the last good page after a failed render");
                Ok(page)
            }
            None => Err(error),
        },
    }
}

async fn render(
    state: &AppState,
    route: &str,
    head: &Head,
    props: &serde_json::Value,
) -> Result<Page, AppError> {
    let request = json!({ "route": route, "props": props }).to_string();
    let started = std::time::Instant::now();
    let rendered = state.renderer.render(request).await;
    match &rendered {
        Ok(_) => state.metrics.observe_render(started.elapsed()),
        Err(RenderError::Busy) => {
            state
                .metrics
                .render_overflows
                .fetch_add(1, Ordering::Relaxed);
        }
        Err(_) => {
            state
                .metrics
                .render_failures
                .fetch_add(1, Ordering::Relaxed);
        }
    }
    let body = rendered.map_err(|error| match error {
        RenderError::Busy => AppError::Busy,
        RenderError::Js { message, stack } => {
            tracing::error!(route, %message, stack = stack.as_deref().unwrap_or(""), "render threw");
            AppError::Internal(anyhow::anyhow!("render of {route} threw: {message}"))
        }
        other => AppError::Internal(anyhow::anyhow!("render of {route} failed: {other}")),
    })?;
    // The shell, hash and compression take milliseconds of CPU: off the async threads,
    // so sockets and timeouts keep being served meanwhile.
    let ui = state.ui.clone();
    let (head, props) = (head.clone(), props.clone());
    tokio::task::spawn_blocking(move || {
        let html = shell::document(&ui.manifest, &head, &body, &props)
            .map_err(|e| AppError::Internal(e.into()))?;
        Ok(Page::new(html))
    })
    .await
    .map_err(|e| AppError::Internal(e.into()))?
}
