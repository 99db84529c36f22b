//! The checker's normaliser: never panics, counts what it returns, and upper-casing
//! twice changes nothing more.
#![no_main]

#[path = "../../server/src/text.rs"]
#[allow(dead_code)]
mod text;

use libfuzzer_sys::fuzz_target;
use unicode_segmentation::UnicodeSegmentation as _;

fuzz_target!(|input: &str| {
    let word = text::NormalizedWord::new(input);
    assert_eq!(word.length, word.word.graphemes(true).count());
    assert_eq!(text::NormalizedWord::new(&word.word).word, word.word);
    let valid = text::NormalizedWord::validated(input).is_ok();
    assert_eq!(valid, (1..=text::MAX_GRAPHEMES).contains(&word.length));
});
