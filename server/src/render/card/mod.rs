//! The card image of each phrase (`/{product}/{id}/card.png`, its page's `og:image`):
//! 1200×630, the phrase in the display face, "By {name}", the site's name and a Dino
//! chosen by the id, drawn at run time ([`paint`]): the art rasterised with resvg, the
//! lettering ([`layout`]) set in the bundled faces ([`typeset`]) and filled from their
//! outlines.
//!
//! Cards are kept by what they show (word, name, site name, Dino, and the versions of
//! the layout, the backdrop and the fonts, whose hash is also the ETag), in a cache bounded by bytes; of many
//! requests for one card at once, one draws it and the others wait for that.

pub mod layout;
pub mod paint;
pub mod typeset;

use std::sync::{Arc, OnceLock};

use axum::http::HeaderValue;
use bytes::Bytes;
use sha2::{Digest as _, Sha256};

use crate::error::AppError;
use crate::feed::list::Phrase;
use crate::metrics::Metrics;
use crate::net::headers::PreparedHead;
use crate::render::assets::CardSources;
use crate::site;
use paint::{Dino, Painter};
use prometheus::IntCounter;

/// Changes whenever the drawing or its encoding changes, so every ETag does too: a strong
/// ETag names these bytes, and two replicas of a fleet mid-deploy must not share one for
/// two encodings (card-2: written as RGB; card-3: the lettering set by `typeset`; card-4:
/// marks no face has drawn as nothing).
const LAYOUT_VERSION: &str = "card-4";

/// Bytes of PNG the cache holds (a card is some 40–60 KB: a thousand cards).
const CACHE_BYTES: u64 = 48 << 20;

/// One drawn card.
#[derive(Debug)]
pub struct Card {
    pub png: Bytes,
    /// The quoted validator: the hash of what the card shows.
    pub etag: String,
    pub etag_header: HeaderValue,
    /// The response headers, made the first time the card is sent.
    head: OnceLock<PreparedHead>,
    /// The head of the card's 304, status line and all.
    not_modified: OnceLock<Bytes>,
}

impl Card {
    /// The card's response headers, made by `make` the first time.
    pub fn head(&self, make: impl FnOnce() -> PreparedHead) -> &PreparedHead {
        self.head.get_or_init(make)
    }

    /// The head of the card's 304, made by `make` the first time.
    pub fn not_modified(&self, make: impl FnOnce() -> Bytes) -> &Bytes {
        self.not_modified.get_or_init(make)
    }
}

/// The cards drawn so far, and their counters.
pub struct Cards {
    painter: &'static Painter,
    /// Keyed by the phrase itself (what its card shows, hashed cheaply) so a hit costs
    /// no SHA-256; the layout and the art are the process's own, the same for every key.
    cache: moka::future::Cache<Phrase, Arc<Card>>,
    /// Turns to draw: one per core, so a crawler asking for thousands of new cards at
    /// once queues them instead of holding a blocking thread and a 3 MB canvas each. A
    /// turn is the drawing's, not the request's: a client that goes away mid-draw (or a
    /// request timed out) leaves the drawing holding it to the end.
    draws: Arc<tokio::sync::Semaphore>,
    /// `metrics`' counts of cards drawn and served from the cache.
    renders: IntCounter,
    hits: IntCounter,
}

