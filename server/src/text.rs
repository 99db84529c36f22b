//! The content rules: what a phrase and an author's name may hold, and how a phrase is
//! compared. One place, used by every way in: the CLI and its import, documents read
//! from Firestore, rows read from the embedded store, the checker and its API.
//!
//! A character is what a person sees as one (an extended grapheme cluster). A phrase is
//! NFC-normalised, its spaces folded, then upper-cased with the full, language-neutral
//! mapping (`ß` becomes `SS`), and must have 1 to 20 characters. Nothing invisible or
//! unassigned gets in: control and format characters (zero-width spaces, bidi overrides),
//! private-use and unassigned code points, line and paragraph separators, and what is
//! shown as nothing under another category (Hangul fillers, the musical null notehead),
//! nor the replacement character a broken decoding leaves. The zero-width joiner is kept
//! only inside an emoji sequence, tag characters only in a tag flag, and a variation
//! selector only after a character one can change (not a Latin, Greek or Cyrillic
//! letter). The braille blank is folded like a space, which it shows as. Something must
//! show: marks alone are as empty as spaces.
//!
//! The browser applies the same rules (`ui/src/text.ts`); `tests/vectors/text.json`
//! pins both sides to the same answers.

use unicode_normalization::UnicodeNormalization as _;
use unicode_properties::{GeneralCategory, UnicodeEmoji as _, UnicodeGeneralCategory as _};
use unicode_script::{Script, UnicodeScript as _};
use unicode_segmentation::UnicodeSegmentation;

/// The most characters a phrase may have.
pub const MAX_GRAPHEMES: usize = 20;
/// The most UTF-8 bytes a phrase may take: 20 emoji sequences fit, 20 letters buried
/// under combining marks do not.
pub const MAX_WORD_BYTES: usize = 400;
/// The most characters an author's name may have.
pub const MAX_NAME_GRAPHEMES: usize = 40;
/// The most UTF-8 bytes an author's name may take.
pub const MAX_NAME_BYTES: usize = 400;
/// The most combining marks one character may carry (Vietnamese needs two, keycaps two).
pub const MAX_MARKS: usize = 4;

const ZERO_WIDTH_JOINER: char = '\u{200D}';
const ZERO_WIDTH_NON_JOINER: char = '\u{200C}';
const BLACK_FLAG: char = '\u{1F3F4}';
const BRAILLE_BLANK: char = '\u{2800}';
const CAPITAL_SHARP_S: char = '\u{1E9E}';

/// Why a text cannot be stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContentError {
    #[error("{what} needs at least one visible character")]
    Empty { what: &'static str },
    #[error("{what} can be at most {max} characters; this one has {length}")]
    TooLong {
        what: &'static str,
        max: usize,
        length: usize,
    },
    #[error("{what} can take at most {max} bytes; this one takes {bytes}")]
    TooManyBytes {
        what: &'static str,
        max: usize,
        bytes: usize,
    },
    #[error("{what} cannot contain {}", describe(*.character))]
    Forbidden { what: &'static str, character: char },
    #[error("{what} has a character with more than {MAX_MARKS} combining marks")]
    TooManyMarks { what: &'static str },
    #[error("{what} is not stored in its normal form (\"{}\")", terminal_safe(.normal))]
    NotNormal { what: &'static str, normal: String },
    /// A stored row's id (written by hand) that no document could have.
    #[error(
        "its id is not one a document can have (1 to 1,500 bytes, no \"/\", not \".\" or \"..\", nothing invisible)"
    )]
    NotAnId,
    /// A stored row (written by hand) holding a blob, or bytes that are not UTF-8,
    /// where the schema says text.
    #[error("{what} is not text (a blob, or bytes that are not UTF-8)")]
    NotText { what: &'static str },
}

impl ContentError {
    /// The code a client can act on, as the checker's API and page name it.
    pub fn code(&self) -> &'static str {
        match self {
            ContentError::Empty { .. } => "empty",
            ContentError::TooLong { .. } => "too_long",
            ContentError::TooManyBytes { .. }
            | ContentError::Forbidden { .. }
            | ContentError::TooManyMarks { .. }
            | ContentError::NotNormal { .. }
            | ContentError::NotAnId
            | ContentError::NotText { .. } => "invalid",
        }
    }
}

/// Names a character by code point: the reader may not be able to see it.
fn describe(character: char) -> String {
    format!("the character U+{:04X}", u32::from(character))
}

/// A phrase in the form it is stored and compared in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NormalizedWord {
    pub word: String,
    /// Characters in `word`.
    pub length: usize,
}

