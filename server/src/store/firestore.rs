//! Phrases in a Firestore collection, followed by one listener per host.
//!
//! The listener's raw Listen responses drive [`ListenState`], which rebuilds the
//! collection the way Firestore's own SDKs do: a full snapshot begins on a target ADD
//! without a resume token or on RESET, document changes upsert, deletes and removals
//! remove, CURRENT closes a full snapshot and sweeps every id it did not see, and an
//! existence filter whose count disagrees asks for a resync. The feed is published
//! only at consistent points (CURRENT, or a global NO_CHANGE), never half-way through.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use firestore::gcloud_sdk::google::firestore::v1::listen_response::ResponseType;
use firestore::gcloud_sdk::google::firestore::v1::target_change::TargetChangeType;
use firestore::gcloud_sdk::google::firestore::v1::value::ValueType;
use firestore::gcloud_sdk::google::firestore::v1::{Document, TargetChange};
use firestore::gcloud_sdk::prost_types::Timestamp;
use firestore::{
    FirestoreDb, FirestoreDbOptions, FirestoreListenerParams, FirestoreListenerTarget,
    FirestoreMemListenStateStorage, FirestoreWritePrecondition,
};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};

use super::{AddOutcome, NewPhrase, PhraseStore, StoreError, new_document_id};
use crate::snapshot::{Feed, Phrase, now_ms};

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

/// How many phrases an import writes per commit: a phrase and its guard are two writes,
/// and a commit takes at most 500.
const IMPORT_CHUNK: usize = 200;

impl FirestoreStore {
    /// The collection of guard documents beside the phrases: one per minted word, its id
    /// a hash of the word, created in the same commit as the phrase with a must-not-exist
    /// precondition, so two adds of one word cannot both commit.
    fn guards(&self) -> String {
        guard_collection(&self.settings.collection)
    }

    /// The phrase holding `word`, guarded or not (documents written by other tools have
    /// no guard and still count).
    async fn holder_of(&self, word: &str) -> Result<Option<Phrase>, StoreError> {
        let found: Vec<Document> = self
            .db
            .fluent()
            .select()
            .from(self.settings.collection.as_str())
            .filter(|q| q.for_all([q.field("word").eq(word)]))
            .limit(1)
            .query()
            .await
            .map_err(|e| self.backend("query", e))?;
        Ok(found.first().map(|document| Phrase {
            id: document_id(&document.name).to_owned(),
            word: word.to_owned(),
            name: text_field(document, "name").unwrap_or_default(),
        }))
    }

    /// Commits every phrase with its guard, all or nothing. `Ok(false)` when a guard (or
    /// an id) already existed.
    async fn commit_guarded(&self, phrases: &[Phrase]) -> Result<bool, StoreError> {
        let guards = self.guards();
        // The emulator implements Commit but not CreateDocument: write through a transaction.
        let mut transaction = self
            .db
            .begin_transaction()
            .await
            .map_err(|e| self.backend("transaction", e))?;
        for phrase in phrases {
            let guard = Guard {
                word: phrase.word.clone(),
                phrase: phrase.id.clone(),
            };
            self.db
                .fluent()
                .update()
                .in_col(guards.as_str())
                .precondition(FirestoreWritePrecondition::Exists(false))
                .document_id(guard_id(&phrase.word))
                .object(&guard)
                .add_to_transaction(&mut transaction)
                .map_err(|e| self.backend("write", e))?;
            let stored = StoredPhrase {
                word: phrase.word.clone(),
                name: phrase.name.clone(),
            };
            self.db
                .fluent()
                .update()
                .in_col(self.settings.collection.as_str())
                .precondition(FirestoreWritePrecondition::Exists(false))
                .document_id(phrase.id.as_str())
                .object(&stored)
                .add_to_transaction(&mut transaction)
                .map_err(|e| self.backend("write", e))?;
        }
        match transaction.commit().await {
            Ok(_) => Ok(true),
            Err(firestore::errors::FirestoreError::DataConflictError(_)) => Ok(false),
            Err(error) => Err(self.backend("commit", error)),
        }
    }

