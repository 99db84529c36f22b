//! Each phrase's card image: its size, lettering inside the margins whatever the phrase,
//! hostile text drawn as the literal characters, other scripts in the fallback faces,
//! the ETag, the cache and unknown ids.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use lastwords::render::assets::Ui;
use lastwords::render::card::layout::{self, HEIGHT, WIDTH};
use lastwords::render::card::paint::{self, Lettering, Painter, SetText};
use lastwords::render::card::typeset::Glyph;
use lastwords::render::card::{self, Cards};
use lastwords::site;

use crate::common::{TestHost, bytes, phrase};

const WIDEST: &str = "WWWWWWWWWWWWWWWWWWWW";
const LONGEST: &str = "THE METEOR IS COMING";
const EMOJI: &str = "🦖🦕☄️🔥🌍🦖🦕☄️🔥🌍🦖🦕☄️🔥🌍🦖🦕☄️🔥🌍";
const NAME_40: &str = "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW";

fn painter() -> &'static Painter {
    let ui = Ui::embedded().expect("the UI is built (run scripts/build or scripts/test)");
    card::painter(&ui.card)
}

/// The decoded PNG: width, height and RGB pixels.
fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    // The backdrop covers the card: opaque, so written without an alpha channel.
    assert_eq!(info.color_type, png::ColorType::Rgb);
    pixels.truncate(info.buffer_size());
    (info.width, info.height, pixels)
}

/// The columns and rows where the lettering alone (on a transparent card) has ink.
fn ink_extent(lettering: &Lettering) -> Option<(u32, u32, u32, u32)> {
    let pixmap = painter()
        .lettering_pixels(lettering)
        .expect("the lettering draws");
    let (width, height) = (pixmap.width(), pixmap.height());
    let mut extent: Option<(u32, u32, u32, u32)> = None;
    for y in 0..height {
        for x in 0..width {
            if pixmap.pixel(x, y).is_some_and(|p| p.alpha() > 0) {
                let e = extent.get_or_insert((x, y, x, y));
                *e = (e.0.min(x), e.1.min(y), e.2.max(x), e.3.max(y));
            }
        }
    }
    extent
}

/// The set text `id`.
fn set<'a>(lettering: &'a Lettering, id: &str) -> &'a SetText {
    lettering.text(id).unwrap_or_else(|| panic!("no text {id}"))
}

/// What the glyphs of `id` show, line after line, each character once and in the
/// order it was written (a glyph's cluster is the characters it shows).
fn text_of(lettering: &Lettering, id: &str) -> String {
    let set = set(lettering, id);
    let mut out = String::new();
    for (line, glyphs) in set.text.lines.iter().zip(&set.glyphs) {
        let mut clusters: Vec<std::ops::Range<usize>> =
            glyphs.iter().map(|g| g.cluster.clone()).collect();
        clusters.sort_by_key(|c| c.start);
        clusters.dedup();
        let mut end = 0;
        for cluster in clusters {
            assert!(cluster.start >= end, "{id}: clusters overlap in {line:?}");
            out.push_str(&line[cluster.clone()]);
            end = cluster.end;
        }
    }
    out
}

/// The families of the faces each glyph of `id` was drawn with, and whether any glyph
/// is a missing-character box.
fn faces_of(lettering: &Lettering, id: &str) -> (Vec<String>, bool) {
    let mut families = Vec::new();
    let mut missing = false;
    for glyph in set(lettering, id).glyphs.iter().flatten() {
        missing |= glyph.id == 0;
        let family = painter().faces().family(glyph.face).to_owned();
        if !families.contains(&family) {
            families.push(family);
        }
    }
    (families, missing)
}