impl NormalizedWord {
    /// Normalises without judging: what the checker shows while someone types.
    pub fn new(input: &str) -> Self {
        let word = normalize_word(input);
        let length = grapheme_count(&word);
        Self { word, length }
    }

    /// The same word, refused unless it follows every rule.
    pub fn validated(input: &str) -> Result<Self, ContentError> {
        too_big(input, "a phrase", MAX_WORD_BYTES)?;
        let normalized = Self::new(input);
        check(&normalized.word, "a phrase", MAX_GRAPHEMES, MAX_WORD_BYTES)?;
        Ok(normalized)
    }
}

/// An author's name as stored: NFC, spaces folded, refused unless it follows every rule.
pub fn validated_name(input: &str) -> Result<String, ContentError> {
    too_big(input, "a name", MAX_NAME_BYTES)?;
    let name = fold_spaces(&input.nfc().collect::<String>());
    check(&name, "a name", MAX_NAME_GRAPHEMES, MAX_NAME_BYTES)?;
    Ok(name)
}

/// How much text as given is looked at: far past what any phrase or name folds down to,
/// short of what would take seconds to normalise (an import's 50 MB "word" took 32).
const MAX_INPUT_BYTES: usize = 64 * 1024;

/// Refuses text as given that is too big to be worth normalising.
fn too_big(input: &str, what: &'static str, max: usize) -> Result<(), ContentError> {
    if input.len() > MAX_INPUT_BYTES {
        return Err(ContentError::TooManyBytes {
            what,
            max,
            bytes: input.len(),
        });
    }
    Ok(())
}

/// NFC, spaces folded, upper-cased, NFC again (upper-casing can decompose).
pub fn normalize_word(input: &str) -> String {
    let folded = fold_spaces(&input.nfc().collect::<String>());
    folded.to_uppercase().nfc().collect()
}

/// What `word` reads as: its confusable skeleton (Unicode TS #39), where `0` and `O`,
/// Cyrillic `І` and Latin `I`, `1` and `l` become one, and invisible joiners and
/// variation selectors go. Two phrases with one skeleton read the same to a person.
pub fn skeleton(word: &str) -> String {
    let spelled = spelled_whole(word);
    let word = spelled.as_deref().unwrap_or(word);
    // The capital sharp s is German's other spelling of SS, which the small one
    // upper-cases to: TS #39 reads it as itself.
    let sharp = word
        .contains(CAPITAL_SHARP_S)
        .then(|| word.replace(CAPITAL_SHARP_S, "SS"));
    let word = sharp.as_deref().unwrap_or(word);
    // Tag characters spell which flag a black flag is: dropped, as TS #39 drops what is
    // invisible, England, Wales and a plain black flag would all read as Scotland.
    let mut read = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(start) = rest.find(is_tag) {
        read.extend(unicode_security::skeleton(&rest[..start]));
        let end = rest[start..]
            .find(|c| !is_tag(c))
            .map_or(rest.len(), |length| start + length);
        read.push_str(&rest[start..end]);
        rest = &rest[end..];
    }
    read.extend(unicode_security::skeleton(rest));
    read
}

