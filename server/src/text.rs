//! The rules a phrase follows, shared by every server check: upper-casing and counting
//! what a person sees as one character (an extended grapheme cluster).
//!
//! The browser applies the same rules (`ui/src/text.ts`); `tests/vectors/text.json`
//! pins both sides to the same answers.

use unicode_segmentation::UnicodeSegmentation;

/// The most characters a phrase may have.
pub const MAX_GRAPHEMES: usize = 20;

/// Upper-cases a phrase the way the browser's `String.prototype.toUpperCase` does:
/// full, locale-independent case mapping (`ß` becomes `SS`).
pub fn normalize_word(input: &str) -> String {
    input.to_uppercase()
}

/// How many characters a person sees in `text`.
pub fn grapheme_count(text: &str) -> usize {
    text.graphemes(true).count()
}

/// Why a word cannot be a phrase.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WordError {
    #[error("a phrase needs at least one character")]
    Empty,
    #[error("a phrase can be at most {MAX_GRAPHEMES} characters; this one has {length}")]
    TooLong { length: usize },
}

/// A word upper-cased and measured, ready to compare with minted phrases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalizedWord {
    pub word: String,
    pub length: usize,
}

impl NormalizedWord {
    pub fn new(input: &str) -> Self {
        let word = normalize_word(input);
        let length = grapheme_count(&word);
        Self { word, length }
    }

    /// The same word, refused unless it has 1 to 20 characters.
    pub fn validated(input: &str) -> Result<Self, WordError> {
        let normalized = Self::new(input);
        match normalized.length {
            0 => Err(WordError::Empty),
            length if length > MAX_GRAPHEMES => Err(WordError::TooLong { length }),
            _ => Ok(normalized),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Vector {
        input: String,
        upper: String,
        graphemes: usize,
        note: String,
    }

    #[test]
    fn agrees_with_the_browser_on_every_shared_vector() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/text.json");
        let text = std::fs::read_to_string(path).expect("the shared vectors are in the repo");
        let vectors: Vec<Vector> = serde_json::from_str(&text).expect("vectors are valid JSON");
        assert!(vectors.len() >= 10, "the vector file lost its cases");
        for v in vectors {
            let normalized = NormalizedWord::new(&v.input);
            assert_eq!(normalized.word, v.upper, "upper-casing: {}", v.note);
            assert_eq!(normalized.length, v.graphemes, "grapheme count: {}", v.note);
        }
    }

    #[test]
    fn validation_counts_graphemes_not_bytes() {
        let family = "👨‍👩‍👧";
        let twenty = family.repeat(20);
        assert_eq!(NormalizedWord::validated(&twenty).map(|w| w.length), Ok(20));
        let twenty_one = family.repeat(21);
        assert_eq!(
            NormalizedWord::validated(&twenty_one),
            Err(WordError::TooLong { length: 21 })
        );
        assert_eq!(NormalizedWord::validated(""), Err(WordError::Empty));
    }
}
