//! Escaping and validation of text from outside, kept free of the rest of the crate
//! (std and serde_json only) so the fuzz targets in `fuzz/` compile it alone.

/// JSON that stays inert inside `<script type="application/json">` whatever its
/// strings contain: no `</script>`, no `<!--`, and no line separators that older
/// parsers treat as line ends.
pub fn inert_json(value: &serde_json::Value) -> String {
    inert(&value.to_string())
}

/// [`inert_json`] of JSON already written out.
pub fn inert(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            other => out.push(other),
        }
    }
    out
}

/// Whether `part` percent-decodes (with `+` as a byte of its own) to valid UTF-8.
pub fn check_encoding(what: &str, part: &str) -> Result<(), String> {
    let bytes = part.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = match bytes.get(i + 1..i + 3) {
                Some(&[high, low]) => hex_value(high).zip(hex_value(low)).map(|(h, l)| h << 4 | l),
                _ => None,
            };
            let Some(byte) = hex else {
                return Err(format!(
                    "the {what} has a % not followed by two hex digits (at byte {i}); write a literal % as %25"
                ));
            };
            decoded.push(byte);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    if let Err(error) = std::str::from_utf8(&decoded) {
        return Err(format!(
            "the {what} is not valid UTF-8 once percent-decoded (at byte {})",
            error.valid_up_to()
        ));
    }
    if decoded.contains(&0) {
        return Err(format!("the {what} contains a NUL byte"));
    }
    Ok(())
}

fn hex_value(digit: u8) -> Option<u8> {
    (digit as char).to_digit(16).map(|value| value as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_need_two_hex_digits_and_decode_to_utf8() {
        assert!(check_encoding("query", "check=%C3%A9t%C3%A9+ok").is_ok());
        for bad in ["%", "%4", "%zz", "%+f", "%-1", "a%C3", "%FF", "%00"] {
            assert!(check_encoding("query", bad).is_err(), "{bad}");
        }
    }
}
