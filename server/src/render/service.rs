//! Running a page's render: the page cache first; on a miss, React on the renderer
//! pool and the document shell around its markup, the render's time or failure
//! counted; when a render fails, the route's last good page. A page's props are
//! serialised once, for the renderer's request and for the page's hydration alike.

use std::sync::Arc;

use crate::error::AppError;
use crate::metrics::Metrics;
use crate::render::assets::{CurrentUi, Ui};
use crate::render::head::Head;
use crate::render::page_cache::{CachedPage, PageCache, PageKey, Span};
use crate::render::pool::{RenderError, RendererPool};
use crate::render::props::{self, RenderRequest};
use crate::render::shell;

/// Makes the site's pages, and keeps them.
pub struct PageRenderer {
    /// The threads that run React.
    pool: RendererPool,
    /// Rendered pages by route and data version.
    cache: Arc<PageCache>,
    /// Where each render's time, or why it failed, is counted.
    metrics: Arc<Metrics>,
    /// The UI build, whose stylesheet and scripts the shell links (the same one
    /// `AppState::ui` serves `/assets/` from).
    ui: CurrentUi,
}

impl PageRenderer {
    pub fn new(
        pool: RendererPool,
        cache: Arc<PageCache>,
        metrics: Arc<Metrics>,
        ui: CurrentUi,
    ) -> Self {
        Self {
            pool,
            cache,
            metrics,
            ui,
        }
    }

    /// Renders with `ui` from now on (development: a new build in the UI folder): each
    /// page is rendered by its bundle and links its files, and every kept page is
    /// dropped. A bundle that does not load changes nothing.
    pub fn take_up(&self, ui: Ui) -> Result<(), RenderError> {
        RendererPool::check(&ui.server_bundle)?;
        self.ui.replace(ui);
        self.cache.clear();
        Ok(())
    }

    /// The pages kept, for the fast path's look-ups and `/metrics`.
    pub fn cache(&self) -> &PageCache {
        &self.cache
    }

    /// The page for `key`, rendered from what `page` makes on a miss (a hit only reads
    /// the cache). When the render fails other than for want of a renderer, the
    /// route's last good page is served, because an old list beats an error page.
    pub async fn cached<'a>(
        &self,
        key: PageKey,
        page: impl FnOnce() -> (Head, RenderRequest<'a>),
    ) -> Result<Arc<CachedPage>, AppError> {
        let route = key.route();
        let fresh = self
            .cache
            .get_or_render(key.clone(), || async move {
                let (head, request) = page();
                self.render(&head, &request).await
            })
            .await;
        match fresh {
            Ok(page) => Ok(page),
            Err(AppError::Busy) => Err(AppError::Busy),
            Err(error) => match self.cache.last_good(&key) {
                Some(page) => {
                    tracing::warn!(route, "serving the last good page after a failed render");
                    Ok(page)
                }
                None => Err(error),
            },
        }
    }

    /// The further page of `/words` that starts `at` (`after=…` or `before=…`),
    /// rendered on a miss, or when a change fell in what the kept one shows, from what
    /// `page` makes: its head, its props, and the span of the list at `version` it shows.
    pub async fn further<'a>(
        &self,
        at: &str,
        version: u64,
        page: impl FnOnce() -> (Head, RenderRequest<'a>, Span),
    ) -> Result<Arc<CachedPage>, AppError> {
        self.cache
            .get_or_render_further(at, || async move {
                let (head, request, span) = page();
                let page = self.render(&head, &request).await?;
                Ok(page.showing(span, version))
            })
            .await
    }

    /// Renders `request` into the document `head` describes, past the cache (for a
    /// page only its visitor sees, such as the checker's answer).
    pub async fn render(
        &self,
        head: &Head,
        request: &RenderRequest<'_>,
    ) -> Result<CachedPage, AppError> {
        let route = request.route();
        let internal = |error: serde_json::Error| AppError::Internal(error.into());
        let props = request.props_json().map_err(internal)?;
        let json = props::request_json(route, &props).map_err(internal)?;
        // One build for the markup and the scripts that hydrate it: the renderers may be
        // moving to the next one meanwhile.
        let ui = self.ui.get();
        let started = std::time::Instant::now();
        let rendered = self.pool.render(&ui.server_bundle, json).await;
        match &rendered {
            Ok(_) => self.metrics.observe_render(started.elapsed()),
            Err(RenderError::Busy) => self.metrics.render_overflowed(),
            Err(_) => self.metrics.render_failed(),
        }
        let body = rendered.map_err(|error| match error {
            RenderError::Busy => AppError::Busy,
            RenderError::Js { message, stack } => {
                tracing::error!(route, %message, stack = stack.as_deref().unwrap_or(""), "render threw");
                AppError::Internal(anyhow::anyhow!("render of {route} threw: {message}"))
            }
            other => AppError::Internal(anyhow::anyhow!("render of {route} failed: {other}")),
        })?;
        // The shell, hash and compression take milliseconds of CPU: off the async
        // threads, so sockets and timeouts keep being served meanwhile.
        let head = head.clone();
        let version = request.version();
        tokio::task::spawn_blocking(move || {
            let html = shell::document(&ui.manifest, &head, &body, props.get())
                .map_err(|e| AppError::Internal(e.into()))?;
            Ok(match version {
                Some(version) => CachedPage::carrying_version(html, version),
                None => CachedPage::new(html),
            })
        })
        .await
        .map_err(|e| AppError::Internal(e.into()))?
    }
}
