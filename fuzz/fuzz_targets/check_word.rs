//! The checker's normaliser: never panics, counts what it returns, upper-casing twice
//! changes nothing more, and validation accepts only what it would show; nor does the
//! look-alike reading of what it accepts.
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
    // Length is one rule of several (control characters, stacked marks, bytes...): an
    // accepted phrase has a length in range and is the word `new` shows.
    if let Ok(valid) = text::NormalizedWord::validated(input) {
        assert!((1..=text::MAX_GRAPHEMES).contains(&word.length));
        assert_eq!(valid, word);
        let _ = text::skeleton(&valid.word);
    }
});
