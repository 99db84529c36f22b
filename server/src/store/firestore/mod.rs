//! Phrases in a Firestore collection, followed by one listener per host.
//!
//! - this module: the client (connect, the one listener, reads and removals);
//! - [`guards`]: the guard documents that keep each word unique, and guarded imports;
//! - [`listen`]: the Listen stream's state machine, which says when the list is whole;
//! - [`follow`]: the supervisor that reconnects with backoff when Firestore goes silent.

mod follow;
mod guards;
mod listen;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use firestore::gcloud_sdk::google::firestore::v1::Document;
use firestore::{
    FirestoreDb, FirestoreDbOptions, FirestoreListenerParams, FirestoreListenerTarget,
    FirestoreWritePrecondition,
};
use futures_util::future::BoxFuture;
use prometheus::IntCounter;
use serde::{Deserialize, Serialize};

use super::{
    AddOutcome, Added, FirestoreSettings, NewPhrase, PhraseStore, StoreError, new_document_id,
};
use crate::feed::{Feed, Phrase, mono_ms, now_us};
use follow::PROBE_TIMEOUT;
use guards::IMPORT_CHUNK;
use listen::{Publish, Resumes, micros, phrase_of, text_field};

pub use follow::{backoff, follow};
pub use guards::{guard_collection, guard_id};
pub use listen::{ListenState, Outcome, document_id};

/// The one target id this host listens with.
const TARGET: u32 = 1;

/// How long a request may go unanswered, and how often the client sends it again.
#[derive(Debug, Clone, Copy)]
pub struct Patience {
    request: Duration,
    retries: usize,
}

impl Patience {
    /// A host's: it rides out an outage (its follower probes and reconnects anyway).
    pub const HOST: Self = Self {
        request: Duration::from_secs(20),
        retries: 3,
    };
    /// A command's: its operator is told within some twenty seconds, not a minute and a
    /// half. The wait is for an idle request, so a long read that keeps coming is not cut.
    pub const COMMAND: Self = Self {
        request: Duration::from_secs(10),
        retries: 1,
    };
}

/// A Firestore collection as a phrase source.
#[derive(Clone)]
pub struct FirestoreStore {
    db: FirestoreDb,
    settings: FirestoreSettings,
    patience: Patience,
    /// [`mono_ms`] of the last message from the listener.
    heard: Arc<AtomicU64>,
}

/// What the listener counts in [`crate::metrics::Metrics`].
#[derive(Debug, Clone)]
struct SourceCounts {
    /// `lastwords_feed_documents_skipped_total`: malformed documents.
    skipped: IntCounter,
    /// Which malformed documents were counted, over every stream.
    reported: listen::Reported,
    /// `lastwords_feed_resyncs_total`: times Firestore sent the whole list again.
    resyncs: IntCounter,
}

/// The fields of a phrase document.
#[derive(Serialize, Deserialize)]
struct StoredPhrase {
    word: String,
    name: String,
}

impl FirestoreStore {
    /// Connects (the client connects eagerly); honours `FIRESTORE_EMULATOR_HOST`.
    pub async fn connect(
        settings: FirestoreSettings,
        patience: Patience,
    ) -> Result<Self, StoreError> {
        let options = FirestoreDbOptions::new(settings.project.clone())
            .with_database_id(settings.database.clone())
            .with_request_timeout(patience.request)
            .with_max_retries(patience.retries);
        let db = FirestoreDb::with_options(options).await.map_err(|e| {
            StoreError::Backend(match std::env::var("FIRESTORE_EMULATOR_HOST") {
                Ok(_) => format!("cannot reach {}: {e}", reached(&settings)),
                Err(_) => format!(
                    "cannot reach {}: {e}. Check the project id, the credentials (GOOGLE_APPLICATION_CREDENTIALS or the metadata server) and the network, or set FIRESTORE_EMULATOR_HOST for an emulator",
                    reached(&settings)
                ),
            })
        })?;
        Ok(Self {
            db,
            settings,
            patience,
            heard: Arc::new(AtomicU64::new(mono_ms())),
        })
    }

