//! Phrases in a Firestore collection, followed by one listener per host.
//!
//! The listener's raw Listen responses drive [`ListenState`], which rebuilds the
//! collection the way Firestore's own SDKs do: a full snapshot begins on a target ADD
//! without a resume token or on RESET, document changes upsert, deletes and removals
//! remove, CURRENT closes a full snapshot and sweeps every id it did not see, and an
//! existence filter whose count disagrees asks for a resync. The feed is published
//! only at consistent points (CURRENT, or a global NO_CHANGE), never half-way through.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use firestore::gcloud_sdk::google::firestore::v1::listen_response::ResponseType;
use firestore::gcloud_sdk::google::firestore::v1::target_change::TargetChangeType;
use firestore::gcloud_sdk::google::firestore::v1::value::ValueType;
use firestore::gcloud_sdk::google::firestore::v1::{Document, TargetChange};
use firestore::{
    FirestoreDb, FirestoreDbOptions, FirestoreListenerParams, FirestoreListenerTarget,
    FirestoreMemListenStateStorage, FirestoreWritePrecondition,
};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::{PhraseSource, StoreError};
use crate::snapshot::{Feed, Phrase, now_ms};
use crate::store::local::new_document_id;

/// The one target id this host listens with.
const TARGET: u32 = 1;
/// A listener silent this long gets its connection checked with a probe query.
const PROBE_AFTER: Duration = Duration::from_secs(10);
/// A probe not answered within this time counts as Firestore being unreachable.
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);
/// Reconnect delays grow from the first to the cap, each with up to 50% jitter.
const BACKOFF_FIRST: Duration = Duration::from_millis(500);
const BACKOFF_CAP: Duration = Duration::from_secs(30);

/// Where the collection lives.
#[derive(Debug, Clone)]
pub struct FirestoreSettings {
    pub project: String,
    pub database: String,
    pub collection: String,
    /// How long the listener waits before reconnecting after an error.
    pub retry_delay: Duration,
}

/// A Firestore collection as a phrase source.
#[derive(Clone)]
pub struct FirestoreStore {
    db: FirestoreDb,
    settings: FirestoreSettings,
    /// Unix milliseconds of the last message from the listener.
    heard: Arc<AtomicU64>,
    /// Keeps the listener (and its loop) alive for the life of the store.
    listener: Arc<
        tokio::sync::Mutex<
            Option<firestore::FirestoreListener<FirestoreDb, FirestoreMemListenStateStorage>>,
        >,
    >,
}

/// The fields of a phrase document.
#[derive(Serialize, Deserialize)]
struct StoredPhrase {
    word: String,
    name: String,
}

impl FirestoreStore {
    /// Connects (the client connects eagerly); honours `FIRESTORE_EMULATOR_HOST`.
    pub async fn connect(settings: FirestoreSettings) -> Result<Self, StoreError> {
        let options = FirestoreDbOptions::new(settings.project.clone())
            .with_database_id(settings.database.clone())
            .with_request_timeout(Duration::from_secs(20));
        let db = FirestoreDb::with_options(options).await.map_err(|e| {
            StoreError::Backend(format!(
                "cannot reach Firestore project {:?} (database {:?}): {e}. Check the project id, the credentials (GOOGLE_APPLICATION_CREDENTIALS or the metadata server) and the network, or set FIRESTORE_EMULATOR_HOST for an emulator",
                settings.project, settings.database
            ))
        })?;
        Ok(Self {
            db,
            settings,
            heard: Arc::new(AtomicU64::new(now_ms())),
            listener: Arc::default(),
        })
    }