#[test]
fn the_widest_and_longest_phrases_fit_inside_the_margins() {
    for (word, name) in [
        (WIDEST, NAME_40),
        (LONGEST, "Tyrannosaurus rex the Magnificent Jr. II"),
        (EMOJI, NAME_40),
        ("RAWR", "A"),
    ] {
        let lettering = painter().lettering(site::NAME, word, name);
        let (left, top, right, bottom) = ink_extent(&lettering).expect("the lettering has ink");
        // Left of the margin, right of the lettering's column (the Dino is there), above
        // the header and below the byline, no pixel of lettering.
        assert!(
            left as f32 >= paint::LEFT - 1.0,
            "{word}: ink at x = {left}"
        );
        assert!(
            right as f32 <= paint::RIGHT + 1.0,
            "{word}: ink at x = {right}"
        );
        assert!(
            top >= 40 && bottom <= 570,
            "{word}: ink from y {top} to {bottom}"
        );
        for (id, [l, t, r, b]) in lettering.ink_boxes() {
            assert!(
                l >= paint::LEFT - 0.5 && r <= paint::RIGHT + 0.5,
                "{word}: {id} from x {l} to {r}"
            );
            if id.starts_with("phrase") {
                assert!(
                    t >= paint::PHRASE_TOP - 0.5 && b <= paint::PHRASE_BOTTOM + 0.5,
                    "{word}: {id} from y {t} to {b}"
                );
                // Fitting never shrinks a phrase to nothing: 20 W still span the column.
                assert!(
                    r - l > 300.0 || word == "RAWR",
                    "{word}: {id} is {} wide",
                    r - l
                );
            }
        }
        let png = painter()
            .paint(site::NAME, word, name, &painter().dinos[0])
            .expect("the card draws");
        let (width, height, pixels) = decode(&png);
        assert_eq!((width, height), (WIDTH, HEIGHT));
        assert_eq!((width, height), (1200, 630));
        assert_eq!(pixels.len(), 1200 * 630 * 3);
    }
}

#[test]
fn hostile_text_is_drawn_as_its_literal_characters() {
    let cases = [
        (
            "<SCRIPT>ALERT(1)</SCRIPT>",
            "</text><script>alert(1)</script>",
        ),
        ("]]>&AMP;\"'", "Tom & \"Jerry\" <O'Brien>"),
        ("<!-- & -->", "<![CDATA[x]]>"),
        ("שלום ABC 123", "\u{202E}evil\u{202C} \u{200F}name"),
        ("NUL\u{0}BEL\u{7}", "\u{FFFF}\u{1b}[31m"),
        (LONGEST, NAME_40),
    ];
    for (word, name) in cases {
        let lettering = painter().lettering(site::NAME, word, name);
        for lines in 1..=layout::line_breaks(word).len() {
            let id = layout::phrase_id(lines);
            let drawn = text_of(&lettering, &id);
            if lines == 1 {
                assert_eq!(drawn, word, "{word:?}");
            } else {
                // Broken at spaces: the same characters, less the spaces between lines.
                assert_eq!(drawn.replace(' ', ""), word.replace(' ', ""));
            }
        }
        assert_eq!(
            text_of(&lettering, layout::BYLINE_ID),
            layout::byline(name),
            "{name:?}"
        );
        assert_eq!(text_of(&lettering, layout::SITE_ID), site::NAME);
        // Nothing but the three texts (and the phrase's other ways of breaking).
        let ids: Vec<String> = lettering
            .texts
            .iter()
            .map(|set| set.text.id.clone())
            .collect();
        assert!(
            ids.iter()
                .all(|id| id == "site" || id == "by" || id.starts_with("phrase-")),
            "{ids:?}"
        );
        let png = painter()
            .paint(site::NAME, word, name, &painter().dinos[1])
            .expect("the card draws");
        assert_eq!(decode(&png).0, 1200);
    }
}

