//! Uniqueness on Firestore: a guard document per minted word, created in the same commit
//! as its phrase with a must-not-exist precondition, so two adds of one word cannot both
//! commit; imports write phrases and guards in chunks.

use std::collections::HashMap;

use firestore::gcloud_sdk::google::firestore::v1::Document;
use firestore::{FirestoreTransaction, FirestoreWritePrecondition};
use serde::{Deserialize, Serialize};

use super::listen::{phrase_of, text_field};
use super::{FirestoreStore, StoredPhrase};
use crate::feed::Phrase;
use crate::store::{Added, NewPhrase, StoreError, new_document_id};

/// How many phrases an import writes per commit: a phrase and its guard are two writes,
/// and a commit takes at most 500.
pub(super) const IMPORT_CHUNK: usize = 200;

impl FirestoreStore {
    /// The collection of guard documents beside the phrases: one per minted word, its id
    /// a hash of the word, created in the same commit as the phrase with a must-not-exist
    /// precondition, so two adds of one word cannot both commit.
    pub(super) fn guards(&self) -> String {
        guard_collection(&self.settings.collection)
    }

    /// Who holds `word` (normalised) as the site shows it, guarded or not: documents
    /// written by other tools have no guard and still count, also when they stored the
    /// word as typed (the site shows it normalised), and those the site skips as
    /// malformed do not, as an import counts them.
    async fn holder_of(&self, word: &str) -> Result<Holding, StoreError> {
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
        if let Some(phrase) = found.iter().find_map(|document| phrase_of(document).ok()) {
            return Ok(Holding::Held(phrase));
        }
        // Stored in another form: only a read of every word finds it.
        use crate::store::PhraseStore as _;
        let all = self.list().await?;
        Ok(match all.iter().find(|phrase| phrase.word == word) {
            Some(holder) => Holding::Held(holder.clone()),
            None => Holding::Free(all),
        })
    }

    /// The id of the phrase `word`'s guard names, if there is a guard.
    async fn guarded_by(&self, word: &str) -> Result<Option<String>, StoreError> {
        let guard = self.document_in(&self.guards(), &guard_id(word)).await?;
        Ok(guard.map(|guard| text_field(&guard, "phrase").unwrap_or_default()))
    }

    /// Commits every phrase with its guard, all or nothing. `Ok(false)` when a guard (or
    /// an id) already existed.
    pub(super) async fn commit_guarded(&self, phrases: &[Phrase]) -> Result<bool, StoreError> {
        let guards = self.guards();
        let mut transaction = self.transaction().await?;
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

    /// A new transaction; the emulator implements Commit but not the single-document
    /// writes, so every write goes through one.
    pub(super) async fn transaction(&self) -> Result<FirestoreTransaction<'_>, StoreError> {
        self.db
            .begin_transaction()
            .await
            .map_err(|e| self.backend("transaction", e))
    }

    /// Adds the deletion of `word`'s guard to `transaction`.
    pub(super) fn delete_guard_in(
        &self,
        transaction: &mut FirestoreTransaction<'_>,
        word: &str,
    ) -> Result<(), StoreError> {
        self.db
            .fluent()
            .delete()
            .from(self.guards().as_str())
            .document_id(guard_id(word))
            .add_to_transaction(transaction)
            .map_err(|e| self.backend("delete", e))?;
        Ok(())
    }

    /// Deletes the guard of `word` that names the phrase `stale`, once however many try:
    /// the same commit creates a marker for that guard and that phrase, which only one
    /// commit can. Without it, one adder's late delete could take away the guard another
    /// just committed, and a third would mint the word again. (Firestore's update-time
    /// precondition would say the same, but the emulator the tests run does not check it.)
    async fn clear_guard(&self, word: &str, stale: &str) -> Result<(), StoreError> {
        use sha2::Digest as _;
        let marker = hex::encode(sha2::Sha256::digest(format!("{}/{stale}", guard_id(word))));
        let cleared = Guard {
            word: word.to_owned(),
            phrase: stale.to_owned(),
        };
        let mut transaction = self.transaction().await?;
        self.db
            .fluent()
            .update()
            .in_col(format!("{}-cleared", self.guards()).as_str())
            .precondition(FirestoreWritePrecondition::Exists(false))
            .document_id(marker)
            .object(&cleared)
            .add_to_transaction(&mut transaction)
            .map_err(|e| self.backend("write", e))?;
        self.delete_guard_in(&mut transaction, word)?;
        match transaction.commit().await {
            // Cleared by another adder already: the next round sees what it did.
            Ok(_) | Err(firestore::errors::FirestoreError::DataConflictError(_)) => Ok(()),
            Err(error) => Err(self.backend("commit", error)),
        }
    }