    /// Starts the one listener on the collection, feeding `feed`. The crate's listener
    /// reconnects by itself after `retry_delay`.
    async fn listen(
        &self,
        feed: Feed,
    ) -> Result<firestore::FirestoreListener<FirestoreDb, FirestoreMemListenStateStorage>, StoreError>
    {
        let mut listener = self
            .db
            .create_listener_with_params(
                FirestoreMemListenStateStorage::new(),
                FirestoreListenerParams::new().with_retry_delay(self.settings.retry_delay),
            )
            .await
            .map_err(|e| self.backend("listener", e))?;
        self.db
            .fluent()
            .select()
            .from(self.settings.collection.as_str())
            .listen()
            .add_target(FirestoreListenerTarget::new(TARGET), &mut listener)
            .map_err(|e| self.backend("listen target", e))?;
        let control = listener.control_handle();
        let state = Arc::new(Mutex::new(ListenState::new(TARGET)));
        let heard = self.heard.clone();
        listener
            .start(move |event| {
                let feed = feed.clone();
                let state = state.clone();
                let control = control.clone();
                heard.store(now_ms(), Ordering::Relaxed);
                async move {
                    let health = feed.health();
                    health.up();
                    let outcome = match state.lock() {
                        Ok(mut state) => state.apply(event),
                        Err(_) => Outcome::default(),
                    };
                    if outcome.skipped > 0 {
                        health.skipped.fetch_add(outcome.skipped, Ordering::Relaxed);
                    }
                    if outcome.resync {
                        health.resyncs.fetch_add(1, Ordering::Relaxed);
                        tracing::warn!(
                            "Firestore existence filter disagrees with our list; resyncing"
                        );
                        control.resync_target(FirestoreListenerTarget::new(TARGET));
                    }
                    if let Some(phrases) = outcome.publish {
                        // Synced first: whoever wakes on the new list (the saved-list
                        // writer) must see it as Firestore's, not the restored one.
                        health.synced();
                        let snapshot = feed.publish(phrases);
                        tracing::debug!(
                            version = snapshot.version,
                            count = snapshot.phrases.len(),
                            "Firestore snapshot"
                        );
                    }
                    Ok(())
                }
            })
            .await
            .map_err(|e| self.backend("listener start", e))?;
        Ok(listener)
    }

    /// Whether Firestore answers a one-document query within a few seconds. Costs one
    /// read; asked only when the listener has been silent for a while.
    async fn answers(&self) -> bool {
        let probe = self
            .db
            .fluent()
            .select()
            .from(self.settings.collection.as_str())
            .limit(1)
            .query();
        matches!(tokio::time::timeout(PROBE_TIMEOUT, probe).await, Ok(Ok(_)))
    }

    fn backend(&self, what: &str, error: impl std::fmt::Display) -> StoreError {
        StoreError::Backend(format!(
            "Firestore {what} on collection {:?} failed: {error}",
            self.settings.collection
        ))
    }

    async fn documents(&self) -> Result<Vec<Document>, StoreError> {
        self.db
            .fluent()
            .select()
            .from(self.settings.collection.as_str())
            .query()
            .await
            .map_err(|e| self.backend("query", e))
    }
}

impl PhraseSource for FirestoreStore {
    fn start(&self, feed: Feed) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let listener = self.listen(feed).await?;
            *self.listener.lock().await = Some(listener);
            Ok(())
        })
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<Phrase>, StoreError>> {
        Box::pin(async move {
            let documents = self.documents().await?;
            Ok(documents.iter().filter_map(|d| phrase_of(d).ok()).collect())
        })
    }

    fn add(&self, word: String, name: String) -> BoxFuture<'_, Result<Phrase, StoreError>> {
        Box::pin(async move {
            let taken: Vec<Document> = self
                .db
                .fluent()
                .select()
                .from(self.settings.collection.as_str())
                .filter(|q| q.for_all([q.field("word").eq(word.as_str())]))
                .query()
                .await
                .map_err(|e| self.backend("query", e))?;
            if let Some(existing) = taken.first() {
                let name = phrase_of(existing).map(|p| p.name).unwrap_or_default();
                return Err(StoreError::Taken { word, name });
            }
            let phrase = Phrase {
                id: new_document_id(),
                word,
                name,
            };
            let stored = StoredPhrase {
                word: phrase.word.clone(),
                name: phrase.name.clone(),
            };
            // The emulator implements Commit but not CreateDocument: write through a transaction.
            let mut transaction = self
                .db
                .begin_transaction()
                .await
                .map_err(|e| self.backend("transaction", e))?;
            self.db
                .fluent()
                .update()
                .in_col(self.settings.collection.as_str())
                .precondition(FirestoreWritePrecondition::Exists(false))
                .document_id(phrase.id.as_str())
                .object(&stored)
                .add_to_transaction(&mut transaction)
                .map_err(|e| self.backend("write", e))?;
            transaction
                .commit()
                .await
                .map_err(|e| self.backend("commit", e))?;
            Ok(phrase)
        })
    }

    fn remove(&self, id: String) -> BoxFuture<'_, Result<Phrase, StoreError>> {
        Box::pin(async move {
            let documents = self.documents().await?;
            let phrase = documents
                .iter()
                .find(|d| document_id(&d.name) == id)
                .map(|d| {
                    phrase_of(d).unwrap_or_else(|_| Phrase {
                        id: id.clone(),
                        word: String::new(),
                        name: String::new(),
                    })
                })
                .ok_or_else(|| StoreError::NoSuchId(id.clone()))?;
            let mut transaction = self
                .db
                .begin_transaction()
                .await
                .map_err(|e| self.backend("transaction", e))?;
            self.db
                .fluent()
                .delete()
                .from(self.settings.collection.as_str())
                .precondition(FirestoreWritePrecondition::Exists(true))
                .document_id(id.as_str())
                .add_to_transaction(&mut transaction)
                .map_err(|e| self.backend("delete", e))?;
            transaction
                .commit()
                .await
                .map_err(|e| self.backend("commit", e))?;
            Ok(phrase)
        })
    }
}

