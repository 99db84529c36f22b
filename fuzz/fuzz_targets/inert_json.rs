//! Props embedded in `<script type="application/json">`: whatever a phrase or name
//! holds, nothing in the output can end the script element or open a comment, and the
//! JSON still parses back to the same value.
#![no_main]

#[path = "../../server/src/escape.rs"]
#[allow(dead_code)]
mod escape;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|fields: (String, String)| {
    let (word, name) = fields;
    let value = serde_json::json!({ "phrases": [{ "id": "a", "word": word, "name": name }] });
    let out = escape::inert_json(&value);
    for forbidden in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
        assert!(!out.contains(forbidden), "{forbidden:?} in {out}");
    }
    let back: serde_json::Value = serde_json::from_str(&out).expect("still JSON");
    assert_eq!(back, value);
});