#[test]
fn other_scripts_and_emoji_are_drawn_with_the_bundled_fallback_faces() {
    for (word, face) in [
        ("ПРОЩАЙ МИР", "Noto Sans"),
        ("ΑΝΤΊΟ", "Noto Sans"),
        ("再见世界", "Noto Sans SC"),
        ("さようなら", "Noto Sans SC"),
        ("وداعا", "Noto Sans Arabic"),
        ("안녕 세상", "Noto Sans KR"),
        ("שלום", "Noto Sans Hebrew"),
        ("ลาก่อน", "Noto Sans Thai"),
        ("नमस्ते", "Noto Sans"),
        ("বিদায়", "Noto Sans Bengali"),
        ("வணக்கம்", "Noto Sans Tamil"),
        ("నమస్కారం", "Noto Sans Telugu"),
        ("નમસ્તે", "Noto Sans Gujarati"),
        ("ਸਤ ਸ੍ਰੀ ਅਕਾਲ", "Noto Sans Gurmukhi"),
        ("ನಮಸ್ಕಾರ", "Noto Sans Kannada"),
        ("നമസ്കാരം", "Noto Sans Malayalam"),
        ("ନମସ୍କାର", "Noto Sans Oriya"),
        ("ආයුබෝවන්", "Noto Sans Sinhala"),
        ("ნახვამდის", "Noto Sans Georgian"),
        ("ՑՏԵՍՈՒԹՅՈՒՆ", "Noto Sans Armenian"),
        ("ደህና ሁን", "Noto Sans Ethiopic"),
        ("លាហើយ", "Noto Sans Khmer"),
        ("ລາກ່ອນ", "Noto Sans Lao"),
        ("မင်္ဂလာပါ", "Noto Sans Myanmar"),
        ("🦖☄️", "Noto Emoji"),
    ] {
        let lettering = painter().lettering(site::NAME, word, "Ann");
        let (families, missing) = faces_of(&lettering, &layout::phrase_id(1));
        assert!(!missing, "{word}: a glyph is missing ({families:?})");
        // (The slices of Noto Sans SC name their family "Noto Sans SC Thin", after the
        // variable font they were cut from; their glyphs are the black weight.)
        assert!(
            families.iter().any(|f| f.starts_with(face)),
            "{word}: drawn with {families:?}"
        );
        // And there is ink where the phrase is.
        let pixmap = painter().lettering_pixels(&lettering).expect("draws");
        let inked = (paint::PHRASE_TOP as u32..paint::PHRASE_BOTTOM as u32)
            .flat_map(|y| (paint::LEFT as u32..paint::RIGHT as u32).map(move |x| (x, y)))
            .filter(|&(x, y)| pixmap.pixel(x, y).is_some_and(|p| p.alpha() > 128))
            .count();
        assert!(inked > 2000, "{word}: {inked} pixels of ink");
    }
    // Latin stays in the display face.
    let lettering = painter().lettering(site::NAME, "RAWR", "Ann");
    assert_eq!(
        faces_of(&lettering, &layout::phrase_id(1)).0,
        ["Archivo Black"]
    );
}

#[test]
fn a_name_in_another_script_follows_by_in_its_own_face_without_a_missing_glyph() {
    // Arabic with dotted letters is shaped into more glyphs than it has characters, which
    // usvg's fallback cannot merge with "By " set in the display face: all were boxes.
    for name in [
        "مرحبا",
        "فاطمة",
        "كتاب",
        "שלום",
        "再见",
        "ПРИВЕТ",
        "🦖",
        "Ann",
    ] {
        let lettering = painter().lettering(site::NAME, "RAWR", name);
        let (families, missing) = faces_of(&lettering, layout::BYLINE_ID);
        assert!(!missing, "By {name}: a glyph is missing ({families:?})");
        assert!(
            families.first().is_some_and(|f| f == "Archivo Black"),
            "By {name}: {families:?}"
        );
        assert_eq!(text_of(&lettering, layout::BYLINE_ID), layout::byline(name));
    }
}

/// Each glyph of `id`: the family of its face, where it starts, and what it shows.
fn glyphs_of(lettering: &Lettering, id: &str) -> Vec<(String, f32, String)> {
    let set = set(lettering, id);
    set.text
        .lines
        .iter()
        .zip(&set.glyphs)
        .flat_map(|(line, glyphs)| {
            glyphs.iter().map(move |g| {
                (
                    painter().faces().family(g.face).to_owned(),
                    g.x,
                    line[g.cluster.clone()].to_owned(),
                )
            })
        })
        .collect()
}

