//! Following the collection for the life of the process, whatever happens to the network.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::{FirestoreSettings, FirestoreStore, Patience, SourceCounts};
use crate::feed::{Feed, mono_ms};
use crate::metrics::Metrics;

/// A listener silent this long gets its connection checked with a probe query.
const PROBE_AFTER: Duration = Duration::from_secs(10);
/// A probe not answered within this time counts as Firestore being unreachable.
pub(super) const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// Reconnect delays grow from the first to the cap, each with up to 50% jitter.
const BACKOFF_FIRST: Duration = Duration::from_millis(500);
const BACKOFF_CAP: Duration = Duration::from_secs(30);

/// The delay before reconnect attempt `attempt` (0-based): doubling, capped, jittered
/// so replicas that lost Firestore together do not come back together.
pub fn backoff(attempt: u32) -> Duration {
    let base = BACKOFF_FIRST
        .saturating_mul(1u32 << attempt.min(16))
        .min(BACKOFF_CAP);
    // The top 53 bits of a random u64: a fraction in [0, 1) with every f64 step as likely.
    let fraction = (getrandom::u64().expect("the system's random source answers") >> 11) as f64
        / (1u64 << 53) as f64;
    base.mul_f64(1.0 + fraction * 0.5)
}

/// Keeps `feed` following the collection for the life of the process, whatever
/// happens to the network: connects with backoff, listens, and when a silent listener's
/// probe fails, marks the feed down, drops the listener and starts over with backoff.
/// What the listener skips or resyncs is counted in `metrics`. Returns at once; the
/// list shown meanwhile is whatever `feed` holds.
pub fn follow(settings: FirestoreSettings, feed: Feed, metrics: &Metrics) {
    let counts = SourceCounts {
        skipped: metrics.feed_skipped.clone(),
        reported: Default::default(),
        resyncs: metrics.feed_resyncs.clone(),
    };
    feed.clone().spawn_task(async move {
        let mut attempt = 0;
        // Since when the list has not come, after an outage: told when it comes again.
        let mut lost: Option<Instant> = None;
        // An outage is told once, and again only when its cause changes: every attempt's
        // own line was two a minute for as long as it lasted.
        let mut told = Told::default();
        loop {
            match FirestoreStore::connect(settings.clone(), Patience::HOST).await {
                Ok(store) => match store.listen(feed.clone(), counts.clone()).await {
                    Ok(mut listener) => {
                        let connected = Instant::now();
                        store.watch(&feed, connected, &mut lost, &mut told).await;
                        let _ = listener.shutdown().await;
                        // Back off afresh only once a connection delivered a whole list.
                        if feed.health().synced_since(connected) {
                            attempt = 0;
                        }
                    }
                    Err(error) => told.warn("cannot listen to Firestore", &error),
                },
                Err(error) => told.warn("cannot connect to Firestore", &error),
            }
            told.down(&feed);
            lost.get_or_insert_with(Instant::now);
            let delay = backoff(attempt);
            attempt = attempt.saturating_add(1);
            tracing::debug!(
                delay_ms = delay.as_millis() as u64,
                "reconnecting to Firestore"
            );
            tokio::time::sleep(delay).await;
        }
    });
}

/// What the follower last told of an outage, so that it tells each cause once.
#[derive(Default)]
struct Told(Option<String>);

impl Told {
    /// `what` failed for `reason`: a warning the first time, a debug line while the
    /// same failure repeats.
    fn warn(&mut self, what: &'static str, reason: &dyn std::fmt::Display) {
        let said = format!("{what}: {reason}");
        if self.0.as_deref() == Some(said.as_str()) {
            tracing::debug!(%reason, "{what}, again");
        } else {
            tracing::warn!(%reason, "{what}; retrying with backoff (said again only if the cause changes)");
            self.0 = Some(said);
        }
    }

    /// Marks `feed` down, for the cause told last if there is one.
    fn down(&self, feed: &Feed) {
        match &self.0 {
            Some(reason) => feed.health().down_because(reason.clone()),
            None => feed.health().down(),
        }
    }

    /// The list came: a later outage is told afresh.
    fn over(&mut self) {
        self.0 = None;
    }
}

impl FirestoreStore {
    /// Returns when the connection looks lost: the listener was silent for
    /// [`PROBE_AFTER`] and a probe query failed, saying why. Once the listener opened at
    /// `connected` has delivered a whole list, an outage that began at `lost` is over,
    /// and said to be.
    async fn watch(
        &self,
        feed: &Feed,
        connected: Instant,
        lost: &mut Option<Instant>,
        told: &mut Told,
    ) {
        loop {
            tokio::time::sleep(PROBE_AFTER / 2).await;
            if feed.health().synced_since(connected) {
                told.over();
                if let Some(since) = lost.take() {
                    tracing::info!(
                        since_noticed_s = since.elapsed().as_secs(),
                        "the phrase list comes from Firestore again"
                    );
                }
            }
            let silent = mono_ms().saturating_sub(self.heard.load(Ordering::Relaxed));
            if silent < PROBE_AFTER.as_millis() as u64 {
                continue;
            }
            match self.answers().await {
                Ok(()) => {
                    feed.health().up();
                    // Reachable but silent is normal for an idle collection.
                    self.heard.store(mono_ms(), Ordering::Relaxed);
                }
                Err(reason) => {
                    tracing::debug!(
                        silent_ms = silent,
                        "the listener was silent; its probe failed"
                    );
                    told.warn("Firestore does not answer", &reason);
                    return;
                }
            }
        }
    }
}