/// What one Listen response asks of the host.
#[derive(Debug, Default, PartialEq)]
pub struct Outcome {
    /// A consistent list to publish.
    pub publish: Option<Vec<Phrase>>,
    /// The existence filter disagreed: listen again from scratch.
    pub resync: bool,
    /// Documents skipped as malformed.
    pub skipped: u64,
}

/// The collection as the Listen stream has described it so far.
#[derive(Debug)]
pub struct ListenState {
    target: i32,
    /// Every well-formed document, by id.
    documents: BTreeMap<String, Phrase>,
    /// While a full snapshot arrives: the ids seen since it began.
    full_snapshot: Option<HashSet<String>>,
    /// Whether Firestore gave us a resume token, so that the next ADD resumes instead of
    /// re-sending everything.
    resumable: bool,
}

impl ListenState {
    pub fn new(target: u32) -> Self {
        Self {
            target: target as i32,
            documents: BTreeMap::new(),
            full_snapshot: None,
            resumable: false,
        }
    }

    fn list(&self) -> Vec<Phrase> {
        self.documents.values().cloned().collect()
    }

    /// Applies one Listen response.
    pub fn apply(&mut self, event: ResponseType) -> Outcome {
        let mut outcome = Outcome::default();
        match event {
            ResponseType::TargetChange(change) => self.target_change(change, &mut outcome),
            ResponseType::DocumentChange(change) => {
                let Some(document) = change.document else {
                    return outcome;
                };
                let id = document_id(&document.name).to_owned();
                if change.target_ids.contains(&self.target) {
                    if let Some(seen) = &mut self.full_snapshot {
                        seen.insert(id.clone());
                    }
                    match phrase_of(&document) {
                        Ok(phrase) => {
                            self.documents.insert(id, phrase);
                        }
                        Err(reason) => {
                            tracing::warn!(document = %document.name, reason, "skipped a malformed Firestore document");
                            outcome.skipped += 1;
                            self.documents.remove(&id);
                        }
                    }
                } else if change.removed_target_ids.contains(&self.target) {
                    self.documents.remove(&id);
                }
            }
            ResponseType::DocumentDelete(delete) => {
                self.documents.remove(document_id(&delete.document));
            }
            ResponseType::DocumentRemove(remove) => {
                self.documents.remove(document_id(&remove.document));
            }
            ResponseType::Filter(filter) => {
                let disagrees = filter.target_id == self.target
                    && self.full_snapshot.is_none()
                    && usize::try_from(filter.count).ok() != Some(self.documents.len());
                if disagrees {
                    self.resumable = false;
                    outcome.resync = true;
                }
            }
        }
        outcome
    }