/// Spellings with joiners that show as one character of their own, which TS #39's data
/// does not link: Unicode names them as the same letter (khanda ta; the eyelash ra;
/// Malayalam's chillus), and emoji fonts draw the couples and the family alike.
const SPELLED_WHOLE: [(&str, &str); 16] = [
    ("\u{09A4}\u{09CD}\u{200D}", "\u{09CE}"),
    ("\u{0930}\u{094D}\u{200D}", "\u{0931}\u{094D}"),
    ("\u{0D23}\u{0D4D}\u{200D}", "\u{0D7A}"),
    ("\u{0D28}\u{0D4D}\u{200D}", "\u{0D7B}"),
    ("\u{0D30}\u{0D4D}\u{200D}", "\u{0D7C}"),
    ("\u{0D32}\u{0D4D}\u{200D}", "\u{0D7D}"),
    ("\u{0D33}\u{0D4D}\u{200D}", "\u{0D7E}"),
    ("\u{0D15}\u{0D4D}\u{200D}", "\u{0D7F}"),
    ("\u{0D2E}\u{0D4D}\u{200D}", "\u{0D54}"),
    ("\u{0D2F}\u{0D4D}\u{200D}", "\u{0D55}"),
    ("\u{0D34}\u{0D4D}\u{200D}", "\u{0D56}"),
    (
        "\u{1F469}\u{200D}\u{2764}\u{FE0F}\u{200D}\u{1F48B}\u{200D}\u{1F468}",
        "\u{1F48F}",
    ),
    (
        "\u{1F469}\u{200D}\u{2764}\u{200D}\u{1F48B}\u{200D}\u{1F468}",
        "\u{1F48F}",
    ),
    (
        "\u{1F469}\u{200D}\u{2764}\u{FE0F}\u{200D}\u{1F468}",
        "\u{1F491}",
    ),
    ("\u{1F469}\u{200D}\u{2764}\u{200D}\u{1F468}", "\u{1F491}"),
    ("\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F466}", "\u{1F46A}"),
];

/// `word` with each spelling of [`SPELLED_WHOLE`] as its one character, if it has any.
fn spelled_whole(word: &str) -> Option<String> {
    if !word.contains('\u{200D}') {
        return None;
    }
    let mut whole = word.to_owned();
    for (spelled, one) in SPELLED_WHOLE {
        whole = whole.replace(spelled, one);
    }
    Some(whole)
}

/// How many characters a person sees in `text`.
pub fn grapheme_count(text: &str) -> usize {
    text.graphemes(true).count()
}

/// Runs of space separators (U+0020, no-break and ideographic spaces, ...) and braille
/// blanks become one U+0020, and none is left at either end: HTML shows them alike, so
/// they must compare alike (`DINO ROAR⠀` is `DINO ROAR`). Tabs and line breaks are
/// control characters and are refused, not folded.
fn fold_spaces(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    let mut pending_space = false;
    for character in text.chars() {
        if character.general_category() == GeneralCategory::SpaceSeparator
            || character == BRAILLE_BLANK
        {
            pending_space = !folded.is_empty();
            continue;
        }
        if pending_space {
            folded.push(' ');
            pending_space = false;
        }
        folded.push(character);
    }
    folded
}

/// The rules every stored text follows, on text already normalised.
fn check(
    text: &str,
    what: &'static str,
    max_graphemes: usize,
    max_bytes: usize,
) -> Result<(), ContentError> {
    let mut length = 0;
    for (start, cluster) in text.grapheme_indices(true) {
        length += 1;
        let after = text[start + cluster.len()..].chars().next();
        check_cluster(cluster, after, what)?;
    }
    // Marks alone show as much as spaces do.
    if !text.chars().any(visible) {
        return Err(ContentError::Empty { what });
    }
    if length > max_graphemes {
        return Err(ContentError::TooLong {
            what,
            max: max_graphemes,
            length,
        });
    }
    if text.len() > max_bytes {
        return Err(ContentError::TooManyBytes {
            what,
            max: max_bytes,
            bytes: text.len(),
        });
    }
    Ok(())
}

