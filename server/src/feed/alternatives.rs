//! Free words close to a taken one, for the checker to offer instead of leaving the
//! visitor to guess.
//!
//! The variants are the ones a person would reach for (a "!" or "?", the words turned
//! round, a plural, a short word before or after), tried in one fixed order, so the same
//! word and the same list give the same suggestions. Each must be a phrase by the
//! content rules, normalised as stored, and read like no minted phrase (which also
//! rules out every taken one).

use crate::feed::list::PhraseList;
use crate::text::{NormalizedWord, skeleton};

/// The most alternatives the checker offers.
pub const MAX_ALTERNATIVES: usize = 3;

/// Up to [`MAX_ALTERNATIVES`] free words close to `word` (already normalised), in the
/// order they are tried; none when nothing close is free or fits in a phrase.
pub fn alternatives(word: &str, list: &PhraseList) -> Vec<String> {
    let mut found: Vec<String> = Vec::with_capacity(MAX_ALTERNATIVES);
    for candidate in variants(word) {
        let Ok(valid) = NormalizedWord::validated(&candidate) else {
            continue;
        };
        let fresh = valid.word != word && !found.contains(&valid.word);
        if fresh && !list.reads_like_any(&skeleton(&valid.word)) {
            found.push(valid.word);
            if found.len() == MAX_ALTERNATIVES {
                break;
            }
        }
    }
    found
}

/// Every variant of `word`, the likeliest first. Some are too long or not new; the
/// caller keeps the ones that are phrases.
fn variants(word: &str) -> impl Iterator<Item = String> + '_ {
    let mut words: Vec<&str> = word.split(' ').collect();
    let turned = (words.len() > 1).then(|| {
        words.rotate_right(1);
        words.join(" ")
    });
    let plural = word
        .chars()
        .last()
        .filter(|last| last.is_ascii_uppercase() && *last != 'S')
        .map(|_| format!("{word}S"));
    let before = ["THE", "MY"].map(|short| format!("{short} {word}"));
    let after = [" 🦖", " TOO", " AGAIN", "!!", " FOREVER"].map(|short| format!("{word}{short}"));
    [format!("{word}!"), format!("{word}?")]
        .into_iter()
        .chain(turned)
        .chain(plural)
        .chain(before)
        .chain(after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feed::test_phrase as phrase;
    use crate::text::{MAX_GRAPHEMES, grapheme_count};

    fn list(words: &[&str]) -> PhraseList {
        PhraseList::from_phrases(
            (words.iter().enumerate())
                .map(|(i, word)| phrase(&format!("id{i}"), word))
                .collect(),
        )
    }

    #[test]
    fn offers_the_likeliest_free_variants_first() {
        let minted = list(&["DINO ROAR"]);
        assert_eq!(
            alternatives("DINO ROAR", &minted),
            ["DINO ROAR!", "DINO ROAR?", "ROAR DINO"]
        );
        assert_eq!(
            alternatives("RAWR", &list(&["RAWR"])),
            ["RAWR!", "RAWR?", "RAWRS"]
        );
    }

    #[test]
    fn skips_taken_variants_and_their_look_alikes() {
        // "DINO ROAR!" is taken outright; "R0AR DINO" (a zero) reads like "ROAR DINO".
        let minted = list(&["DINO ROAR", "DINO ROAR!", "R0AR DINO"]);
        let offered = alternatives("DINO ROAR", &minted);
        assert_eq!(offered, ["DINO ROAR?", "DINO ROARS", "THE DINO ROAR"]);
        for word in &offered {
            assert!(
                !minted.reads_like_any(&skeleton(word)),
                "{word} reads like a minted phrase"
            );
        }
    }

    #[test]
    fn are_deterministic() {
        let minted = list(&["BYE", "BYE!", "BYES"]);
        let first = alternatives("BYE", &minted);
        for _ in 0..5 {
            assert_eq!(alternatives("BYE", &minted), first);
        }
        assert_eq!(first, ["BYE?", "THE BYE", "MY BYE"]);
    }

    #[test]
    fn a_phrase_at_the_limit_gets_only_variants_that_fit_or_none() {
        let twenty = "ABCDEFGHIJ KLMNOPQRS";
        assert_eq!(grapheme_count(twenty), MAX_GRAPHEMES);
        assert_eq!(
            alternatives(twenty, &list(&[twenty])),
            ["KLMNOPQRS ABCDEFGHIJ"]
        );
        let one_word = "ABCDEFGHIJKLMNOPQRST";
        assert!(alternatives(one_word, &list(&[one_word])).is_empty());
        let emoji = "🦖".repeat(MAX_GRAPHEMES);
        assert!(alternatives(&emoji, &list(&[&emoji])).is_empty());
        // 16 families of four take all 400 bytes: one "!" more is refused by the bytes.
        let family = "👨\u{200D}👩\u{200D}👧\u{200D}👦";
        let heavy = family.repeat(16);
        assert_eq!(heavy.len(), crate::text::MAX_WORD_BYTES);
        assert!(alternatives(&heavy, &list(&[&heavy])).is_empty());
        // 19 characters in 400 bytes, two words: only turning them round fits.
        let spaced = format!(
            "{} {}👨\u{200D}👩\u{200D}👧🦖É",
            family.repeat(8),
            family.repeat(7)
        );
        assert_eq!((spaced.len(), grapheme_count(&spaced)), (400, 19));
        let turned = format!(
            "{}👨\u{200D}👩\u{200D}👧🦖É {}",
            family.repeat(7),
            family.repeat(8)
        );
        assert_eq!(alternatives(&spaced, &list(&[&spaced])), [turned]);
        for word in [twenty, one_word, "🦖🦖🦖 ROAR", "X"] {
            for offered in alternatives(word, &list(&[word])) {
                let valid = NormalizedWord::validated(&offered).expect("a phrase");
                assert_eq!(valid.word, offered, "stored as offered");
                assert!(valid.length <= MAX_GRAPHEMES);
            }
        }
    }

    #[test]
    fn emoji_and_other_scripts_get_variants_that_suit_them() {
        let minted = list(&["🦖", "恐龍"]);
        assert_eq!(alternatives("🦖", &minted), ["🦖!", "🦖?", "THE 🦖"]);
        // No Latin plural on a word in another script.
        assert_eq!(
            alternatives("恐龍", &minted),
            ["恐龍!", "恐龍?", "THE 恐龍"]
        );
    }
}
