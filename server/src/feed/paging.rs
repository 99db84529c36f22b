//! A page of the phrase list as a request asks for it: where it starts, what text it
//! finds, and the page cut from one version, for the API and the phrases page alike.

use std::sync::Arc;

use serde::Serialize;

use crate::error::AppError;
use crate::feed::check::find_text;
use crate::feed::list::{Anchor, Cursor};
use crate::feed::{Phrase, Snapshot};

/// Where a page of the list starts and what it holds, as a request asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    pub after: Option<Cursor>,
    pub before: Option<Cursor>,
    /// Normalised; empty for the whole list.
    pub find: String,
}

impl PageRequest {
    /// Reads `after`, `before` and the text to find, saying what was wrong with them.
    pub fn parse(
        after: Option<&str>,
        before: Option<&str>,
        find: Option<&str>,
    ) -> Result<Self, AppError> {
        let cursor = |name: &str, text: Option<&str>| {
            text.filter(|text| !text.is_empty())
                .map(|text| {
                    Cursor::parse(text)
                        .map_err(|problem| AppError::bad_request(format!("{name}: {problem}")))
                })
                .transpose()
        };
        let request = Self {
            after: cursor("after", after)?,
            before: cursor("before", before)?,
            find: find_text(find.unwrap_or_default())
                .map_err(|problem| AppError::bad_request(format!("q: {problem}")))?,
        };
        if request.after.is_some() && request.before.is_some() {
            return Err(AppError::bad_request(
                "give after or before, not both: a page runs one way from its cursor",
            ));
        }
        Ok(request)
    }

    pub fn anchor(&self) -> Anchor<'_> {
        match (&self.after, &self.before) {
            (Some(after), _) => Anchor::After(after),
            (None, Some(before)) => Anchor::Before(before),
            (None, None) => Anchor::First,
        }
    }
}

/// One page as the API and the page props carry it.
#[derive(Debug, Serialize)]
pub struct PhrasePage {
    pub version: u64,
    pub count: usize,
    pub phrases: Vec<Arc<Phrase>>,
    pub next: Option<Cursor>,
    pub prev: Option<Cursor>,
    /// See [`ListPage::start`](crate::feed::list::ListPage::start).
    #[serde(skip)]
    pub start: Option<Cursor>,
}

impl PhrasePage {
    pub fn cut(snapshot: &Snapshot, request: &PageRequest, limit: usize) -> Self {
        let page = snapshot.list.page(request.anchor(), limit, &request.find);
        Self {
            version: snapshot.version,
            count: snapshot.list.len(),
            phrases: page.phrases,
            next: page.next,
            prev: page.prev,
            start: page.start,
        }
    }
}
