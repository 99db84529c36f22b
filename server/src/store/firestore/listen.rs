//! The listener's raw Listen responses drive [`ListenState`], which rebuilds the
//! collection the way Firestore's own SDKs do: a full snapshot begins on a target ADD
//! without a resume token or on RESET, document changes upsert, deletes and removals
//! remove, CURRENT closes a full snapshot and sweeps every id it did not see, and an
//! existence filter whose count disagrees asks for a resync. The feed is published
//! only at consistent points (CURRENT, or a global NO_CHANGE), never half-way through.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use firestore::gcloud_sdk::google::firestore::v1::listen_response::ResponseType;
use firestore::gcloud_sdk::google::firestore::v1::target_change::TargetChangeType;
use firestore::gcloud_sdk::google::firestore::v1::value::ValueType;
use firestore::gcloud_sdk::google::firestore::v1::{Document, TargetChange};
use firestore::gcloud_sdk::prost_types::Timestamp;

use crate::feed::{Change, Phrase};
use crate::store::NewPhrase;

/// A consistent point to publish.
#[derive(Debug, PartialEq)]
pub enum Publish {
    /// The first list this stream delivered, whole.
    Whole(Vec<Phrase>),
    /// What changed since the last publish.
    Changes(Vec<Change>),
}

/// What one Listen response asks of the host.
#[derive(Debug, Default, PartialEq)]
pub struct Outcome {
    pub publish: Option<Publish>,
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
    /// Whether the client holds a resume token (what [`Resumes`] saw), so that the ADD of
    /// the stream it opens resumes instead of re-sending everything. The client alone
    /// knows: it drops its tokens on RESET, on REMOVE, on a resync and when Firestore
    /// refuses one.
    resuming: Arc<AtomicBool>,
    /// Broken document versions already reported (name, update time).
    reported: Reported,
    /// Ids changed since the last publish.
    dirty: BTreeSet<String>,
    /// Whether this stream published its first list.
    published: bool,
}

/// Broken document versions remembered before the memory is cleared.
const MAX_REPORTED: usize = 10_000;

/// Broken document versions already reported (name, update time), kept by the follower
/// across the streams it opens: each reconnect re-sends every document, and each was
/// warned of and counted again, so an alert on the count fired at every network blip.
pub type Reported = Arc<std::sync::Mutex<HashSet<(String, Option<Timestamp>)>>>;

impl ListenState {
    pub fn new(target: u32, resuming: Arc<AtomicBool>) -> Self {
        Self {
            target: target as i32,
            documents: BTreeMap::new(),
            full_snapshot: None,
            resuming,
            reported: Reported::default(),
            dirty: BTreeSet::new(),
            published: false,
        }
    }

    /// The same state, reporting only what `reported` has not seen.
    pub fn remembering(mut self, reported: Reported) -> Self {
        self.reported = reported;
        self
    }

    /// What to publish now: the whole list the first time, then what changed.
    fn publish(&mut self) -> Publish {
        let dirty = std::mem::take(&mut self.dirty);
        if !std::mem::replace(&mut self.published, true) {
            return Publish::Whole(self.documents.values().cloned().collect());
        }
        Publish::Changes(
            dirty
                .into_iter()
                .map(|id| match self.documents.get(&id) {
                    Some(phrase) => Change::Upsert {
                        phrase: phrase.clone(),
                    },
                    None => Change::Remove { id },
                })
                .collect(),
        )
    }

    fn put(&mut self, id: String, phrase: Phrase) {
        // The emulator re-sends every document on every write: only a difference is a change.
        if self.documents.get(&id) != Some(&phrase) {
            self.dirty.insert(id.clone());
            self.documents.insert(id, phrase);
        }
    }

