//! The card's lettering as SVG: the site's name, the phrase in one to three lines, and
//! "By {name}". Every character the public wrote stays text: it is escaped for XML and
//! set with `xml:space="preserve"`, so it can neither become markup nor lose a space.

use std::fmt::Write as _;

use unicode_segmentation::UnicodeSegmentation as _;

/// The card's size in pixels.
pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 630;

/// The display face; a character it lacks falls back through the bundled faces in
/// their order (`paint::fallback`).
pub const FONT_FAMILY: &str = "Archivo Black";

/// The size the phrase is laid out at before it is scaled to fit its box.
pub const PHRASE_REFERENCE_SIZE: f32 = 100.0;
/// Baselines of a phrase's lines, in ems.
pub const LINE_HEIGHT: f32 = 1.12;
/// The most lines a phrase is broken into (at spaces only).
pub const MAX_LINES: usize = 3;

/// Colours of the site (`ui/src/art/palette.ts`).
pub const BONE: &str = "#f4ecd6";
pub const GREEN: &str = "#22c55e";

/// Ids of the text elements in the lettering's SVG.
pub const SITE_ID: &str = "site";
pub const BYLINE_ID: &str = "by";

/// The id of the phrase set in `lines` lines.
pub fn phrase_id(lines: usize) -> String {
    format!("phrase-{lines}")
}

/// The byline's size, in pixels, and the words before the name.
pub const BYLINE_SIZE: f32 = 34.0;
pub const BY: &str = "By ";

/// What the byline says.
pub fn byline(name: &str) -> String {
    format!("{BY}{name}")
}

/// The lettering's SVG: each text at the origin (its first baseline on y = 0), to be
/// measured and placed by the painter. The phrase is there once per way of breaking
/// it (one line, two, three), and the painter draws the one that comes out largest.
/// `name_x` is where the name starts after [`BY`] (its advance in the display face).
pub fn lettering(site: &str, word: &str, name: &str, name_x: f32) -> String {
    let mut svg = String::with_capacity(1024);
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}">"#
    );
    text_element(&mut svg, SITE_ID, 44.0, BONE, &[site]);
    byline_element(&mut svg, name, name_x);
    for lines in line_breaks(word) {
        let id = phrase_id(lines.len());
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        text_element(&mut svg, &id, PHRASE_REFERENCE_SIZE, BONE, &lines);
    }
    svg.push_str("</svg>");
    svg
}

fn text_element(svg: &mut String, id: &str, size: f32, fill: &str, lines: &[&str]) {
    let _ = write!(
        svg,
        r#"<text id="{id}" font-family="{FONT_FAMILY}" font-size="{size}" fill="{fill}" xml:space="preserve">"#
    );
    for (index, line) in lines.iter().enumerate() {
        let y = index as f32 * size * LINE_HEIGHT;
        let _ = write!(svg, r#"<tspan x="0" y="{y}">"#);
        escape_into(svg, line);
        svg.push_str("</tspan>");
    }
    svg.push_str("</text>");
}

/// [`BY`] and the name as two chunks, so each is shaped alone and a name in another
/// script is shaped in its own face: usvg's fallback shapes a whole chunk again in the
/// face it falls back to and gives up when that makes another number of glyphs, as
/// Arabic's dotted letters do, leaving boxes.
fn byline_element(svg: &mut String, name: &str, name_x: f32) {
    let _ = write!(
        svg,
        r#"<text id="{BYLINE_ID}" font-family="{FONT_FAMILY}" font-size="{BYLINE_SIZE}" fill="{GREEN}" xml:space="preserve"><tspan x="0" y="0">{BY}</tspan><tspan x="{name_x}" y="0">"#
    );
    escape_into(svg, name);
    svg.push_str("</tspan></text>");
}

/// `text` as XML character data, good in an attribute too. Characters XML 1.0 does
/// not allow (controls, U+FFFE, U+FFFF) become U+FFFD: the content rules refuse them
/// already, and a card must never be an SVG that fails to parse.
pub fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
}

/// What a text reads as once parsed: [`escape_into`]'s replacements, undone.
pub fn as_drawn(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect()
}

/// The ways of breaking `word` into 1 to [`MAX_LINES`] lines at its spaces, each the
/// most even (by characters) for its number of lines.
pub fn line_breaks(word: &str) -> Vec<Vec<String>> {
    let words: Vec<&str> = word.split(' ').filter(|w| !w.is_empty()).collect();
    let mut ways = vec![vec![word.to_owned()]];
    let lengths: Vec<usize> = words.iter().map(|w| w.graphemes(true).count()).collect();
    // Characters of words[from..to] set on one line with their spaces.
    let line = |from: usize, to: usize| lengths[from..to].iter().sum::<usize>() + (to - from - 1);
    let join = |from: usize, to: usize| words[from..to].join(" ");
    if words.len() >= 2 {
        let best = (1..words.len())
            .min_by_key(|&cut| line(0, cut).max(line(cut, words.len())))
            .unwrap_or(1);
        ways.push(vec![join(0, best), join(best, words.len())]);
    }
    if words.len() >= 3 && MAX_LINES >= 3 {
        let n = words.len();
        let mut best = (1, 2, usize::MAX);
        for first in 1..n - 1 {
            for second in first + 1..n {
                let longest = line(0, first).max(line(first, second)).max(line(second, n));
                if longest < best.2 {
                    best = (first, second, longest);
                }
            }
        }
        let (first, second, _) = best;
        ways.push(vec![join(0, first), join(first, second), join(second, n)]);
    }
    ways
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_stay_text() {
        let mut out = String::new();
        escape_into(&mut out, r#"<script>&"']]>"#);
        assert_eq!(out, "&lt;script&gt;&amp;&quot;&apos;]]&gt;");
    }

    #[test]
    fn characters_xml_forbids_are_replaced() {
        let mut out = String::new();
        escape_into(&mut out, "A\u{0}B\u{1b}C\u{FFFF}\tD");
        assert_eq!(out, "A\u{FFFD}B\u{FFFD}C\u{FFFD}\u{FFFD}D");
        assert_eq!(as_drawn("A\u{0}B"), "A\u{FFFD}B");
    }

    #[test]
    fn phrases_break_evenly_at_spaces() {
        assert_eq!(line_breaks("GOODBYE"), vec![vec!["GOODBYE".to_owned()]]);
        let ways = line_breaks("THE METEOR IS COMING");
        assert_eq!(ways[1], vec!["THE METEOR", "IS COMING"]);
        assert_eq!(ways[2], vec!["THE", "METEOR", "IS COMING"]);
        assert_eq!(line_breaks("A B").len(), 2);
    }

    #[test]
    fn the_lettering_is_one_svg_with_every_way_of_breaking_the_phrase() {
        let svg = lettering("Dinos", "HI THERE YOU", "Ann & <b>", 50.0);
        assert!(svg.contains(r#"id="phrase-1""#));
        assert!(svg.contains(r#"id="phrase-3""#));
        assert!(svg.contains(
            r#"<tspan x="0" y="0">By </tspan><tspan x="50" y="0">Ann &amp; &lt;b&gt;</tspan>"#
        ));
        assert!(!svg.contains("<b>"));
    }
}
