//! A line of the card set in the bundled faces, as a browser sets it: each grapheme
//! cluster in the first face that has it, the runs of one face shaped with HarfRust, and
//! placed in the order Unicode's bidirectional algorithm gives (in the direction the
//! phrase page's `<bdi>` gives the phrase and the name), so "HI مرحبا" and "وداعا!" read
//! as they do on the phrase's page and a bracket in right-to-left text is mirrored. The
//! glyphs are drawn from their outlines.
//!
//! usvg's text layout, used before, shaped a whole line in one face, then all of it again
//! in the face it fell back to, and gave up when the two made different numbers of
//! glyphs (Arabic's dotted letters, marks, ligatures): "HI مرحبا" was two letters and
//! five boxes.

use std::ops::Range;

use harfrust::{ShaperData, UnicodeBuffer};
use resvg::tiny_skia::PathBuilder;
use skrifa::MetadataProvider as _;
use skrifa::OutlineGlyphCollection;
use skrifa::charmap::Charmap;
use skrifa::instance::{LocationRef, Size};
use skrifa::outline::{DrawSettings, OutlinePen};
use skrifa::string::StringId;
use unicode_bidi::{BidiInfo, Level};
use unicode_normalization::UnicodeNormalization as _;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory as _};

// Drawn as nothing when a face lacks them, so they never decide a run's face.
use crate::text::default_ignorable as ignorable;
use unicode_segmentation::UnicodeSegmentation as _;

/// The bundled faces, in fallback order (the display face first), each with its
/// character map read once: a line of Korean asks some 200 faces for each letter.
pub struct Faces {
    faces: Vec<Face>,
}

struct Face {
    data: &'static [u8],
    charmap: Charmap<'static>,
    outlines: Option<OutlineGlyphCollection<'static>>,
    family: String,
}

/// One glyph of a set line.
#[derive(Debug, Clone, PartialEq)]
pub struct Glyph {
    /// The face it is drawn from (an index into [`Faces`]).
    pub face: usize,
    /// Its id in that face; 0 is the face's missing-character box.
    pub id: u32,
    /// Where it is drawn, in pixels from the line's start on its baseline (y down).
    pub x: f32,
    pub y: f32,
    /// The characters it shows, as a range of the line.
    pub cluster: Range<usize>,
}

/// The direction of a paragraph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Ltr,
    Rtl,
}

impl Direction {
    /// The direction of `text`'s first letter that has one, as `dir="auto"` and `<bdi>`
    /// decide it; left to right when none has.
    pub fn of(text: &str) -> Self {
        match unicode_bidi::get_base_direction(text) {
            unicode_bidi::Direction::Rtl => Direction::Rtl,
            _ => Direction::Ltr,
        }
    }
}

/// A line being set: its glyphs so far, and where the next goes.
struct Set {
    glyphs: Vec<Glyph>,
    pen: f32,
}

/// Part of a line and its face, `None` for characters that show nothing.
type Piece = (Range<usize>, Option<usize>);