/// `after`: the character that follows the cluster in the text, if any.
fn check_cluster(
    cluster: &str,
    after: Option<char>,
    what: &'static str,
) -> Result<(), ContentError> {
    let last = cluster.chars().last();
    let mut marks = 0;
    let mut previous = None;
    for (index, character) in cluster.char_indices() {
        let category = character.general_category();
        marks = if is_mark(character) { marks + 1 } else { 0 };
        if marks > MAX_MARKS {
            return Err(ContentError::TooManyMarks { what });
        }
        let allowed = match category {
            GeneralCategory::Control
            | GeneralCategory::PrivateUse
            | GeneralCategory::Surrogate
            | GeneralCategory::Unassigned
            | GeneralCategory::LineSeparator
            | GeneralCategory::ParagraphSeparator => false,
            // Between two emoji (the first maybe in its emoji form), or as a script's
            // spelling has it: anywhere else a joiner shows as nothing.
            GeneralCategory::Format if character == ZERO_WIDTH_JOINER => {
                let next = cluster[index + character.len_utf8()..].chars().next();
                let emoji = |c: char| !c.is_ascii() && c.is_emoji_char();
                (previous.is_some_and(|c| c == '\u{FE0F}' || emoji(c))
                    && last != Some(ZERO_WIDTH_JOINER)
                    && next.is_some_and(emoji))
                    || shapes_letters(cluster, index, character, after)
            }
            GeneralCategory::Format if character == ZERO_WIDTH_NON_JOINER => {
                shapes_letters(cluster, index, character, after)
            }
            GeneralCategory::Format if is_tag(character) => tag_flag(cluster),
            GeneralCategory::Format => false,
            // Variation selectors choose how an emoji or a CJK character is shown, and
            // Mongolian's how a letter is; after a letter of our alphabets they change
            // nothing, and `DINO︀` would show as a taken `DINO`.
            _ if is_selector(character) => {
                previous.is_some_and(|base| takes_selector(base, character))
            }
            // Shown as nothing, yet letters or marks to the categories (Hangul fillers, the
            // combining grapheme joiner): a phrase of them reads as blank, or as another
            // phrase with a space.
            _ if default_ignorable(character) => false,
            // Blank in most fonts, though a symbol to the categories; and what a decoder
            // puts for bytes it could not read: text broken on its way in.
            _ if matches!(character, '\u{1D159}' | '\u{FFFD}') => false,
            _ => true,
        };
        if !allowed {
            return Err(ContentError::Forbidden { what, character });
        }
        previous = Some(character);
    }
    Ok(())
}

/// Whether the joiner at byte `index` of `cluster` (`after` follows the cluster) is one a
/// script's spelling needs, as IDNA's CONTEXTJ rules have it (RFC 5892, A.1 and A.2):
/// after a virama (Sinhala `ශ්‍රී`, a Devanagari half form); or a non-joiner between a
/// letter that would join the next and one that would join it, marks aside (Persian
/// `می‌خواهم`, where it keeps a word's letters apart). Anywhere else it changes nothing
/// a reader sees: after an alef, which joins nothing on its left, `ا‌ب` shows as `اب`.
fn shapes_letters(cluster: &str, index: usize, joiner: char, after: Option<char>) -> bool {
    use unicode_joining_type::{JoiningType::*, get_joining_type};
    let Some(before) = cluster[..index].chars().next_back() else {
        return false;
    };
    if unicode_normalization::char::canonical_combining_class(before) == VIRAMA {
        return true;
    }
    let left = cluster[..index].chars().rev().find(|&c| !is_mark(c));
    let right = cluster[index + joiner.len_utf8()..]
        .chars()
        .chain(after)
        .find(|&c| !is_mark(c));
    joiner == ZERO_WIDTH_NON_JOINER
        && left.is_some_and(|c| matches!(get_joining_type(c), LeftJoining | DualJoining))
        && right.is_some_and(|c| matches!(get_joining_type(c), RightJoining | DualJoining))
}

/// A combining mark that sits on the character before it (the page's `MARK_RE`).
fn is_mark(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark
    )
}

/// The canonical combining class of a virama (a killer of the vowel a consonant holds).
const VIRAMA: u8 = 9;

fn is_tag(c: char) -> bool {
    ('\u{E0020}'..='\u{E007F}').contains(&c)
}

/// Whether `cluster` is one of the flags spelled in tag characters that show as flags
/// (Unicode's recommended set: England, Scotland, Wales): a black flag, the subdivision
/// code in tag letters, the cancel tag. Any other tags show as a plain black flag, or as
/// nothing, with text hidden in them.
fn tag_flag(cluster: &str) -> bool {
    let Some(spec) = cluster
        .strip_prefix(BLACK_FLAG)
        .and_then(|rest| rest.strip_suffix('\u{E007F}'))
    else {
        return false;
    };
    // A tag is its letter 0xE0000 higher; anything else in the middle is no letter.
    let code = spec
        .chars()
        .map(|c| (c as u32).checked_sub(0xE0000).and_then(char::from_u32));
    ["gbeng", "gbsct", "gbwls"]
        .iter()
        .any(|flag| flag.chars().map(Some).eq(code.clone()))
}

