//! One minted phrase, as the list holds it and clients receive it.

use serde::{Deserialize, Serialize};

/// One minted phrase, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Phrase {
    /// The document id.
    pub id: String,
    /// The phrase itself, upper case, at most 20 characters.
    pub word: String,
    /// Who minted it.
    pub name: String,
    /// When it was minted, as an order: the embedded store's change sequence, or
    /// Firestore's create time in microseconds. The list is newest first.
    #[serde(default)]
    pub created: u64,
}