    /// Starts the one listener on the collection, feeding `feed`. The crate's listener
    /// reconnects by itself after `retry_delay`.
    async fn listen(
        &self,
        feed: Feed,
        counts: SourceCounts,
    ) -> Result<firestore::FirestoreListener<FirestoreDb, Resumes>, StoreError> {
        let (resumes, resuming) = Resumes::new();
        let mut listener = self
            .db
            .create_listener_with_params(
                resumes,
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
        let state = Arc::new(Mutex::new(
            ListenState::new(TARGET, resuming).remembering(counts.reported.clone()),
        ));
        let heard = self.heard.clone();
        listener
            .start(move |event| {
                let feed = feed.clone();
                let counts = counts.clone();
                let state = state.clone();
                let control = control.clone();
                heard.store(mono_ms(), Ordering::Relaxed);
                async move {
                    let health = feed.health();
                    health.up();
                    let outcome = match state.lock() {
                        Ok(mut state) => state.apply(event),
                        Err(_) => Outcome::default(),
                    };
                    if outcome.skipped > 0 {
                        counts.skipped.inc_by(outcome.skipped);
                    }
                    if outcome.resync {
                        counts.resyncs.inc();
                        tracing::warn!(
                            "Firestore existence filter disagrees with our list; resyncing"
                        );
                        control.resync_target(FirestoreListenerTarget::new(TARGET));
                    }
                    if let Some(publish) = outcome.publish {
                        // Synced first: whoever wakes on the new list (the saved-list
                        // writer) must see it as Firestore's, not the restored one.
                        health.synced();
                        let snapshot = match publish {
                            Publish::Whole(phrases) => feed.replace(phrases),
                            Publish::Changes(changes) => feed.apply(changes),
                        };
                        tracing::debug!(
                            version = snapshot.version,
                            count = snapshot.list.len(),
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

    /// Whether Firestore answers a one-document query within a few seconds, or what
    /// came back instead. Costs one read; asked only when the listener has been silent
    /// for a while.
    async fn answers(&self) -> Result<(), String> {
        let probe = self
            .db
            .fluent()
            .select()
            .from(self.settings.collection.as_str())
            .limit(1)
            .query();
        match tokio::time::timeout(PROBE_TIMEOUT, probe).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(error)) => Err(error.to_string()),
            Err(_) => Err(format!("no answer within {} s", PROBE_TIMEOUT.as_secs())),
        }
    }

    fn backend(&self, what: &str, error: firestore::errors::FirestoreError) -> StoreError {
        let Some(silent) = unanswered(&error) else {
            return StoreError::Backend(format!(
                "Firestore {what} on collection {:?} failed: {error}",
                self.settings.collection
            ));
        };
        let Patience { request, retries } = self.patience;
        // The client sends a read again; a transaction's begin and commit it does not.
        let reads = matches!(what, "query" | "read");
        let asked = match if reads { retries + 1 } else { 1 } {
            1 => "once".to_owned(),
            2 => "twice".to_owned(),
            n => format!("{n} times"),
        };
        let heard = match silent {
            Silence::NoAnswer => format!(
                "did not answer within {} s, asked {asked}",
                request.as_secs()
            ),
            Silence::Unreachable => format!("could not be reached, tried {asked} ({error})"),
        };
        // Firestore applies a commit the client gave up on all the same, if it reached it.
        let outcome = if what == "commit" {
            "; whether the write was applied is not known until it answers again (`lastwords phrases list` shows it)"
        } else {
            ""
        };
        StoreError::Backend(format!(
            "{} {heard} ({what} on collection {:?}){outcome}",
            reached(&self.settings),
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

/// Which Firestore is meant, in an operator's words.
fn reached(settings: &FirestoreSettings) -> String {
    match std::env::var("FIRESTORE_EMULATOR_HOST") {
        Ok(emulator) => format!(
            "the Firestore emulator at {emulator} (FIRESTORE_EMULATOR_HOST) for project {:?}",
            settings.project
        ),
        Err(_) => format!(
            "Firestore project {:?} (database {:?})",
            settings.project, settings.database
        ),
    }
}

enum Silence {
    NoAnswer,
    Unreachable,
}

/// Whether `error` says Firestore never answered (rather than what it answered), and how.
fn unanswered(error: &firestore::errors::FirestoreError) -> Option<Silence> {
    let firestore::errors::FirestoreError::DatabaseError(error) = error else {
        return None;
    };
    match error.public.code.as_str() {
        "DeadlineExceeded" | "CONNECTION_TIMEOUT" => Some(Silence::NoAnswer),
        "Unavailable" | "CONNECTION_CLOSED" | "CONNECTION_ERROR" => Some(Silence::Unreachable),
        _ => None,
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
            // Oldest first, as `list` promises: a query without an order comes in id order.
            // The reverse of the site's order (newest first, a tie in id order).
            phrases.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| b.id.cmp(&a.id)));
            Ok(phrases)
        })
    }

    fn add(&self, phrase: NewPhrase) -> BoxFuture<'_, Result<Added<Phrase>, StoreError>> {
        Box::pin(self.add_one(phrase, None))
    }

    fn add_many(
        &self,
        phrases: Vec<NewPhrase>,
    ) -> BoxFuture<'_, Result<Added<Vec<AddOutcome>>, StoreError>> {
        Box::pin(async move {
            // One read of the collection instead of a query per phrase; the guards still
            // decide, so a phrase added meanwhile by someone else is caught at commit.
            let read = self.list().await?;
            let known: HashMap<String, String> = read
                .iter()
                .map(|phrase| (phrase.word.clone(), phrase.name.clone()))
                .collect();
            let mut taken = known.clone();
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
                    // Firestore's times reach the list through the listener.
                    created: now_us(),
                    edited: 0,
                }));
                pending.push(outcomes.len() - 1);
            }
            let mut committed = 0;
            // What was committed before a failure stays; the caller is told how much.
            let stopped = |committed: usize, error: StoreError| match committed {
                0 => error,
                committed => StoreError::Partial {
                    committed,
                    cause: Box::new(error),
                },
            };
            // A commit's phrases share its time, and the list orders a tie by id: the ids,
            // random as ever, are handed out so that the file's order is the list's (the
            // last entry the newest, as the embedded store keeps them).
            let mut ids: Vec<String> = pending.iter().map(|_| new_document_id()).collect();
            ids.sort_unstable_by(|a, b| b.cmp(a));
            for (&index, id) in pending.iter().zip(ids) {
                if let AddOutcome::Added(phrase) = &mut outcomes[index] {
                    phrase.id = id;
                }
            }
            for chunk in pending.chunks(IMPORT_CHUNK) {
                let batch: Vec<Phrase> = chunk
                    .iter()
                    .filter_map(|&index| match &outcomes[index] {
                        AddOutcome::Added(phrase) => Some(phrase.clone()),
                        AddOutcome::Taken { .. } => None,
                    })
                    .collect();
                match self.commit_guarded(&batch).await {
                    Ok(true) => {
                        committed += batch.len();
                        continue;
                    }
                    Ok(false) => {}
                    Err(error) => return Err(stopped(committed, error)),
                }
                // Someone minted one of these meanwhile: settle each on its own, from the
                // read above (another read of every document for each would cost a chunk
                // of 200 as many reads of the collection).
                for (&index, phrase) in chunk.iter().zip(batch) {
                    let new = NewPhrase {
                        word: phrase.word,
                        name: phrase.name,
                    };
                    outcomes[index] = match self.add_one(new, Some(&known)).await {
                        Ok(added) => {
                            committed += 1;
                            AddOutcome::Added(added.done)
                        }
                        Err(StoreError::Taken { word, name }) => AddOutcome::Taken { word, name },
                        Err(error) => return Err(stopped(committed, error)),
                    };
                }
            }
            Ok(Added {
                done: outcomes,
                read: Some(read),
            })
        })
    }

    fn remove(&self, id: String) -> BoxFuture<'_, Result<Phrase, StoreError>> {
        Box::pin(async move {
            let document = self
                .document(&id)
                .await?
                .ok_or_else(|| StoreError::NoSuchId(id.clone()))?;
            let word = text_field(&document, "word");
            let mut transaction = self.transaction().await?;
            self.db
                .fluent()
                .delete()
                .from(self.settings.collection.as_str())
                .precondition(FirestoreWritePrecondition::Exists(true))
                .document_id(id.as_str())
                .add_to_transaction(&mut transaction)
                .map_err(|e| self.backend("delete", e))?;
            if let Some(word) = &word {
                self.delete_guard_in(&mut transaction, word)?;
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
                created: document.create_time.as_ref().map_or(0, micros),
                edited: document.update_time.as_ref().map_or(0, micros),
            })
        })
    }
}