fn is_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}' | '\u{180B}'..='\u{180D}' | '\u{180F}')
}

/// Whether `selector` after `base` can change how it shows: after a symbol, an emoji, a
/// CJK or Mongolian character, but not after a letter of the Latin, Greek or Cyrillic
/// scripts or a mark; of ASCII only a keycap's base (`1️⃣`) takes one, the emoji one.
fn takes_selector(base: char, selector: char) -> bool {
    if base.is_ascii() {
        return matches!(base, '0'..='9' | '#' | '*')
            && matches!(selector, '\u{FE0E}' | '\u{FE0F}');
    }
    !matches!(
        base.script(),
        Script::Latin | Script::Greek | Script::Cyrillic | Script::Inherited
    )
}

/// Whether a character shows as something: not a space, a mark or one shown as nothing.
fn visible(c: char) -> bool {
    !(c.is_whitespace()
        || default_ignorable(c)
        || matches!(
            c.general_category(),
            GeneralCategory::NonspacingMark
                | GeneralCategory::EnclosingMark
                | GeneralCategory::SpacingMark
        ))
}

/// Unicode's Default_Ignorable_Code_Point: characters shown as nothing.
pub fn default_ignorable(c: char) -> bool {
    matches!(c,
        '\u{AD}' | '\u{34F}' | '\u{61C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF0}'..='\u{FFF8}' | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// `text` with every character a terminal could act on (controls, bidi and the other
/// format characters, line separators) written as `\u{…}`, for printing stored text on
/// a terminal. The joiners and tag characters valid text holds (an emoji family, a
/// Sinhala conjunct, a flag) only join what is around them, and stay.
pub fn terminal_safe(text: &str) -> String {
    let mut safe = String::with_capacity(text.len());
    for character in text.chars() {
        push_terminal_safe(&mut safe, character);
    }
    safe
}

/// `text` in double quotes for a message, terminal-safe, its own quotes and backslashes
/// escaped: a name may hold `"`, and must not seem to end the message's quote.
pub fn quoted(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for character in text.chars() {
        if matches!(character, '"' | '\\') {
            quoted.push('\\');
        }
        push_terminal_safe(&mut quoted, character);
    }
    quoted.push('"');
    quoted
}

fn push_terminal_safe(out: &mut String, character: char) {
    match character.general_category() {
        GeneralCategory::Format
            if matches!(character, ZERO_WIDTH_JOINER | ZERO_WIDTH_NON_JOINER)
                || is_tag(character) =>
        {
            out.push(character)
        }
        GeneralCategory::Control
        | GeneralCategory::Format
        | GeneralCategory::LineSeparator
        | GeneralCategory::ParagraphSeparator => {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(character)));
        }
        _ => out.push(character),
    }
}