#[test]
fn a_line_mixing_scripts_is_drawn_in_each_script_s_face_in_reading_order() {
    // Each case: the text, then its faces from left to right as a browser sets the line.
    let cases: [(&str, &[&str]); 9] = [
        ("HI مرحبا", &["Archivo Black", "Noto Sans Arabic"]),
        // Right to left: the first word read is the rightmost.
        ("שלום مرحبا", &["Noto Sans Arabic", "Noto Sans Hebrew"]),
        ("مرحبا 2026", &["Archivo Black", "Noto Sans Arabic"]),
        (
            "RAWR 再见 🦖",
            &["Archivo Black", "Noto Sans SC", "Noto Emoji"],
        ),
        ("ПРИВЕТ WORLD", &["Noto Sans", "Archivo Black"]),
        ("👨‍👩‍👧🇺🇦", &["Noto Emoji"]),
        // Marks the display face lacks: the letter and its marks from the first face
        // with them all; Ê written as E and U+0302 (which no bundled face has alone),
        // composed; and marks no face has with their letter, each from a face that has it.
        ("A\u{301}\u{303}\u{304}\u{308}", &["Noto Sans"]),
        ("E\u{302} E\u{323}\u{302}", &["Archivo Black", "Noto Sans"]),
        ("A\u{301}\u{483}", &["Archivo Black", "Noto Sans"]),
    ];
    for (text, order) in cases {
        for (word, name, id) in [
            (text, "Ann", layout::phrase_id(1)),
            ("RAWR", text, layout::BYLINE_ID.to_owned()),
        ] {
            let lettering = painter().lettering(site::NAME, word, name);
            let mut glyphs = glyphs_of(&lettering, &id);
            let (_, missing) = faces_of(&lettering, &id);
            assert!(!missing, "{text:?} in {id}: a glyph is a box: {glyphs:?}");
            // The faces met from left to right, spaces aside (the display face has them).
            glyphs.retain(|g| g.2.trim() != "");
            glyphs.sort_by(|a, b| a.1.total_cmp(&b.1));
            let mut faces: Vec<String> = Vec::new();
            for (family, _, _) in glyphs {
                // (Some slices name their family after the variable font they were cut
                // from, "Noto Sans SC Thin"; their glyphs are the black weight.)
                let family = family.trim_end_matches(" Thin").to_owned();
                if faces.last() != Some(&family) {
                    faces.push(family);
                }
            }
            // The byline's "By " first, in the display face.
            let mut expected: Vec<&str> = Vec::new();
            if id == layout::BYLINE_ID {
                expected.push("Archivo Black");
            }
            for face in order {
                if expected.last() != Some(face) {
                    expected.push(face);
                }
            }
            assert_eq!(faces, expected, "{text:?} in {id}");
        }
    }
}

#[test]
fn marks_no_face_has_are_drawn_as_nothing_over_their_letters() {
    // Zalgo's overlays and hooks (U+0334–U+0337, U+0322): no bundled face has them, and
    // each was a box beside its letter. The page shows them in a system font, if any.
    let word = "Z\u{337}\u{322}A\u{335}L\u{336}G\u{334}O";
    let name = "Z\u{337}a\u{335}l\u{336}g\u{334}o";
    let zalgo = painter().lettering(site::NAME, word, name);
    let plain = painter().lettering(site::NAME, "ZALGO", "Zalgo");
    for id in [layout::phrase_id(1), layout::BYLINE_ID.to_owned()] {
        let drawn = |lettering: &Lettering| {
            set(lettering, &id)
                .glyphs
                .iter()
                .flatten()
                .map(|g| (g.face, g.id, g.x, g.y))
                .collect::<Vec<_>>()
        };
        assert_eq!(drawn(&zalgo), drawn(&plain), "{id}");
        assert!(!faces_of(&zalgo, &id).1, "{id}: a box");
    }
    assert_eq!(text_of(&zalgo, &layout::phrase_id(1)), word);
}

#[test]
fn a_bracket_in_right_to_left_text_is_drawn_mirrored_as_a_browser_draws_it() {
    // Read right to left, the opening bracket is the right one of the two and is drawn
    // with the glyph of ")" (Unicode's mirroring), the closing one the left one, as "(".
    let lettering = painter().lettering(site::NAME, "مرحبا (شكرا)", "Ann");
    let set = set(&lettering, &layout::phrase_id(1));
    let line = &set.text.lines[0];
    let mut glyphs: Vec<&Glyph> = set.glyphs[0].iter().collect();
    glyphs.sort_by(|a, b| a.x.total_cmp(&b.x));
    let faces = painter().faces();
    let shows = |glyph: &Glyph| &line[glyph.cluster.clone()];
    let brackets: Vec<&&Glyph> = glyphs
        .iter()
        .filter(|g| shows(g) == "(" || shows(g) == ")")
        .collect();
    let [left, right] = brackets[..] else {
        panic!("two brackets: {glyphs:?}");
    };
    assert_eq!((shows(left), shows(right)), (")", "("));
    assert_eq!(
        faces.glyph_id(left.face, '('),
        Some(left.id),
        "the left one"
    );
    assert_eq!(
        faces.glyph_id(right.face, ')'),
        Some(right.id),
        "the right one"
    );
    // And the first word read is the rightmost.
    assert_eq!(shows(glyphs[glyphs.len() - 1]), "م");
}