    /// Deletes the guard of `word`, whatever it points at.
    async fn drop_guard(&self, word: &str) -> Result<(), StoreError> {
        let mut transaction = self
            .db
            .begin_transaction()
            .await
            .map_err(|e| self.backend("transaction", e))?;
        self.db
            .fluent()
            .delete()
            .from(self.guards().as_str())
            .document_id(guard_id(word))
            .add_to_transaction(&mut transaction)
            .map_err(|e| self.backend("delete", e))?;
        transaction
            .commit()
            .await
            .map_err(|e| self.backend("commit", e))?;
        Ok(())
    }

    async fn add_one(&self, new: NewPhrase) -> Result<Phrase, StoreError> {
        let phrase = Phrase {
            id: new_document_id(),
            word: new.word,
            name: new.name,
        };
        // Two rounds at most: the second after clearing a guard whose phrase is gone
        // (deleted by another tool), so a word can be minted again.
        for _ in 0..2 {
            if let Some(holder) = self.holder_of(&phrase.word).await? {
                return Err(StoreError::Taken {
                    word: holder.word,
                    name: holder.name,
                });
            }
            if self.commit_guarded(std::slice::from_ref(&phrase)).await? {
                return Ok(phrase);
            }
            if let Some(holder) = self.holder_of(&phrase.word).await? {
                return Err(StoreError::Taken {
                    word: holder.word,
                    name: holder.name,
                });
            }
            tracing::info!(word = %crate::text::terminal_safe(&phrase.word), "clearing the guard of a phrase that no longer exists");
            self.drop_guard(&phrase.word).await?;
        }
        Err(StoreError::Backend(format!(
            "the guard of {:?} keeps coming back; try again",
            phrase.word
        )))
    }

    /// The document with `id`, read with BatchGet (a query for one id would read them all).
    async fn document(&self, id: &str) -> Result<Option<Document>, StoreError> {
        use futures_util::StreamExt as _;
        let mut found = self
            .db
            .fluent()
            .select()
            .by_id_in(self.settings.collection.as_str())
            .batch([id])
            .await
            .map_err(|e| self.backend("read", e))?;
        Ok(found.next().await.and_then(|(_, document)| document))
    }
}

impl PhraseStore for FirestoreStore {
    fn list(&self) -> BoxFuture<'_, Result<Vec<Phrase>, StoreError>> {
        Box::pin(async move {
            let documents = self.documents().await?;
            let mut phrases = Vec::with_capacity(documents.len());
            for document in &documents {
                match phrase_of(document) {
                    Ok(phrase) => phrases.push(phrase),
                    Err(reason) => {
                        tracing::warn!(document = %crate::text::terminal_safe(&document.name), %reason, "skipped a Firestore document")
                    }
                }
            }
            Ok(phrases)
        })
    }

    fn add(&self, phrase: NewPhrase) -> BoxFuture<'_, Result<Phrase, StoreError>> {
        Box::pin(self.add_one(phrase))
    }

    fn add_many(
        &self,
        phrases: Vec<NewPhrase>,
    ) -> BoxFuture<'_, Result<Vec<AddOutcome>, StoreError>> {
        Box::pin(async move {
            // One read of the collection instead of a query per phrase; the guards still
            // decide, so a phrase added meanwhile by someone else is caught at commit.
            let mut taken: HashMap<String, String> = self
                .list()
                .await?
                .into_iter()
                .map(|phrase| (phrase.word, phrase.name))
                .collect();
            let mut outcomes = Vec::with_capacity(phrases.len());
            let mut pending = Vec::new();
            for new in phrases {
                if let Some(name) = taken.get(&new.word) {
                    outcomes.push(AddOutcome::Taken {
                        word: new.word,
                        name: name.clone(),
                    });
                    continue;
                }
                taken.insert(new.word.clone(), new.name.clone());
                outcomes.push(AddOutcome::Added(Phrase {
                    id: new_document_id(),
                    word: new.word,
                    name: new.name,
                }));
                pending.push(outcomes.len() - 1);
            }
            for chunk in pending.chunks(IMPORT_CHUNK) {
                let batch: Vec<Phrase> = chunk
                    .iter()
                    .filter_map(|&index| match &outcomes[index] {
                        AddOutcome::Added(phrase) => Some(phrase.clone()),
                        AddOutcome::Taken { .. } => None,
                    })
                    .collect();
                if self.commit_guarded(&batch).await? {
                    continue;
                }
                // Someone minted one of these meanwhile: settle each on its own.
                for (&index, phrase) in chunk.iter().zip(batch) {
                    let new = NewPhrase {
                        word: phrase.word,
                        name: phrase.name,
                    };
                    outcomes[index] = match self.add_one(new).await {
                        Ok(phrase) => AddOutcome::Added(phrase),
                        Err(StoreError::Taken { word, name }) => AddOutcome::Taken { word, name },
                        Err(error) => return Err(error),
                    };
                }
            }
            Ok(outcomes)
        })
    }

    fn remove(&self, id: String) -> BoxFuture<'_, Result<Phrase, StoreError>> {
        Box::pin(async move {
            let document = self
                .document(&id)
                .await?
                .ok_or_else(|| StoreError::NoSuchId(id.clone()))?;
            let word = text_field(&document, "word");
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
            if let Some(word) = &word {
                self.db
                    .fluent()
                    .delete()
                    .from(self.guards().as_str())
                    .document_id(guard_id(word))
                    .add_to_transaction(&mut transaction)
                    .map_err(|e| self.backend("delete", e))?;
            }
            match transaction.commit().await {
                Ok(_) => {}
                Err(firestore::errors::FirestoreError::DataNotFoundError(_)) => {
                    return Err(StoreError::NoSuchId(id));
                }
                Err(error) => return Err(self.backend("commit", error)),
            }
            Ok(Phrase {
                id,
                word: word.unwrap_or_default(),
                name: text_field(&document, "name").unwrap_or_default(),
            })
        })
    }
}

