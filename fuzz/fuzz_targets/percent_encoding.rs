//! The request guard's percent-decoding check: never panics, and accepts exactly the
//! inputs a strict decoder turns into UTF-8 without NUL; a query, exactly those whose
//! read parameters' values it accepts.
#![no_main]

#[path = "../../server/src/escape.rs"]
#[allow(dead_code)]
mod escape;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|part: &str| {
    let accepted = escape::check_encoding("query", part).is_ok();
    assert_eq!(accepted, strict_decode(part.as_bytes()).is_some());

    let read_values_decode = part.split('&').all(|pair| {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let read = strict_bytes(name.as_bytes())
            .is_some_and(|name| escape::READ_PARAMETERS.iter().any(|r| r.as_bytes() == name));
        !read || strict_decode(value.as_bytes()).is_some()
    });
    assert_eq!(escape::check_query(part).is_ok(), read_values_decode);
});

fn strict_decode(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8(strict_bytes(bytes)?).ok()?;
    (!text.contains('\0')).then_some(text)
}

fn strict_bytes(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'%' {
            let [high, low, ..] = tail else { return None };
            if !high.is_ascii_hexdigit() || !low.is_ascii_hexdigit() {
                return None;
            }
            let text = std::str::from_utf8(&tail[..2]).ok()?;
            out.push(u8::from_str_radix(text, 16).ok()?);
            rest = &tail[2..];
        } else {
            out.push(first);
            rest = tail;
        }
    }
    Some(out)
}
