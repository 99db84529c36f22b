//! A word checked against the phrase list, and text to find in it: one decision for the
//! page's no-script answer and for the JSON API. A taken word names the phrase that took
//! it and offers free alternatives; a free one that reads like a minted phrase names it.

use std::sync::Arc;

use serde::Serialize;

use crate::feed::alternatives::alternatives;
use crate::feed::{Phrase, Snapshot};
use crate::text::{ContentError, NormalizedWord, skeleton};

/// The outcome of checking a word, shown by the checker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// What the visitor typed.
    pub input: String,
    /// Upper-cased, as phrases are stored.
    pub normalized: String,
    /// Characters (grapheme clusters) of `normalized`.
    pub length: usize,
    pub status: CheckStatus,
    /// The phrase that took the word (the oldest, should it be stored twice).
    pub taker: Option<Arc<Phrase>>,
    /// Free words close to a taken one, to try instead.
    pub alternatives: Vec<String>,
    /// The oldest minted phrase that reads the same as this free word (a zero for an O,
    /// a Cyrillic letter for a Latin one): minting it would make two that read alike.
    pub lookalike: Option<Arc<Phrase>>,
    /// Why the word cannot be a phrase, for the API to say.
    #[serde(skip)]
    pub problem: Option<ContentError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Empty,
    Available,
    Taken,
    TooLong,
    /// Holds something no phrase may (an invisible, control or unassigned character).
    Invalid,
    /// The list has not loaded yet, so nobody can tell.
    Unavailable,
}

impl Check {
    pub fn new(input: &str, snapshot: &Snapshot) -> Self {
        let NormalizedWord { word, length } = NormalizedWord::new(input);
        let validated = NormalizedWord::validated(input);
        let status = match &validated {
            Err(ContentError::Empty { .. }) => CheckStatus::Empty,
            Err(ContentError::TooLong { .. }) => CheckStatus::TooLong,
            Err(_) => CheckStatus::Invalid,
            Ok(_) if !snapshot.loaded => CheckStatus::Unavailable,
            Ok(_) if snapshot.is_taken(&word) => CheckStatus::Taken,
            Ok(_) => CheckStatus::Available,
        };
        let (mut taker, mut lookalike, mut offered) = (None, None, Vec::new());
        if matches!(status, CheckStatus::Taken | CheckStatus::Available) {
            let read = skeleton(&word);
            let mut alike = snapshot.list.alike(&read);
            if status == CheckStatus::Taken {
                taker = alike.find(|phrase| phrase.word == word).cloned();
                offered = alternatives(&word, &snapshot.list);
            } else {
                lookalike = alike.next().cloned();
            }
        }
        Self {
            input: input.into(),
            normalized: word,
            length,
            status,
            taker,
            alternatives: offered,
            lookalike,
            problem: validated.err(),
        }
    }
}

/// Longest text a find looks for, in bytes: more than any phrase may hold.
const MAX_FIND_BYTES: usize = 400;