impl Cards {
    /// The cards of the embedded UI build.
    pub fn new(painter: &'static Painter, metrics: &Metrics) -> Self {
        Self {
            painter,
            cache: moka::future::Cache::builder()
                .max_capacity(CACHE_BYTES)
                .weigher(|_, card: &Arc<Card>| u32::try_from(card.png.len()).unwrap_or(u32::MAX))
                .build(),
            draws: Arc::new(tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(2, |n| n.get()),
            )),
            renders: metrics.card_renders.clone(),
            hits: metrics.card_hits.clone(),
        }
    }

    /// Bytes of PNG cached now, for the metrics.
    pub async fn cached_bytes(&self) -> u64 {
        self.cache.run_pending_tasks().await;
        self.cache.weighted_size()
    }

    /// What the cards are drawn with.
    pub fn painter(&self) -> &'static Painter {
        self.painter
    }

    /// The Dino a phrase's card shows: one of the collection's, chosen by its id.
    pub fn dino_for(&self, id: &str) -> &'static Dino {
        let hash = Sha256::digest(id.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&hash[..8]);
        // Never empty: `Ui::embedded` refuses a build without Dinos.
        let dinos = &self.painter.dinos;
        &dinos[(u64::from_be_bytes(first) % dinos.len() as u64) as usize]
    }

    /// The quoted ETag of `phrase`'s card: a hash of everything the card shows.
    pub fn etag(&self, phrase: &Phrase) -> String {
        let mut hash = Sha256::new();
        for part in [
            LAYOUT_VERSION,
            self.painter.art_version(),
            site::NAME,
            &self.dino_for(&phrase.id).file,
            &phrase.word,
            &phrase.name,
        ] {
            // Lengths first, so no two lists of parts hash alike.
            hash.update((part.len() as u64).to_be_bytes());
            hash.update(part.as_bytes());
        }
        format!("\"{}\"", hex::encode(&hash.finalize()[..12]))
    }

    /// `phrase`'s card if it is drawn already, counted as a hit.
    pub async fn cached(&self, phrase: &Phrase) -> Option<Arc<Card>> {
        let card = self.cache.get(phrase).await?;
        self.hits.inc();
        Some(card)
    }

    /// `phrase`'s card, drawn on a blocking thread unless it is cached.
    pub async fn card(&self, phrase: &Phrase) -> Result<Arc<Card>, AppError> {
        if let Some(card) = self.cached(phrase).await {
            return Ok(card);
        }
        let etag = self.etag(phrase);
        let painter = self.painter;
        let dino = self.dino_for(&phrase.id);
        let (word, name) = (phrase.word.clone(), phrase.name.clone());
        self.cache
            .try_get_with(phrase.clone(), async move {
                let turn = self
                    .draws
                    .clone()
                    .acquire_owned()
                    .await
                    .map_err(|e| e.to_string())?;
                let renders = self.renders.clone();
                let png = tokio::task::spawn_blocking(move || {
                    let png = painter.paint(site::NAME, &word, &name, dino);
                    if png.is_ok() {
                        renders.inc();
                    }
                    drop(turn);
                    png
                })
                .await
                .map_err(|e| e.to_string())??;
                let etag_header = HeaderValue::from_str(&etag).map_err(|e| e.to_string())?;
                Ok::<_, String>(Arc::new(Card {
                    png: Bytes::from(png),
                    etag,
                    etag_header,
                    head: Default::default(),
                    not_modified: OnceLock::new(),
                }))
            })
            .await
            .map_err(|e| AppError::Internal(anyhow::anyhow!("the card was not drawn: {e}")))
    }
}

/// The painter of the embedded UI build, made once per process (its fonts, backdrop
/// and framed Dinos are drawn once, when first wanted, and shared by every host).
pub fn painter(sources: &CardSources) -> &'static Painter {
    static PAINTER: OnceLock<Painter> = OnceLock::new();
    PAINTER.get_or_init(|| {
        let dinos = sources
            .dinos
            .iter()
            .map(|(file, svg)| Dino::new(file.clone(), svg))
            .collect();
        Painter::new(sources.art, dinos)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::assets::Ui;
    use std::time::{Duration, Instant};

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_drawing_keeps_its_turn_when_its_request_goes_away() {
        let ui = Ui::embedded().expect("the UI is built (run scripts/build or scripts/test)");
        let cards = Arc::new(Cards::new(painter(&ui.card), &Metrics::new()));
        let turns = cards.draws.available_permits();
        let phrase = Phrase {
            id: "gone".into(),
            word: "THE METEOR IS COMING".into(),
            name: "Ann".into(),
            created: 1,
            edited: 0,
        };
        let asking = tokio::spawn({
            let cards = cards.clone();
            async move { cards.card(&phrase).await.map(drop) }
        });
        while cards.draws.available_permits() == turns {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        // The client goes away mid-draw: the next request must not find a turn free
        // while this drawing still holds a thread and a canvas.
        asking.abort();
        let _ = asking.await;
        assert_eq!(cards.draws.available_permits(), turns - 1);
        let start = Instant::now();
        while cards.draws.available_permits() < turns {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the turn comes back"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(cards.renders.get(), 1, "the drawing is counted");
    }
}