impl Faces {
    /// The faces of `fonts`; one that does not parse has no characters.
    pub fn new(fonts: &[&'static [u8]]) -> Self {
        let faces = fonts
            .iter()
            .map(|&data| {
                let font = skrifa::FontRef::new(data).ok();
                Face {
                    data,
                    charmap: font.as_ref().map(|f| f.charmap()).unwrap_or_default(),
                    outlines: font.as_ref().map(|f| f.outline_glyphs()),
                    // The typographic family (name 16) when there is one: "Noto Sans
                    // Arabic" rather than "Noto Sans Arabic Black".
                    family: font
                        .and_then(|f| {
                            [StringId::TYPOGRAPHIC_FAMILY_NAME, StringId::FAMILY_NAME]
                                .into_iter()
                                .find_map(|id| f.localized_strings(id).english_or_first())
                        })
                        .map(|name| name.to_string())
                        .unwrap_or_default(),
                }
            })
            .collect();
        Self { faces }
    }

    /// The family name of face `face`.
    pub fn family(&self, face: usize) -> &str {
        self.faces.get(face).map_or("", |face| &face.family)
    }

    /// The glyph face `face` maps `c` to.
    pub fn glyph_id(&self, face: usize, c: char) -> Option<u32> {
        Some(self.faces.get(face)?.charmap.map(c)?.to_u32())
    }

    fn has(&self, face: usize, c: char) -> bool {
        self.covers(face, &[c])
    }

    /// Whether `c` is a mark over a letter that no face has (Zalgo's overlays): it is
    /// drawn as nothing, rather than as a box beside its letter.
    fn missing_mark(&self, c: char) -> bool {
        matches!(
            c.general_category(),
            GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark
        ) && !(0..self.faces.len()).any(|face| self.has(face, c))
    }

    fn covers(&self, face: usize, chars: &[char]) -> bool {
        self.faces
            .get(face)
            .is_some_and(|face| chars.iter().all(|&c| face.charmap.map(c).is_some()))
    }

    /// The first face with every character of a cluster that shows, as written or
    /// composed (a shaper composes E and U+0302 into Ê when the face has Ê): `Some(None)`
    /// for a cluster of nothing that shows (a joiner, a direction mark), which joins its
    /// neighbours' run, and `None` when no face has the whole cluster.
    fn face_for(&self, cluster: &str) -> Option<Option<usize>> {
        let shown: Vec<char> = cluster
            .chars()
            .filter(|&c| !ignorable(c) && !self.missing_mark(c))
            .collect();
        if shown.is_empty() {
            return Some(None);
        }
        let composed: Vec<char> = shown.iter().copied().nfc().collect();
        (0..self.faces.len())
            .find(|&face| self.covers(face, &shown) || self.covers(face, &composed))
            .map(Some)
    }

    /// Each character's face: the one before it when that has it, else the first that
    /// does. For a cluster no face has whole (a letter under marks from several
    /// blocks): each mark is drawn from where the letter ends, over it, instead of a box.
    fn faces_of_characters(&self, start: usize, cluster: &str, out: &mut Vec<Piece>) {
        let mut last = out.last().and_then(|piece| piece.1);
        for (at, c) in cluster.char_indices() {
            let range = start + at..start + at + c.len_utf8();
            if ignorable(c) || self.missing_mark(c) {
                out.push((range, None));
                continue;
            }
            let face = match last {
                Some(face) if self.has(face, c) => face,
                _ => (0..self.faces.len())
                    .find(|&face| self.has(face, c))
                    .unwrap_or(0),
            };
            last = Some(face);
            out.push((range, Some(face)));
        }
    }

    /// `line` cut into runs of one face, in the line's order.
    fn runs(&self, line: &str) -> Vec<(Range<usize>, usize)> {
        let mut pieces: Vec<Piece> = Vec::new();
        for (start, cluster) in line.grapheme_indices(true) {
            match self.face_for(cluster) {
                Some(face) => pieces.push((start..start + cluster.len(), face)),
                None => self.faces_of_characters(start, cluster, &mut pieces),
            }
        }
        let mut runs: Vec<Piece> = Vec::new();
        for (range, face) in pieces {
            match runs.last_mut() {
                Some((run, last)) if face.is_none() || *last == face || last.is_none() => {
                    run.end = range.end;
                    if last.is_none() {
                        *last = face;
                    }
                }
                _ => runs.push((range, face)),
            }
        }
        runs.into_iter()
            .map(|(range, face)| (range, face.unwrap_or(0)))
            .collect()
    }

    /// `line` set at `size` pixels, its glyphs from left to right, in a paragraph of
    /// `direction` (a right-to-left stretch is reversed, its runs with it). From byte
    /// `isolate` on, the line is set as the page's `<bdi>` sets a name: apart, in the
    /// direction of its own first letter, after what comes before it.
    pub fn set(
        &self,
        line: &str,
        size: f32,
        direction: Direction,
        isolate: Option<usize>,
    ) -> Vec<Glyph> {
        let mut set = Set {
            glyphs: Vec::with_capacity(line.len()),
            pen: 0.0,
        };
        let at = isolate
            .filter(|&at| line.is_char_boundary(at))
            .unwrap_or(line.len());
        let level = match direction {
            Direction::Ltr => Level::ltr(),
            Direction::Rtl => Level::rtl(),
        };
        self.set_paragraphs(line, 0..at, Some(level), size, &mut set);
        self.set_paragraphs(line, at..line.len(), None, size, &mut set);
        set.glyphs
    }

    /// Sets `line[span]` after what `set` holds: paragraphs at `level`, or each at the
    /// level of its first letter.
    fn set_paragraphs(
        &self,
        line: &str,
        span: Range<usize>,
        level: Option<Level>,
        size: f32,
        set: &mut Set,
    ) {
        let text = &line[span.clone()];
        if text.is_empty() {
            return;
        }
        let runs = self.runs(text);
        let bidi = BidiInfo::new(text, level);
        for paragraph in &bidi.paragraphs {
            let (levels, stretches) = bidi.visual_runs(paragraph, paragraph.range.clone());
            for stretch in stretches {
                let rtl = levels[stretch.start].is_rtl();
                let mut pieces: Vec<(Range<usize>, usize)> = runs
                    .iter()
                    .filter_map(|(range, face)| {
                        let start = range.start.max(stretch.start);
                        let end = range.end.min(stretch.end);
                        (start < end).then_some((span.start + start..span.start + end, *face))
                    })
                    .collect();
                if rtl {
                    pieces.reverse();
                }
                for (range, face) in pieces {
                    self.shape(line, range, face, rtl, size, set);
                }
            }
        }
    }

    /// Shapes `line[range]` in `face`, adding its glyphs to `set` in visual order from
    /// where `set` has come to.
    fn shape(
        &self,
        line: &str,
        range: Range<usize>,
        face: usize,
        rtl: bool,
        size: f32,
        set: &mut Set,
    ) {
        let Some(data) = self.faces.get(face).map(|face| face.data) else {
            return;
        };
        let (Ok(font), Ok(shaping)) = (skrifa::FontRef::new(data), harfrust::FontRef::new(data))
        else {
            return;
        };
        let per_em = font
            .metrics(Size::unscaled(), LocationRef::default())
            .units_per_em;
        let scale = size / f32::from(per_em.max(1));
        let data = ShaperData::new(&shaping);
        let shaper = data.shaper(&shaping).build();
        let text = &line[range.clone()];
        let mut buffer = UnicodeBuffer::new();
        // The letter so far, composed with the marks the face has it composed with.
        let mut letter = None;
        for (at, c) in text.char_indices() {
            if self.missing_mark(c) {
                // Kept where the shaper composes it with its letter into one the face
                // has: E and U+0302 into Ê.
                match letter.and_then(|letter| unicode_normalization::char::compose(letter, c)) {
                    Some(composed) if self.has(face, composed) => letter = Some(composed),
                    _ => continue,
                }
            } else if !ignorable(c) {
                letter = Some(c);
            }
            // Marks left out before the first character kept are its cluster's too.
            let cluster = if buffer.is_empty() { 0 } else { at };
            buffer.add(c, cluster as u32);
        }
        // Marks over nothing at all are boxes, as a browser without a face for them draws them.
        if buffer.is_empty() {
            buffer.push_str(text);
        }
        buffer.set_direction(if rtl {
            harfrust::Direction::RightToLeft
        } else {
            harfrust::Direction::LeftToRight
        });
        buffer.guess_segment_properties();
        let shaped = shaper.shape(buffer, harfrust::ShapeOptions::new());
        // Where each cluster ends: the next cluster's start in the text.
        let mut starts: Vec<usize> = shaped
            .glyph_infos()
            .iter()
            .map(|info| info.cluster as usize)
            .collect();
        starts.sort_unstable();
        starts.dedup();
        for (info, position) in shaped.glyph_infos().iter().zip(shaped.glyph_positions()) {
            let start = info.cluster as usize;
            let end = starts
                .iter()
                .find(|&&s| s > start)
                .copied()
                .unwrap_or(range.len());
            set.glyphs.push(Glyph {
                face,
                id: info.glyph_id,
                x: set.pen + position.x_offset as f32 * scale,
                y: -(position.y_offset as f32) * scale,
                cluster: range.start + start..range.start + end,
            });
            set.pen += position.x_advance as f32 * scale;
        }
    }

    /// Adds the outlines of `glyphs` (set at `size`) to `path`, their baseline on `y`.
    pub fn outline(&self, glyphs: &[Glyph], size: f32, y: f32, path: &mut PathBuilder) {
        for glyph in glyphs {
            let Some(outline) = self
                .faces
                .get(glyph.face)
                .and_then(|face| face.outlines.as_ref())
                .and_then(|outlines| outlines.get(skrifa::GlyphId::new(glyph.id)))
            else {
                continue;
            };
            let mut pen = Pen {
                path,
                x: glyph.x,
                y: y + glyph.y,
            };
            // A glyph whose outline does not read is left out; the rest are drawn.
            let _ = outline.draw(
                DrawSettings::unhinted(Size::new(size), LocationRef::default()),
                &mut pen,
            );
        }
    }
}

/// Turns a glyph's outline (y up, from its origin) into the card's path (y down).
struct Pen<'a> {
    path: &'a mut PathBuilder,
    x: f32,
    y: f32,
}

impl OutlinePen for Pen<'_> {
    fn move_to(&mut self, x: f32, y: f32) {
        self.path.move_to(self.x + x, self.y - y);
    }

    fn line_to(&mut self, x: f32, y: f32) {
        self.path.line_to(self.x + x, self.y - y);
    }

    fn quad_to(&mut self, cx0: f32, cy0: f32, x: f32, y: f32) {
        self.path
            .quad_to(self.x + cx0, self.y - cy0, self.x + x, self.y - y);
    }

    fn curve_to(&mut self, cx0: f32, cy0: f32, cx1: f32, cy1: f32, x: f32, y: f32) {
        self.path.cubic_to(
            self.x + cx0,
            self.y - cy0,
            self.x + cx1,
            self.y - cy1,
            self.x + x,
            self.y - y,
        );
    }

    fn close(&mut self) {
        self.path.close();
    }
}