    fn drop_document(&mut self, id: &str) {
        if self.documents.remove(id).is_some() {
            self.dirty.insert(id.to_owned());
        }
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
                        Ok(phrase) => self.put(id, phrase),
                        Err(reason) => {
                            // The emulator re-sends every document on every write: say
                            // each broken version once, not once per write.
                            let version = (document.name.clone(), document.update_time);
                            let mut reported = self
                                .reported
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner);
                            if reported.len() >= MAX_REPORTED {
                                reported.clear();
                            }
                            if reported.insert(version) {
                                tracing::warn!(document = %crate::text::terminal_safe(&document.name), reason, "skipped a malformed Firestore document");
                                outcome.skipped += 1;
                            }
                            drop(reported);
                            self.drop_document(&id);
                        }
                    }
                } else if change.removed_target_ids.contains(&self.target) {
                    self.drop_document(&id);
                }
            }
            ResponseType::DocumentDelete(delete) => {
                self.drop_document(document_id(&delete.document));
            }
            ResponseType::DocumentRemove(remove) => {
                self.drop_document(document_id(&remove.document));
            }
            ResponseType::Filter(filter) => {
                let disagrees = filter.target_id == self.target
                    && self.full_snapshot.is_none()
                    && usize::try_from(filter.count).ok() != Some(self.documents.len());
                if disagrees {
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
            // A stream opened afresh re-sends everything: what it does not is gone. One
            // opened with a token sends only what changed, and a full snapshot half
            // received on a stream that dropped starts over.
            Ok(TargetChangeType::Add) => {
                self.full_snapshot = (!self.resuming.load(Ordering::Acquire)).then(HashSet::new);
            }
            Ok(TargetChangeType::Reset) => {
                self.full_snapshot = Some(HashSet::new());
            }
            Ok(TargetChangeType::Current) => {
                if let Some(seen) = self.full_snapshot.take() {
                    let gone: Vec<String> = (self.documents.keys())
                        .filter(|id| !seen.contains(*id))
                        .cloned()
                        .collect();
                    for id in gone {
                        self.drop_document(&id);
                    }
                }
                outcome.publish = Some(self.publish());
            }
            Ok(TargetChangeType::NoChange)
                if change.target_ids.is_empty() && self.full_snapshot.is_none() =>
            {
                outcome.publish = Some(self.publish());
            }
            Ok(TargetChangeType::Remove) => {
                // Firestore dropped the target; when it is added back, everything is re-sent.
                self.full_snapshot = None;
            }
            _ => {}
        }
    }
}

type BoxedError = Box<dyn std::error::Error + Send + Sync>;

/// The client's resume tokens, kept in memory as its own storage keeps them, noting
/// whether it holds one now: the client opens its next stream with the token it holds
/// (it keeps its own copy in step with this storage: set on each token, cleared on each
/// forget), so [`ListenState`] reads this to know whether a stream's ADD resumes.
pub struct Resumes {
    tokens: firestore::FirestoreMemListenStateStorage,
    resuming: Arc<AtomicBool>,
}

impl Resumes {
    pub fn new() -> (Self, Arc<AtomicBool>) {
        let resuming = Arc::new(AtomicBool::new(false));
        let storage = Self {
            tokens: firestore::FirestoreMemListenStateStorage::new(),
            resuming: resuming.clone(),
        };
        (storage, resuming)
    }
}

#[async_trait::async_trait]
impl firestore::FirestoreResumeStateStorage for Resumes {
    async fn read_resume_state(
        &self,
        target: &firestore::FirestoreListenerTarget,
    ) -> Result<Option<firestore::FirestoreListenerTargetResumeType>, BoxedError> {
        let state = self.tokens.read_resume_state(target).await?;
        self.resuming.store(state.is_some(), Ordering::Release);
        Ok(state)
    }

    async fn update_resume_token(
        &self,
        target: &firestore::FirestoreListenerTarget,
        token: firestore::FirestoreListenerToken,
    ) -> Result<(), BoxedError> {
        self.tokens.update_resume_token(target, token).await?;
        self.resuming.store(true, Ordering::Release);
        Ok(())
    }

    async fn forget_resume_state(
        &self,
        target: &firestore::FirestoreListenerTarget,
    ) -> Result<(), BoxedError> {
        self.resuming.store(false, Ordering::Release);
        self.tokens.forget_resume_state(target).await
    }
}

