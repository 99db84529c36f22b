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
    let decoded = percent_decoded(part).map_err(|i| {
        format!("the {what} has a % not followed by two hex digits (at byte {i}); write a literal % as %25")
    })?;
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

/// The query parameters some route reads.
pub const READ_PARAMETERS: [&str; 7] = ["after", "before", "check", "limit", "q", "since", "word"];

/// [`check_encoding`] of the value of each parameter in `query` that some route reads
/// ([`READ_PARAMETERS`]). The others are ignored, however they are written, as the
/// well-formed are: a bad escape in one (a mailer's campaign tag in Latin-1) does not
/// cost the visitor the page.
pub fn check_query(query: &str) -> Result<(), String> {
    for pair in query.split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let Ok(name) = percent_decoded(name) else {
            continue;
        };
        if let Some(read) = READ_PARAMETERS.iter().find(|read| read.as_bytes() == name) {
            check_encoding(&format!("value of {read}"), value)?;
        }
    }
    Ok(())
}

/// `part` percent-decoded, or where its first `%` without two hex digits after it is.
fn percent_decoded(part: &str) -> Result<Vec<u8>, usize> {
    let bytes = part.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = match bytes.get(i + 1..i + 3) {
                Some(&[high, low]) => hex_value(high).zip(hex_value(low)).map(|(h, l)| h << 4 | l),
                _ => None,
            };
            decoded.push(hex.ok_or(i)?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    Ok(decoded)
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

    #[test]
    fn only_the_parameters_read_must_decode() {
        for fine in [
            "ref=50%off",
            "utm_term=%E9t%E9&check=ok",
            "%zz=%zz",
            "check+=%FF",
            "checks=%FF",
            "",
            "&&=",
        ] {
            assert_eq!(check_query(fine), Ok(()), "{fine}");
        }
        for (bad, says) in [
            ("check=%zz", "the value of check has a % not followed"),
            ("x=%E9&q=%E9", "the value of q is not valid UTF-8"),
            ("%63heck=%00", "the value of check contains a NUL"),
            (
                "a=1&check=fine&before=%C3",
                "the value of before is not valid",
            ),
        ] {
            let refused = check_query(bad).unwrap_err();
            assert!(refused.starts_with(says), "{bad}: {refused}");
        }
    }
}