#[test]
fn a_phrase_and_a_name_read_in_the_direction_of_their_first_letter_as_on_the_page() {
    // The page sets each in a <bdi>: "وداعا!" is a right-to-left line, its "!" at the
    // left end; "HI مرحبا!" a left-to-right one, its "!" at the right end; a name after
    // "By " keeps its own direction.
    // What the glyphs of `id` show, from left to right, spaces aside.
    let left_to_right = |word: &str, name: &str, id: &str| -> Vec<String> {
        let lettering = painter().lettering(site::NAME, word, name);
        let mut glyphs = glyphs_of(&lettering, id);
        glyphs.retain(|g| g.2.trim() != "");
        glyphs.sort_by(|a, b| a.1.total_cmp(&b.1));
        glyphs.into_iter().map(|g| g.2).collect()
    };
    let phrase = layout::phrase_id(1);
    let rtl = left_to_right("وداعا!", "Ann", &phrase);
    assert_eq!(rtl.first().map(String::as_str), Some("!"), "{rtl:?}");
    assert_eq!(rtl.last().map(String::as_str), Some("و"), "{rtl:?}");
    let ltr = left_to_right("HI مرحبا!", "Ann", &phrase);
    assert_eq!(ltr.first().map(String::as_str), Some("H"), "{ltr:?}");
    assert_eq!(ltr.last().map(String::as_str), Some("!"), "{ltr:?}");
    let byline = left_to_right("RAWR", "فاطمة!", layout::BYLINE_ID);
    assert_eq!(&byline[..3], ["B", "y", "!"], "{byline:?}");
    assert_eq!(byline.last().map(String::as_str), Some("ف"), "{byline:?}");
}

#[test]
fn any_text_is_set_whole_and_inside_the_margins() {
    // 400 cards of random text from every script the faces hold and what trips a shaper
    // up: marks on nothing, joiners, variation selectors, half flags, bidi controls
    // left open, characters no face has, at the limits of a phrase and a name and
    // past them. Each character is shown by exactly one glyph's cluster, in order.
    const POOL: &str = concat!(
        "AWg1 ()[«!-ÉßЯЩΩάمرحبا",
        "ﻻ\u{FDFD}\u{FDFA}٣שלום再见さ안녕नम\u{94D}ล\u{E48}🦖🦕☄\u{FE0F}\u{200D}👨👩🇺🇦\u{20E3}",
        "\u{301}\u{302}\u{323}\u{483}\u{64E}\u{202E}\u{202D}\u{202C}\u{2067}\u{2069}\u{200F}",
        "\u{200E}\u{FFFD}\u{0}\u{1b}\u{10FFFD}\u{E0041}\u{2028}\u{2029}\u{9}ᄀ\u{1160}ꦲဂⴰ𓀀",
        "বিদায়வணக்கம்ნახვამდის",
    );
    let pool: Vec<char> = POOL.chars().collect();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |bound: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % bound as u64) as usize
    };
    for case in 0..400 {
        let mut text = |most: usize| -> String {
            let length = 1 + next(most);
            (0..length).map(|_| pool[next(pool.len())]).collect()
        };
        let (word, name) = (text(30), text(60));
        let lettering = painter().lettering(site::NAME, &word, &name);
        let context = format!("case {case}: {word:?} by {name:?}");
        assert_eq!(
            text_of(&lettering, &layout::phrase_id(1)),
            word,
            "{context}"
        );
        assert_eq!(
            text_of(&lettering, layout::BYLINE_ID),
            layout::byline(&name),
            "{context}"
        );
        for lines in 2..=layout::line_breaks(&word).len() {
            let drawn = text_of(&lettering, &layout::phrase_id(lines));
            assert_eq!(drawn.replace(' ', ""), word.replace(' ', ""), "{context}");
        }
        for (id, [l, t, r, b]) in lettering.ink_boxes() {
            assert!(
                l >= paint::LEFT - 0.5 && r <= paint::RIGHT + 0.5 && t >= 40.0 && b <= 570.0,
                "{context}: {id} inked from ({l}, {t}) to ({r}, {b})"
            );
        }
    }
}

#[test]
fn the_dino_is_chosen_by_the_id_and_the_etag_by_what_the_card_shows() {
    let cards = Cards::new(painter(), &lastwords::metrics::Metrics::new());
    let one = phrase("a", "RAWR", "Ann");
    assert_eq!(cards.dino_for("a").file, cards.dino_for("a").file);
    let dinos: std::collections::HashSet<&str> = (0..200)
        .map(|i| cards.dino_for(&format!("id{i}")).file.as_str())
        .collect();
    assert_eq!(dinos.len(), painter().dinos.len(), "every Dino shows up");
    let etag = cards.etag(&one);
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    assert_eq!(etag, cards.etag(&phrase("a", "RAWR", "Ann")));
    assert_ne!(etag, cards.etag(&phrase("a", "RAWR", "Bob")));
    assert_ne!(etag, cards.etag(&phrase("a", "ROAR", "Ann")));
    // Word and name cannot trade characters and hash alike.
    assert_ne!(
        cards.etag(&phrase("a", "AB", "C")),
        cards.etag(&phrase("a", "A", "BC"))
    );
}