/// The collection that holds the guards of `collection`.
pub fn guard_collection(collection: &str) -> String {
    format!("{collection}-taken")
}

/// A guard's document id: the SHA-256 of the normalised word, in hex (a word may hold
/// characters a document id cannot).
pub fn guard_id(word: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(word.as_bytes()))
}

/// The fields of a guard document.
#[derive(Serialize, Deserialize)]
struct Guard {
    word: String,
    /// The id of the phrase document that holds the word.
    phrase: String,
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
    /// Broken document versions already reported (name, update time).
    reported: HashSet<(String, Option<Timestamp>)>,
}

/// Broken document versions remembered before the memory is cleared.
const MAX_REPORTED: usize = 10_000;

impl ListenState {
    pub fn new(target: u32) -> Self {
        Self {
            target: target as i32,
            documents: BTreeMap::new(),
            full_snapshot: None,
            resumable: false,
            reported: HashSet::new(),
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
                            // The emulator re-sends every document on every write: say
                            // each broken version once, not once per write.
                            let version = (document.name.clone(), document.update_time);
                            if self.reported.len() >= MAX_REPORTED {
                                self.reported.clear();
                            }
                            if self.reported.insert(version) {
                                tracing::warn!(document = %crate::text::terminal_safe(&document.name), reason, "skipped a malformed Firestore document");
                                outcome.skipped += 1;
                            }
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

fn text_field(document: &Document, field: &str) -> Option<String> {
    match document
        .fields
        .get(field)
        .and_then(|v| v.value_type.as_ref())
    {
        Some(ValueType::StringValue(text)) => Some(text.clone()),
        _ => None,
    }
}

/// A document as a phrase, following the content rules: the word normalised (other tools
/// may store it as typed), anything invisible, unassigned or oversized refused.
fn phrase_of(document: &Document) -> Result<Phrase, String> {
    let word = text_field(document, "word").ok_or("no string field `word`")?;
    let name = text_field(document, "name").ok_or("no string field `name`")?;
    let valid = NewPhrase::validated(&word, &name).map_err(|e| e.to_string())?;
    Ok(Phrase {
        id: document_id(&document.name).to_owned(),
        word: valid.word,
        name: valid.name,
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
    feed.clone().spawn_task(async move {
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