    fn target_change(&mut self, change: TargetChange, outcome: &mut Outcome) {
        let ours = change.target_ids.is_empty() || change.target_ids.contains(&self.target);
        if !ours {
            return;
        }
        match TargetChangeType::try_from(change.target_change_type) {
            Ok(TargetChangeType::Add) if !self.resumable => {
                self.full_snapshot = Some(HashSet::new());
            }
            Ok(TargetChangeType::Reset) => {
                self.full_snapshot = Some(HashSet::new());
            }
            Ok(TargetChangeType::Current) => {
                if let Some(seen) = self.full_snapshot.take() {
                    self.documents.retain(|id, _| seen.contains(id));
                }
                outcome.publish = Some(self.list());
            }
            Ok(TargetChangeType::NoChange)
                if change.target_ids.is_empty() && self.full_snapshot.is_none() =>
            {
                outcome.publish = Some(self.list());
            }
            Ok(TargetChangeType::Remove) => {
                // Firestore dropped the target; when it is added back, everything is re-sent.
                self.resumable = false;
                self.full_snapshot = None;
            }
            _ => {}
        }
        if !change.resume_token.is_empty() {
            self.resumable = true;
        }
    }
}

/// The last path segment of a document name.
pub fn document_id(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

fn phrase_of(document: &Document) -> Result<Phrase, &'static str> {
    let text = |field: &str| match document
        .fields
        .get(field)
        .and_then(|v| v.value_type.as_ref())
    {
        Some(ValueType::StringValue(text)) => Some(text.clone()),
        _ => None,
    };
    let word = text("word").ok_or("no string field `word`")?;
    let name = text("name").ok_or("no string field `name`")?;
    Ok(Phrase {
        id: document_id(&document.name).to_owned(),
        word,
        name,
    })
}

/// The delay before reconnect attempt `attempt` (0-based): doubling, capped, jittered
/// so replicas that lost Firestore together do not come back together.
pub fn backoff(attempt: u32) -> Duration {
    let base = BACKOFF_FIRST
        .saturating_mul(1u32 << attempt.min(16))
        .min(BACKOFF_CAP);
    base.mul_f64(1.0 + rand::random::<f64>() * 0.5)
}

/// Keeps `feed` following the collection for the life of the process, whatever
/// happens to the network: connects with backoff, listens, and when a silent listener's
/// probe fails, marks the feed down, drops the listener and starts over with backoff.
/// Returns at once; the list shown meanwhile is whatever `feed` holds.
pub fn follow(settings: FirestoreSettings, feed: Feed) {
    tokio::spawn(async move {
        let mut attempt = 0;
        loop {
            match FirestoreStore::connect(settings.clone()).await {
                Ok(store) => match store.listen(feed.clone()).await {
                    Ok(mut listener) => {
                        let connected = std::time::Instant::now();
                        store.watch(&feed).await;
                        let _ = listener.shutdown().await;
                        // Back off afresh only once a connection delivered a whole list.
                        if feed
                            .health()
                            .since_sync()
                            .is_some_and(|since| since < connected.elapsed())
                        {
                            attempt = 0;
                        }
                    }
                    Err(error) => tracing::warn!(%error, "cannot listen to Firestore"),
                },
                Err(error) => tracing::warn!(%error, "cannot connect to Firestore"),
            }
            feed.health().down();
            let delay = backoff(attempt);
            attempt = attempt.saturating_add(1);
            tracing::info!(
                delay_ms = delay.as_millis() as u64,
                "reconnecting to Firestore"
            );
            tokio::time::sleep(delay).await;
        }
    });
}