/// `text` for a message, quoted as [`quoted`] does, and cut after 40 characters with a
/// note of how long it was, so a hostile megabyte does not become a megabyte of log.
pub fn preview(text: &str) -> String {
    const SHOWN: usize = 40;
    let mut clusters = text.graphemes(true);
    let shown: String = clusters.by_ref().take(SHOWN).collect();
    let rest = clusters.count();
    if rest == 0 {
        quoted(&shown)
    } else {
        format!("{}… ({} characters)", quoted(&shown), SHOWN + rest)
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
        #[serde(default)]
        error: Option<String>,
        note: String,
    }

    #[test]
    fn the_joining_letters_the_page_knows_are_the_hosts() {
        use unicode_joining_type::{JoiningType::*, get_joining_type};
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/joining.json");
        let listed: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let ranges = |joins: &dyn Fn(char) -> bool| {
            let mut out: Vec<(u32, u32)> = Vec::new();
            for c in (0..=0x10FFFF_u32)
                .filter_map(char::from_u32)
                .filter(|&c| joins(c))
            {
                match out.last_mut() {
                    Some(range) if range.1 + 1 == c as u32 => range.1 = c as u32,
                    _ => out.push((c as u32, c as u32)),
                }
            }
            out.iter()
                .map(|(from, to)| format!("{from:04X}..{to:04X}"))
                .collect::<Vec<_>>()
        };
        let left = ranges(&|c| matches!(get_joining_type(c), LeftJoining | DualJoining));
        let right = ranges(&|c| matches!(get_joining_type(c), RightJoining | DualJoining));
        assert_eq!(
            listed["left"],
            serde_json::json!(left),
            "tests/vectors/joining.json"
        );
        assert_eq!(
            listed["right"],
            serde_json::json!(right),
            "tests/vectors/joining.json"
        );
    }

    #[test]
    fn the_viramas_the_page_knows_are_the_hosts() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/viramas.json");
        let listed: Vec<String> =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let ours: Vec<String> = (0..=0x10FFFF_u32)
            .filter_map(char::from_u32)
            .filter(|&c| unicode_normalization::char::canonical_combining_class(c) == VIRAMA)
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        assert_eq!(
            listed, ours,
            "tests/vectors/viramas.json and ui/src/text.ts"
        );
    }

    #[test]
    fn every_table_the_rules_read_is_of_one_unicode_version() {
        let segments = unicode_segmentation::UNICODE_VERSION;
        let (major, minor, update) = unicode_normalization::UNICODE_VERSION;
        let normalises = (u64::from(major), u64::from(minor), u64::from(update));
        assert_eq!(unicode_properties::UNICODE_VERSION, segments);
        assert_eq!(unicode_script::UNICODE_VERSION, segments);
        assert_eq!(normalises, segments);
        // Characters of the next version are unassigned until then, as they are to a
        // page of this one: a mark (U+1ADE) and a symbol (U+20C2) of Unicode 18.
        for newer in ["A\u{1ADE}", "PAY \u{20C2}"] {
            assert!(
                matches!(
                    NormalizedWord::validated(newer),
                    Err(ContentError::Forbidden { .. })
                ),
                "{newer:?}"
            );
        }
    }

    #[test]
    fn a_message_quotes_text_as_written_with_what_a_terminal_acts_on_escaped() {
        let error = ContentError::NotNormal {
            what: "a phrase",
            normal: "শুভ বিদায়\u{202e}".into(),
        };
        assert_eq!(
            error.to_string(),
            "a phrase is not stored in its normal form (\"শুভ বিদায়\\u{202e}\")"
        );
    }

    #[test]
    fn agrees_with_the_browser_on_every_shared_vector() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/text.json");
        let text = std::fs::read_to_string(path).expect("the shared vectors are in the repo");
        let vectors: Vec<Vector> = serde_json::from_str(&text).expect("vectors are valid JSON");
        assert!(vectors.len() >= 30, "the vector file lost its cases");
        for v in vectors {
            let normalized = NormalizedWord::new(&v.input);
            assert_eq!(normalized.word, v.upper, "upper-casing: {}", v.note);
            assert_eq!(normalized.length, v.graphemes, "grapheme count: {}", v.note);
            let error = NormalizedWord::validated(&v.input)
                .err()
                .map(|e| e.code().to_owned());
            assert_eq!(error, v.error, "verdict: {}", v.note);
        }
    }

    #[test]
    fn validation_counts_graphemes_not_bytes() {
        let family = "👨‍👩‍👧";
        let twenty = family.repeat(20);
        assert_eq!(NormalizedWord::validated(&twenty).map(|w| w.length), Ok(20));
        let twenty_one = family.repeat(21);
        assert!(matches!(
            NormalizedWord::validated(&twenty_one),
            Err(ContentError::TooLong { length: 21, .. })
        ));
        assert!(matches!(
            NormalizedWord::validated(""),
            Err(ContentError::Empty { .. })
        ));
    }

    #[test]
    fn hostile_phrases_are_refused() {
        let refused = |input: &str| NormalizedWord::validated(input).err();
        for invisible in ["HEL\u{200B}LO", "HEL\u{200D}LO", "\u{200D}", "A\u{202E}B"] {
            assert!(
                matches!(refused(invisible), Some(ContentError::Forbidden { .. })),
                "{invisible:?}"
            );
        }
        for control in ["A\0B", "A\tB", "LINE\nBREAK", "\u{1b}[31mRED", "A\u{2028}B"] {
            assert!(
                matches!(refused(control), Some(ContentError::Forbidden { .. })),
                "{control:?}"
            );
        }
        assert!(matches!(
            refused("\u{E000}"),
            Some(ContentError::Forbidden { .. })
        ));
        assert!(matches!(
            refused("\u{0378}"),
            Some(ContentError::Forbidden { .. })
        ));
        for blank_looking in [
            "HELLO\u{3164}WORLD",
            "\u{115F}",
            "\u{FFA0}",
            "A\u{34F}B",
            "\u{17B4}",
        ] {
            assert!(
                matches!(refused(blank_looking), Some(ContentError::Forbidden { .. })),
                "{blank_looking:?}"
            );
        }
        for blank in [
            "   ",
            "\u{3000}\u{00A0}",
            "",
            "\u{2800}\u{2800}",
            "\u{301}",
            "\u{20DD} \u{301}",
        ] {
            assert!(
                matches!(refused(blank), Some(ContentError::Empty { .. })),
                "{blank:?}"
            );
        }
        let zalgo = format!("A{}", "\u{0301}".repeat(200));
        assert!(matches!(
            refused(&zalgo),
            Some(ContentError::TooManyMarks { .. })
        ));
        // Text too big to be a phrase is refused before it is normalised, however long.
        let huge = format!("A{}B", " ".repeat(50 << 20));
        assert!(matches!(
            refused(&huge),
            Some(ContentError::TooManyBytes { bytes, .. }) if bytes == huge.len()
        ));
        assert!(validated_name(&huge).is_err());
        // Joiners chain emoji without end into one character: the byte bound stops it.
        let heavy = vec!["🦖"; 100].join("\u{200D}");
        assert_eq!(grapheme_count(&heavy), 1);
        assert!(matches!(
            refused(&heavy),
            Some(ContentError::TooManyBytes { .. })
        ));
    }

    #[test]
    fn emoji_sequences_and_scripts_are_kept() {
        for fine in [
            "👨‍👩‍👧‍👦",
            "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}",
            "1\u{FE0F}\u{20E3}",
            "TIẾNG VIỆT",
            "恐龍滅絶",
            "שָׁלוֹם",
        ] {
            assert!(NormalizedWord::validated(fine).is_ok(), "{fine:?}");
        }
    }

    #[test]
    fn spaces_fold_and_compare_alike() {
        let a = NormalizedWord::validated("  see\u{00A0}\u{3000} you ").unwrap();
        assert_eq!(a.word, "SEE YOU");
        assert_eq!(a.length, 7);
        assert_eq!(
            NormalizedWord::new("e\u{0301}").word,
            NormalizedWord::new("\u{00E9}").word
        );
    }

    #[test]
    fn names_are_bounded_and_visible() {
        assert_eq!(validated_name("  Rex  ").as_deref(), Ok("Rex"));
        assert!(validated_name(&"x".repeat(41)).is_err());
        assert!(validated_name(&"x".repeat(1 << 20)).is_err());
        assert!(validated_name("\u{200B}").is_err());
        assert!(validated_name("   ").is_err());
        assert_eq!(validated_name(&"é".repeat(40)).map(|n| n.len()), Ok(80));
    }

    #[test]
    fn a_preview_is_short_and_safe() {
        assert_eq!(preview("OK"), "\"OK\"");
        let long = preview(&"\u{1b}".repeat(10_000));
        assert!(long.ends_with("… (10000 characters)") && !long.contains('\u{1b}'));
    }

    #[test]
    fn terminal_safe_text_has_no_escapes_left() {
        assert_eq!(
            terminal_safe("\u{1b}[2J\u{202E}ok"),
            "\\u{1b}[2J\\u{202e}ok"
        );
        // What valid text joins stays joined: a family, a Sinhala conjunct, Wales's flag.
        for joined in [
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}",
            "\u{0D9A}\u{0DCA}\u{200D}\u{0DBB}",
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}",
        ] {
            assert_eq!(terminal_safe(joined), joined);
        }
    }

    #[test]
    fn a_quoted_name_cannot_seem_to_end_its_quote() {
        assert_eq!(
            quoted(r#"Rex"; removed "DINO ROAR"#),
            r#""Rex\"; removed \"DINO ROAR""#
        );
        assert_eq!(quoted(r"C:\"), r#""C:\\""#);
        assert_eq!(quoted("\u{202E}"), r#""\u{202e}""#);
    }
}