/// The last path segment of a document name.
pub fn document_id(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

pub(super) fn text_field(document: &Document, field: &str) -> Option<String> {
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
pub(super) fn phrase_of(document: &Document) -> Result<Phrase, String> {
    let word = text_field(document, "word").ok_or("no string field `word`")?;
    let name = text_field(document, "name").ok_or("no string field `name`")?;
    let valid = NewPhrase::validated(&word, &name).map_err(|e| e.to_string())?;
    let id = document_id(&document.name);
    if !crate::store::is_document_id(id) {
        return Err(crate::text::ContentError::NotAnId.to_string());
    }
    Ok(Phrase {
        id: id.to_owned(),
        word: valid.word,
        name: valid.name,
        created: document
            .create_time
            .as_ref()
            .map_or(0, micros)
            .min(crate::feed::list::MAX_CREATED),
        edited: document.update_time.as_ref().map_or(0, micros),
    })
}

/// A timestamp in microseconds since the epoch: the list's order, a safe JS integer
/// until the year 2255.
pub(super) fn micros(time: &Timestamp) -> u64 {
    let micros = i128::from(time.seconds) * 1_000_000 + i128::from(time.nanos / 1_000);
    u64::try_from(micros).unwrap_or(0)
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

    /// The words of a whole list, or `+WORD` and `-id` for changes.
    fn words(outcome: Outcome) -> Option<Vec<String>> {
        outcome.publish.map(|publish| match publish {
            Publish::Whole(list) => list.into_iter().map(|p| p.word).collect(),
            Publish::Changes(changes) => changes
                .into_iter()
                .map(|change| match change {
                    Change::Upsert { phrase } => format!("+{}", phrase.word),
                    Change::Remove { id } => format!("-{id}"),
                })
                .collect(),
        })
    }

    #[test]
    fn a_full_snapshot_publishes_at_current_and_sweeps_what_it_did_not_resend() {
        let mut state = ListenState::new(1, Arc::default());
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
            Some(vec!["-a".into(), "+B2".into()])
        );
        // Sent again unchanged: nothing to pass on.
        state.apply(target(TargetChangeType::Reset, b""));
        state.apply(change("b", Some("B2")));
        assert_eq!(
            words(state.apply(target(TargetChangeType::Current, b""))),
            Some(vec![])
        );
    }

    #[test]
    fn deltas_after_a_resume_keep_what_was_not_resent() {
        let resuming = Arc::new(AtomicBool::new(false));
        let mut state = ListenState::new(1, resuming.clone());
        state.apply(target(TargetChangeType::Add, b""));
        state.apply(change("a", Some("A")));
        state.apply(change("b", Some("B")));
        state.apply(target(TargetChangeType::Current, b"token"));
        // Reconnected with the token: only the change since then arrives.
        resuming.store(true, Ordering::Release);
        state.apply(target(TargetChangeType::Add, b""));
        state.apply(change("c", Some("C")));
        let published = words(state.apply(target(TargetChangeType::Current, b"token2")));
        assert_eq!(published, Some(vec!["+C".into()]));
        state.apply(ResponseType::DocumentDelete(DocumentDelete {
            document: doc("a", None).name,
            ..Default::default()
        }));
        let global = ResponseType::TargetChange(TargetChange {
            target_change_type: TargetChangeType::NoChange as i32,
            ..Default::default()
        });
        assert_eq!(words(state.apply(global)), Some(vec!["-a".into()]));
    }

    /// A client that dropped its tokens (Firestore refused one as stale) opens the
    /// stream afresh: what it does not send again is gone, token or not before.
    #[test]
    fn a_stream_opened_without_a_token_after_one_with_is_a_full_snapshot() {
        let resuming = Arc::new(AtomicBool::new(false));
        let mut state = ListenState::new(1, resuming.clone());
        state.apply(target(TargetChangeType::Add, b""));
        state.apply(change("a", Some("DELETED MEANWHILE")));
        state.apply(change("b", Some("STAYS")));
        state.apply(target(TargetChangeType::Current, b"token"));
        resuming.store(false, Ordering::Release);
        state.apply(target(TargetChangeType::Add, b""));
        state.apply(change("b", Some("STAYS")));
        assert_eq!(
            words(state.apply(target(TargetChangeType::Current, b"token2"))),
            Some(vec!["-a".into()])
        );
    }

    /// A RESET's re-send cut short by the stream dropping, and the stream opened afresh
    /// (the client forgets its token on RESET): the new stream's list is the whole list.
    #[test]
    fn a_reset_cut_short_by_a_drop_is_swept_by_the_stream_after_it() {
        let resuming = Arc::new(AtomicBool::new(false));
        let mut state = ListenState::new(1, resuming.clone());
        state.apply(target(TargetChangeType::Add, b""));
        for (id, word) in [("a", "STAYS"), ("b", "DELETED MEANWHILE"), ("c", "C")] {
            state.apply(change(id, Some(word)));
        }
        state.apply(target(TargetChangeType::Current, b"token"));
        resuming.store(true, Ordering::Release);
        state.apply(target(TargetChangeType::Reset, b""));
        state.apply(change("b", Some("DELETED MEANWHILE")));
        // The stream drops; the client opens another without a token.
        resuming.store(false, Ordering::Release);
        state.apply(target(TargetChangeType::Add, b""));
        state.apply(change("a", Some("STAYS")));
        let mut gone = words(state.apply(target(TargetChangeType::Current, b"t"))).unwrap();
        gone.sort();
        assert_eq!(gone, vec!["-b".to_owned(), "-c".to_owned()]);
    }

    #[test]
    fn a_disagreeing_existence_filter_asks_for_a_resync() {
        let mut state = ListenState::new(1, Arc::default());
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
        let mut state = ListenState::new(1, Arc::default());
        state.apply(target(TargetChangeType::Add, b""));
        state.apply(change("a", Some("A")));
        assert_eq!(state.apply(change("b", None)).skipped, 1);
        // Firestore takes an id with a bidi override; a page address must not.
        assert_eq!(state.apply(change("r\u{202e}l", Some("R"))).skipped, 1);
        assert_eq!(
            words(state.apply(target(TargetChangeType::Current, b""))),
            Some(vec!["A".into()])
        );
    }

    #[test]
    fn a_malformed_document_sent_again_by_the_next_stream_is_not_counted_again() {
        let reported = Reported::default();
        for (stream, counted) in [(1, 1), (2, 0)] {
            let mut state = ListenState::new(1, Arc::default()).remembering(reported.clone());
            state.apply(target(TargetChangeType::Add, b""));
            state.apply(change("a", Some("A")));
            assert_eq!(
                state.apply(change("b", None)).skipped,
                counted,
                "stream {stream}"
            );
        }
    }
}