impl FirestoreStore {
    /// Returns when the connection looks lost: the listener was silent for
    /// [`PROBE_AFTER`] and a probe query failed.
    async fn watch(&self, feed: &Feed) {
        loop {
            tokio::time::sleep(PROBE_AFTER / 2).await;
            let silent = now_ms().saturating_sub(self.heard.load(Ordering::Relaxed));
            if silent < PROBE_AFTER.as_millis() as u64 {
                continue;
            }
            if self.answers().await {
                feed.health().up();
                // Reachable but silent is normal for an idle collection.
                self.heard.store(now_ms(), Ordering::Relaxed);
            } else {
                tracing::warn!(silent_ms = silent, "Firestore does not answer");
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firestore::gcloud_sdk::google::firestore::v1::{
        DocumentChange, DocumentDelete, ExistenceFilter, Value,
    };

    fn doc(id: &str, word: Option<&str>) -> Document {
        let mut fields = std::collections::HashMap::new();
        if let Some(word) = word {
            fields.insert(
                "word".to_owned(),
                Value {
                    value_type: Some(ValueType::StringValue(word.into())),
                },
            );
        }
        fields.insert(
            "name".to_owned(),
            Value {
                value_type: Some(ValueType::StringValue("n".into())),
            },
        );
        Document {
            name: format!("projects/p/databases/(default)/documents/words/{id}"),
            fields,
            ..Default::default()
        }
    }

    fn change(id: &str, word: Option<&str>) -> ResponseType {
        ResponseType::DocumentChange(DocumentChange {
            document: Some(doc(id, word)),
            target_ids: vec![1],
            removed_target_ids: vec![],
        })
    }

    fn target(kind: TargetChangeType, token: &[u8]) -> ResponseType {
        ResponseType::TargetChange(TargetChange {
            target_change_type: kind as i32,
            target_ids: vec![1],
            resume_token: token.to_vec(),
            ..Default::default()
        })
    }

    fn words(outcome: Outcome) -> Option<Vec<String>> {
        outcome
            .publish
            .map(|list| list.into_iter().map(|p| p.word).collect())
    }

    #[test]
    fn a_full_snapshot_publishes_at_current_and_sweeps_what_it_did_not_resend() {
        let mut state = ListenState::new(1);
        state.apply(target(TargetChangeType::Add, b""));
        assert_eq!(
            state.apply(change("a", Some("A"))),
            Outcome::default(),
            "nothing half-way"
        );
        state.apply(change("b", Some("B")));
        assert_eq!(
            words(state.apply(target(TargetChangeType::Current, b""))),
            Some(vec!["A".into(), "B".into()])
        );

        // The emulator's way of deleting: RESET, then everything but the deleted one.
        state.apply(target(TargetChangeType::Reset, b""));
        state.apply(change("b", Some("B2")));
        assert_eq!(
            words(state.apply(target(TargetChangeType::Current, b""))),
            Some(vec!["B2".into()])
        );
    }

    #[test]
    fn deltas_after_a_resume_keep_what_was_not_resent() {
        let mut state = ListenState::new(1);
        state.apply(target(TargetChangeType::Add, b""));
        state.apply(change("a", Some("A")));
        state.apply(change("b", Some("B")));
        state.apply(target(TargetChangeType::Current, b"token"));
        // Reconnected with the token: only the change since then arrives.
        state.apply(target(TargetChangeType::Add, b""));
        state.apply(change("c", Some("C")));
        let published = words(state.apply(target(TargetChangeType::Current, b"token2")));
        assert_eq!(published, Some(vec!["A".into(), "B".into(), "C".into()]));
        state.apply(ResponseType::DocumentDelete(DocumentDelete {
            document: doc("a", None).name,
            ..Default::default()
        }));
        let global = ResponseType::TargetChange(TargetChange {
            target_change_type: TargetChangeType::NoChange as i32,
            ..Default::default()
        });
        assert_eq!(
            words(state.apply(global)),
            Some(vec!["B".into(), "C".into()])
        );
    }

    #[test]
    fn a_disagreeing_existence_filter_asks_for_a_resync() {
        let mut state = ListenState::new(1);
        state.apply(target(TargetChangeType::Add, b""));
        state.apply(change("a", Some("A")));
        state.apply(target(TargetChangeType::Current, b"t"));
        let agree = ExistenceFilter {
            target_id: 1,
            count: 1,
            ..Default::default()
        };
        assert!(!state.apply(ResponseType::Filter(agree)).resync);
        let disagree = ExistenceFilter {
            target_id: 1,
            count: 2,
            ..Default::default()
        };
        assert!(state.apply(ResponseType::Filter(disagree)).resync);
        // After the resync the ADD starts a full snapshot again.
        state.apply(target(TargetChangeType::Add, b""));
        assert!(state.full_snapshot.is_some());
    }

    #[test]
    fn a_malformed_document_is_skipped_and_counted_and_the_rest_stays() {
        let mut state = ListenState::new(1);
        state.apply(target(TargetChangeType::Add, b""));
        state.apply(change("a", Some("A")));
        assert_eq!(state.apply(change("b", None)).skipped, 1);
        assert_eq!(
            words(state.apply(target(TargetChangeType::Current, b""))),
            Some(vec!["A".into()])
        );
    }
}