/// `input` as a find looks for it (normalised like a phrase, so `ab` finds `AB`), or why
/// it cannot be looked for. Empty finds everything.
pub fn find_text(input: &str) -> Result<String, String> {
    if input.len() > MAX_FIND_BYTES {
        return Err(format!(
            "the text to find is longer than {MAX_FIND_BYTES} bytes; no phrase could hold it"
        ));
    }
    match NormalizedWord::validated(input) {
        Ok(valid) => Ok(valid.word),
        Err(ContentError::Empty { .. }) => Ok(String::new()),
        // Longer than a phrase finds nothing, which is an answer, not an error.
        Err(ContentError::TooLong { .. }) => Ok(NormalizedWord::new(input).word),
        Err(error) => Err(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feed::list::PhraseList;
    use crate::text::MAX_GRAPHEMES;

    fn snapshot(phrases: &[(&str, &str, &str)]) -> Snapshot {
        let phrases = (phrases.iter().enumerate())
            .map(|(i, (id, word, name))| Phrase {
                id: (*id).into(),
                word: (*word).into(),
                name: (*name).into(),
                created: i as u64 + 1,
                edited: 0,
            })
            .collect();
        Snapshot {
            version: 1,
            list: PhraseList::from_phrases(phrases),
            loaded: true,
        }
    }

    #[derive(serde::Deserialize)]
    struct Vector {
        minted: String,
        typed: String,
        alike: bool,
        note: String,
    }

    #[derive(serde::Deserialize)]
    struct FindVector {
        find: String,
        minted: String,
        found: bool,
        note: String,
    }

    #[test]
    fn a_find_shows_what_the_shared_vectors_say_and_never_half_a_flag() {
        use crate::feed::list::{Anchor, Cursor};
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/find.json");
        let text = std::fs::read_to_string(path).expect("the find vectors are in the repo");
        let vectors: Vec<FindVector> = serde_json::from_str(&text).expect("vectors are valid JSON");
        assert!(vectors.len() >= 10, "the vector file lost its cases");
        for v in vectors {
            let minted = NormalizedWord::new(&v.minted).word;
            let find = find_text(&v.find).expect("a find the host looks for");
            // Neighbours on both sides, whose words share the chunk's buffer with it.
            let snapshot = snapshot(&[
                ("a", "\u{1F1F8}", "A"),
                ("m", &minted, "M"),
                ("z", "\u{1F1EC}", "Z"),
            ]);
            let list = &snapshot.list;
            let ids = |page: crate::feed::list::ListPage| -> Vec<String> {
                page.phrases.iter().map(|p| p.id.to_string()).collect()
            };
            // An empty find shows every phrase; any other, none of the neighbours.
            let expected: Vec<String> = match (v.found, find.is_empty()) {
                (true, true) => vec!["z".into(), "m".into(), "a".into()],
                (true, false) => vec!["m".into()],
                (false, _) => vec![],
            };
            let first = ids(list.page(Anchor::First, 10, &find));
            assert_eq!(first, expected, "{}", v.note);
            // Read backwards, from past the oldest.
            let past = Cursor {
                created: 0,
                id: "".into(),
            };
            assert_eq!(
                ids(list.page(Anchor::Before(&past), 10, &find)),
                expected,
                "{}",
                v.note
            );
        }
    }

    #[test]
    fn a_free_word_names_the_minted_phrase_it_reads_like_on_every_shared_vector() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/vectors/lookalike.json"
        );
        let text = std::fs::read_to_string(path).expect("the look-alike vectors are in the repo");
        let vectors: Vec<Vector> = serde_json::from_str(&text).expect("vectors are valid JSON");
        assert!(vectors.len() >= 15, "the vector file lost its cases");
        for v in vectors {
            let minted = NormalizedWord::validated(&v.minted).expect("a minted phrase");
            let snapshot = snapshot(&[("m", &minted.word, "Rex")]);
            let check = Check::new(&v.typed, &snapshot);
            assert_eq!(check.status, CheckStatus::Available, "{}", v.note);
            assert_eq!(check.taker, None, "{}", v.note);
            let named = check.lookalike.as_ref().map(|p| p.id.as_str());
            assert_eq!(named, v.alike.then_some("m"), "{}", v.note);
            assert!(check.alternatives.is_empty(), "a free word needs none");
        }
    }

    #[test]
    fn a_taken_word_names_its_taker_and_free_alternatives() {
        let snapshot = snapshot(&[
            ("first", "DINO ROAR", "<b>Rex</b>"),
            ("twin", "DINO ROAR", "Other tool"),
            ("bang", "DINO ROAR!", "Ann"),
        ]);
        let check = Check::new("dino  roar", &snapshot);
        assert_eq!(check.status, CheckStatus::Taken);
        let taker = check.taker.expect("the taker is named");
        assert_eq!(
            (taker.id.as_str(), taker.name.as_str()),
            ("first", "<b>Rex</b>")
        );
        assert_eq!(
            check.alternatives,
            ["DINO ROAR?", "ROAR DINO", "DINO ROARS"]
        );
        assert_eq!(
            check.lookalike, None,
            "a taken word is not its own look-alike"
        );
    }

    #[test]
    fn alternatives_at_scale_are_free_valid_and_never_look_alikes() {
        // Every variant of DINO up to its fourth taken, with digits in place of letters.
        let mut minted: Vec<String> = ["DINO", "DINO!", "DINO?", "DINOS", "THE DINO"]
            .map(String::from)
            .into();
        minted.extend((0..2000).map(|i| format!("W{i}")));
        minted.push("MY DIN0".into());
        let rows: Vec<(String, String)> = (minted.iter().enumerate())
            .map(|(i, word)| (format!("id{i}"), word.clone()))
            .collect();
        let rows: Vec<(&str, &str, &str)> = (rows.iter())
            .map(|(id, word)| (id.as_str(), word.as_str(), "n"))
            .collect();
        let snapshot = snapshot(&rows);
        let check = Check::new("DINO", &snapshot);
        assert_eq!(check.alternatives, ["DINO 🦖", "DINO TOO", "DINO AGAIN"]);
        for word in &check.alternatives {
            let valid = NormalizedWord::validated(word).expect("valid");
            assert!(valid.length <= MAX_GRAPHEMES && valid.word == *word);
            assert!(!snapshot.is_taken(word));
            assert!(snapshot.list.alike(&skeleton(word)).next().is_none());
        }
    }

    #[test]
    fn only_taken_and_free_words_carry_the_extras() {
        let snapshot = snapshot(&[("a", "HELLO", "Rex")]);
        for input in ["", "x".repeat(21).as_str(), "HEL\u{200B}LO"] {
            let check = Check::new(input, &snapshot);
            assert!(check.taker.is_none() && check.lookalike.is_none());
            assert!(check.alternatives.is_empty());
        }
    }
}
