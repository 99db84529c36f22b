//! What the card's lettering says and how it is sized: the site's name, the phrase in
//! one to three lines, and "By {name}". It is set and drawn from the fonts' outlines
//! (`typeset`, `paint`): no text becomes markup anywhere on the way.

use unicode_segmentation::UnicodeSegmentation as _;

use super::typeset::Direction;

/// The card's size in pixels.
pub const WIDTH: u32 = 1200;
pub const HEIGHT: u32 = 630;

/// The size the phrase is set at before it is scaled to fit its box.
pub const PHRASE_REFERENCE_SIZE: f32 = 100.0;
/// Baselines of a phrase's lines, in ems.
pub const LINE_HEIGHT: f32 = 1.12;
/// The most lines a phrase is broken into (at spaces only).
pub const MAX_LINES: usize = 3;

/// Colours of the site (`ui/src/art/palette.ts`), as RGB.
pub const BONE: [u8; 3] = [0xf4, 0xec, 0xd6];
pub const GREEN: [u8; 3] = [0x22, 0xc5, 0x5e];

/// Ids of the card's texts.
pub const SITE_ID: &str = "site";
pub const BYLINE_ID: &str = "by";

/// The id of the phrase set in `lines` lines.
pub fn phrase_id(lines: usize) -> String {
    format!("phrase-{lines}")
}

/// The site name's size and the byline's, in pixels, and the words before the name.
pub const SITE_SIZE: f32 = 44.0;
pub const BYLINE_SIZE: f32 = 34.0;
pub const BY: &str = "By ";

/// What the byline says.
pub fn byline(name: &str) -> String {
    format!("{BY}{name}")
}

/// One text of the card, before it is set.
#[derive(Debug, Clone, PartialEq)]
pub struct Text {
    pub id: String,
    /// In pixels.
    pub size: f32,
    pub color: [u8; 3],
    pub lines: Vec<String>,
    /// The direction of every line, as the page's `<bdi>` gives the whole text.
    pub direction: Direction,
    /// Where a line's isolated part starts (the byline's name, a `<bdi>` on the page).
    pub isolate: Option<usize>,
}

/// The card's texts: the site's name, the byline, and the phrase once per way of
/// breaking it (one line, two, three), of which the painter draws the one that comes
/// out largest. Their directions are the phrase page's: the phrase and the name each
/// in a `<bdi>` there, so each reads in the direction of its first letter.
pub fn texts(site: &str, word: &str, name: &str) -> Vec<Text> {
    let mut texts = vec![
        Text {
            id: SITE_ID.to_owned(),
            size: SITE_SIZE,
            color: BONE,
            lines: vec![site.to_owned()],
            direction: Direction::of(site),
            isolate: None,
        },
        Text {
            id: BYLINE_ID.to_owned(),
            size: BYLINE_SIZE,
            color: GREEN,
            lines: vec![byline(name)],
            direction: Direction::Ltr,
            isolate: Some(BY.len()),
        },
    ];
    let direction = Direction::of(word);
    for lines in line_breaks(word) {
        texts.push(Text {
            id: phrase_id(lines.len()),
            size: PHRASE_REFERENCE_SIZE,
            color: BONE,
            lines,
            direction,
            isolate: None,
        });
    }
    texts
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
    fn phrases_break_evenly_at_spaces() {
        assert_eq!(line_breaks("GOODBYE"), vec![vec!["GOODBYE".to_owned()]]);
        let ways = line_breaks("THE METEOR IS COMING");
        assert_eq!(ways[1], vec!["THE METEOR", "IS COMING"]);
        assert_eq!(ways[2], vec!["THE", "METEOR", "IS COMING"]);
        assert_eq!(line_breaks("A B").len(), 2);
    }

    #[test]
    fn the_card_has_its_site_byline_and_every_way_of_breaking_the_phrase() {
        let texts = texts("Dinos", "HI THERE YOU", "Ann & <b>");
        let ids: Vec<&str> = texts.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["site", "by", "phrase-1", "phrase-2", "phrase-3"]);
        assert_eq!(texts[1].lines, ["By Ann & <b>"]);
        assert_eq!(texts[4].lines, ["HI", "THERE", "YOU"]);
    }
}