async fn card(
    host: &TestHost,
    path: &str,
    etag: Option<&str>,
) -> (axum::http::Response<()>, Vec<u8>) {
    let mut request = Request::get(path);
    if let Some(etag) = etag {
        request = request.header(header::IF_NONE_MATCH, etag);
    }
    bytes(host.send(request.body(Body::empty()).unwrap()).await).await
}

#[tokio::test]
async fn a_card_is_a_png_with_an_etag_drawn_once_then_served_from_the_cache() {
    let host = TestHost::start(Some(vec![
        phrase("fïrst one", "THE METEOR IS COMING", "Ann"),
        phrase("two", "<SCRIPT>", "\"Mallory\" & co"),
    ]))
    .await;
    let cards = &host.state.metrics;
    let (response, png) = card(&host, "/words/f%C3%AFrst%20one/card.png", None).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[header::CONTENT_TYPE], "image/png");
    assert_eq!(
        response.headers()[header::CACHE_CONTROL],
        "public, max-age=3600"
    );
    // The router's security headers are on the card too.
    assert_eq!(response.headers()["x-content-type-options"], "nosniff");
    let etag = response.headers()[header::ETAG]
        .to_str()
        .unwrap()
        .to_owned();
    assert_eq!(decode(&png).0, 1200);
    assert_eq!(cards.card_renders.get(), 1);
    assert_eq!(cards.card_hits.get(), 0);

    // Again: the same bytes from the cache, no second draw; also at the capitalised path.
    let (again, same) = card(&host, "/Words/f%C3%AFrst%20one/card.png", None).await;
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(same, png);
    assert_eq!(again.headers()[header::ETAG], etag.as_str());
    assert_eq!(cards.card_renders.get(), 1);
    assert_eq!(cards.card_hits.get(), 1);

    // The validator: 304 with no body and no draw.
    let (not_modified, body) = card(&host, "/words/f%C3%AFrst%20one/card.png", Some(&etag)).await;
    assert_eq!(not_modified.status(), StatusCode::NOT_MODIFIED);
    assert!(body.is_empty());
    assert_eq!(not_modified.headers()[header::ETAG], etag.as_str());
    for response in [&response, &not_modified] {
        assert_eq!(
            response.headers()["cross-origin-resource-policy"],
            "cross-origin",
            "another site may show a card a post links to"
        );
    }

    // Many at once for a new card: one draw.
    let path = "/words/two/card.png";
    let all = futures_util::future::join_all((0..8).map(|_| card(&host, path, None))).await;
    assert!(
        all.iter()
            .all(|(r, b)| r.status() == StatusCode::OK && b == &all[0].1)
    );
    assert_eq!(cards.card_renders.get(), 2);
    assert_ne!(all[0].0.headers()[header::ETAG], etag.as_str());

    let (_, metrics) = host.scrape().await;
    assert!(
        metrics.contains("lastwords_card_renders_total 2"),
        "{metrics}"
    );

    // A changed name is a new card with a new validator: the old one gets the new card.
    host.state
        .feed
        .replace(vec![phrase("fïrst one", "THE METEOR IS COMING", "Bob")]);
    let (changed, _) = card(&host, "/words/f%C3%AFrst%20one/card.png", Some(&etag)).await;
    assert_eq!(changed.status(), StatusCode::OK);
    assert_ne!(changed.headers()[header::ETAG], etag.as_str());
}

#[tokio::test]
async fn unknown_ids_get_404() {
    let host = TestHost::start(Some(vec![phrase("known", "RAWR", "Ann")])).await;
    for path in [
        "/words/unknown/card.png",
        "/words/%3Cscript%3E/card.png",
        "/words/known%20/card.png",
        "/words/KNOWN/card.png",
    ] {
        let (response, _) = card(&host, path, None).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
    assert_eq!(host.state.metrics.card_renders.get(), 0);
    let (response, _) = card(&host, "/words/known/card.png", None).await;
    assert_eq!(response.status(), StatusCode::OK);
}