    /// Adds `new` unless its word is taken. `known`: the words of the collection (with
    /// their minters) as the caller read it a moment ago, which the first look takes
    /// instead of reading every document; the guards catch what was minted since.
    pub(super) async fn add_one(
        &self,
        new: NewPhrase,
        known: Option<&HashMap<String, String>>,
    ) -> Result<Added<Phrase>, StoreError> {
        let phrase = Phrase {
            id: new_document_id(),
            word: new.word,
            name: new.name,
            // Firestore's times reach the list through the listener.
            created: crate::feed::now_us(),
            edited: 0,
        };
        let taken = |holder: Phrase| StoreError::Taken {
            word: holder.word,
            name: holder.name,
        };
        let mut read = None;
        // A few rounds at most: the later ones after clearing a guard whose phrase is gone
        // (deleted by another tool), so a word can be minted again.
        for round in 0..3 {
            match known.filter(|_| round == 0) {
                Some(known) => {
                    if let Some(name) = known.get(&phrase.word) {
                        return Err(StoreError::Taken {
                            word: phrase.word,
                            name: name.clone(),
                        });
                    }
                }
                None => match self.holder_of(&phrase.word).await? {
                    Holding::Held(holder) => return Err(taken(holder)),
                    Holding::Free(all) => read = Some(all),
                },
            }
            if self.commit_guarded(std::slice::from_ref(&phrase)).await? {
                return Ok(Added { done: phrase, read });
            }
            match self.holder_of(&phrase.word).await? {
                Holding::Held(holder) => return Err(taken(holder)),
                Holding::Free(all) => read = Some(all),
            }
            // Only a guard naming a phrase that is gone, or that holds another word now:
            // one naming a phrase just minted by another adder is that adder's.
            let Some(stale) = self.guarded_by(&phrase.word).await? else {
                continue;
            };
            let named = match stale.as_str() {
                "" => None,
                id => self.document(id).await?,
            };
            if named
                .and_then(|document| phrase_of(&document).ok())
                .is_none_or(|named| named.word != phrase.word)
            {
                tracing::info!(word = %crate::text::terminal_safe(&phrase.word), "clearing the guard of a phrase that no longer exists");
                self.clear_guard(&phrase.word, &stale).await?;
            }
        }
        Err(StoreError::Backend(format!(
            "the guard of {} keeps coming back; try again",
            crate::text::quoted(&phrase.word)
        )))
    }

    /// The document with `id`, read with BatchGet (a query for one id would read them all).
    pub(super) async fn document(&self, id: &str) -> Result<Option<Document>, StoreError> {
        self.document_in(&self.settings.collection, id).await
    }

    /// The document with `id` in `collection`, read with BatchGet.
    async fn document_in(
        &self,
        collection: &str,
        id: &str,
    ) -> Result<Option<Document>, StoreError> {
        use futures_util::StreamExt as _;
        let mut found = self
            .db
            .fluent()
            .select()
            .by_id_in(collection)
            .batch([id])
            .await
            .map_err(|e| self.backend("read", e))?;
        Ok(found.next().await.and_then(|(_, document)| document))
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

/// Who holds a word.
enum Holding {
    Held(Phrase),
    /// No one: every phrase of the collection, read to be sure.
    Free(Vec<Phrase>),
}

/// The fields of a guard document.
#[derive(Serialize, Deserialize)]
struct Guard {
    word: String,
    /// The id of the phrase document that holds the word.
    phrase: String,
}
