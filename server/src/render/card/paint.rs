//! Draws a card: the backdrop (drawn once), a framed Dino (each drawn once, when first
//! wanted), and the lettering, set in the bundled fonts (`typeset`) and fitted to its
//! boxes, then encoded as PNG. Everything here is CPU work: call it on a blocking thread.

use std::sync::OnceLock;

use resvg::tiny_skia::{
    Color, FillRule, Paint, Path, PathBuilder, Pixmap, PixmapPaint, Rect, Transform,
};
use resvg::usvg;

use super::layout::{self, HEIGHT, WIDTH};
use super::typeset::{Faces, Glyph};
use crate::render::assets::CardArt;

/// Where the lettering goes: the left margin, and the right edge it must not pass
/// (the Dino's frame is beyond it).
pub const LEFT: f32 = 70.0;
pub const RIGHT: f32 = 750.0;
/// The site's name: beside the brand tile the backdrop draws at (70, 50).
const SITE_X: f32 = 152.0;
const SITE_BASELINE: f32 = 98.0;
/// The phrase's box, between the header and the byline.
pub const PHRASE_TOP: f32 = 150.0;
pub const PHRASE_BOTTOM: f32 = 470.0;
/// The largest the phrase is set, in pixels.
const PHRASE_MAX_SIZE: f32 = 124.0;
/// A phrase is broken into more lines only when that sets it this much larger.
const MORE_LINES_GAIN: f32 = 1.15;
const BYLINE_BASELINE: f32 = 540.0;
/// The Dino's frame: its outer box on the card, and how its picture sits inside.
const FRAME_X: i32 = 806;
const FRAME_Y: i32 = 128;
const FRAME_SIZE: u32 = 348;
const FRAME_INNER: f32 = 320.0;
const FRAME_INSET: f32 = 6.0;
/// The picture's own size (`ui/src/art/sizes.ts`, DINO_SIZE).
const DINO_SIZE: f32 = 200.0;

/// One Dino the card may show.
#[derive(Debug)]
pub struct Dino {
    /// Its content-hashed file name: the art's version, part of every card's ETag.
    pub file: String,
    svg: &'static [u8],
    /// Framed and rasterised, once.
    framed: OnceLock<Result<Pixmap, String>>,
}

impl Dino {
    pub fn new(file: String, svg: &'static [u8]) -> Self {
        Self {
            file,
            svg,
            framed: OnceLock::new(),
        }
    }
}

/// What every card is drawn with.
pub struct Painter {
    art: &'static CardArt,
    faces: OnceLock<Faces>,
    backdrop: OnceLock<Result<Pixmap, String>>,
    pub dinos: Vec<Dino>,
}

/// One text of a card, set: its glyphs line by line, and their outlines as one path
/// (its first baseline on y = 0).
pub struct SetText {
    pub text: layout::Text,
    pub glyphs: Vec<Vec<Glyph>>,
    path: Option<Path>,
}

impl SetText {
    /// Where its ink is, in its own coordinates; `None` for a text of no ink.
    fn ink(&self) -> Option<Rect> {
        self.path.as_ref()?.compute_tight_bounds()
    }
}

/// The lettering of one card, set and placed, before it is drawn.
pub struct Lettering {
    pub texts: Vec<SetText>,
    /// The texts drawn (indices into `texts`), with where.
    placed: Vec<(usize, Transform)>,
}

impl Lettering {
    /// The text `id`.
    pub fn text(&self, id: &str) -> Option<&SetText> {
        Some(&self.texts[position(&self.texts, id)?])
    }

    /// Where each drawn text's ink lands on the card, as (left, top, right, bottom).
    pub fn ink_boxes(&self) -> Vec<(String, [f32; 4])> {
        self.placed
            .iter()
            .filter_map(|&(index, transform)| {
                let set = &self.texts[index];
                let bbox = set.ink()?.transform(transform)?;
                Some((
                    set.text.id.clone(),
                    [bbox.left(), bbox.top(), bbox.right(), bbox.bottom()],
                ))
            })
            .collect()
    }

    fn draw(&self, pixmap: &mut Pixmap) {
        for &(index, transform) in &self.placed {
            let set = &self.texts[index];
            let Some(path) = &set.path else { continue };
            let [r, g, b] = set.text.color;
            let mut paint = Paint::default();
            paint.set_color(Color::from_rgba8(r, g, b, u8::MAX));
            paint.anti_alias = true;
            pixmap.fill_path(path, &paint, FillRule::Winding, transform, None);
        }
    }
}

impl Painter {
    pub fn new(art: &'static CardArt, dinos: Vec<Dino>) -> Self {
        Self {
            art,
            faces: OnceLock::new(),
            backdrop: OnceLock::new(),
            dinos,
        }
    }

    /// Unpacks the fonts and draws the backdrop, which the first card would otherwise
    /// wait for (some 100 ms).
    pub fn warm(&self) {
        self.faces();
        if let Err(error) = self.backdrop() {
            tracing::error!(%error, "the card backdrop cannot be drawn");
        }
    }

    /// A hash of the backdrop and the fonts.
    pub fn art_version(&self) -> &'static str {
        self.art.version
    }

    /// The bundled faces, unpacked on first use (some 100 ms; the embedded data is
    /// brotli-compressed TrueType), in fallback order.
    pub fn faces(&self) -> &Faces {
        self.faces.get_or_init(|| {
            let mut fonts = Vec::new();
            for packed in self.art.fonts {
                let mut ttf = Vec::new();
                match brotli::BrotliDecompress(&mut &packed[..], &mut ttf) {
                    // Unpacked once per process (the painter is the process's), and read
                    // by the faces' character maps and outlines for as long.
                    Ok(()) => fonts.push(&*Box::leak(ttf.into_boxed_slice())),
                    Err(error) => tracing::error!(%error, "a bundled card font does not unpack"),
                }
            }
            Faces::new(&fonts)
        })
    }

    /// Sets the lettering of a card and places it inside its boxes.
    pub fn lettering(&self, site: &str, word: &str, name: &str) -> Lettering {
        let faces = self.faces();
        let texts: Vec<SetText> = layout::texts(site, word, name)
            .into_iter()
            .map(|text| {
                let mut path = PathBuilder::new();
                let glyphs: Vec<Vec<Glyph>> = text
                    .lines
                    .iter()
                    .enumerate()
                    .map(|(index, line)| {
                        let glyphs = faces.set(line, text.size, text.direction, text.isolate);
                        let baseline = index as f32 * text.size * layout::LINE_HEIGHT;
                        faces.outline(&glyphs, text.size, baseline, &mut path);
                        glyphs
                    })
                    .collect();
                SetText {
                    text,
                    glyphs,
                    path: path.finish(),
                }
            })
            .collect();
        let mut placed = Vec::with_capacity(3);
        if let Some(index) = position(&texts, layout::SITE_ID)
            && let Some(at) = fit_line(&texts[index], SITE_X, SITE_BASELINE)
        {
            placed.push((index, at));
        }
        if let Some(index) = position(&texts, layout::BYLINE_ID)
            && let Some(at) = fit_line(&texts[index], LEFT, BYLINE_BASELINE)
        {
            placed.push((index, at));
        }
        if let Some(phrase) = fit_phrase(&texts) {
            placed.push(phrase);
        }
        Lettering { texts, placed }
    }

    /// The card as PNG: `word` by `name`, with `dino`.
    pub fn paint(
        &self,
        site: &str,
        word: &str,
        name: &str,
        dino: &Dino,
    ) -> Result<Vec<u8>, String> {
        let lettering = self.lettering(site, word, name);
        let mut pixmap = self.backdrop()?.clone();
        let frame = self.framed(dino)?;
        pixmap.draw_pixmap(
            FRAME_X,
            FRAME_Y,
            frame.as_ref(),
            &PixmapPaint::default(),
            Transform::identity(),
            None,
        );
        lettering.draw(&mut pixmap);
        encode(&pixmap).map_err(|e| format!("the card does not encode: {e}"))
    }

    /// The lettering alone on a transparent card (for tests: every pixel with ink is
    /// lettering).
    pub fn lettering_pixels(&self, lettering: &Lettering) -> Result<Pixmap, String> {
        let mut pixmap = Pixmap::new(WIDTH, HEIGHT).ok_or("the card has a size")?;
        lettering.draw(&mut pixmap);
        Ok(pixmap)
    }

    fn backdrop(&self) -> Result<&Pixmap, String> {
        self.backdrop
            .get_or_init(|| {
                let tree = usvg::Tree::from_str(self.art.backdrop, &usvg::Options::default())
                    .map_err(|e| format!("the card backdrop does not parse: {e}"))?;
                let mut pixmap = Pixmap::new(WIDTH, HEIGHT).ok_or("the card has a size")?;
                let size = tree.size();
                let scale = Transform::from_scale(
                    WIDTH as f32 / size.width(),
                    HEIGHT as f32 / size.height(),
                );
                resvg::render(&tree, scale, &mut pixmap.as_mut());
                Ok(pixmap)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The Dino in its frame: its picture clipped to a rounded square, an ink border
    /// and a hard shadow, as the site's cards are drawn.
    fn framed<'a>(&self, dino: &'a Dino) -> Result<&'a Pixmap, String> {
        dino.framed
            .get_or_init(|| {
                let picture = std::str::from_utf8(dino.svg)
                    .map_err(|_| format!("{} is not UTF-8", dino.file))?;
                let picture = picture
                    .find("<svg")
                    .map_or(picture, |start| &picture[start..]);
                let (inset, inner, shadow) = (FRAME_INSET, FRAME_INNER, FRAME_INSET + 14.0);
                let scale = inner / DINO_SIZE;
                let svg = format!(
                    r##"<svg xmlns="http://www.w3.org/2000/svg" width="{FRAME_SIZE}" height="{FRAME_SIZE}"><defs><clipPath id="card-frame"><rect x="{inset}" y="{inset}" width="{inner}" height="{inner}" rx="30"/></clipPath></defs><rect x="{shadow}" y="{shadow}" width="{inner}" height="{inner}" rx="30" fill="#0b1410"/><g clip-path="url(#card-frame)"><g transform="translate({inset} {inset}) scale({scale})">{picture}</g></g><rect x="{inset}" y="{inset}" width="{inner}" height="{inner}" rx="30" fill="none" stroke="#0b1410" stroke-width="8"/></svg>"##
                );
                let tree = usvg::Tree::from_str(&svg, &usvg::Options::default())
                    .map_err(|e| format!("{} does not frame: {e}", dino.file))?;
                let mut pixmap =
                    Pixmap::new(FRAME_SIZE, FRAME_SIZE).ok_or("the frame has a size")?;
                resvg::render(&tree, Transform::identity(), &mut pixmap.as_mut());
                Ok(pixmap)
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// Where the text `id` is among `texts`.
fn position(texts: &[SetText], id: &str) -> Option<usize> {
    texts.iter().position(|set| set.text.id == id)
}

/// One line from `left`, its baseline on `baseline`, shrunk (about its baseline) when
/// it would pass [`RIGHT`].
fn fit_line(set: &SetText, left: f32, baseline: f32) -> Option<Transform> {
    let bbox = set.ink()?;
    let scale = ((RIGHT - left) / bbox.width()).min(1.0);
    Some(Transform::from_row(
        scale,
        0.0,
        0.0,
        scale,
        left - bbox.left() * scale,
        baseline,
    ))
}

/// The phrase broken the way that sets it largest inside its box (fewer lines unless
/// more are clearly larger), its ink flush with the left margin and centred in the
/// box's height.
fn fit_phrase(texts: &[SetText]) -> Option<(usize, Transform)> {
    let (width, height) = (RIGHT - LEFT, PHRASE_BOTTOM - PHRASE_TOP);
    let largest = PHRASE_MAX_SIZE / layout::PHRASE_REFERENCE_SIZE;
    let mut best: Option<(usize, f32, Rect)> = None;
    for lines in 1..=layout::MAX_LINES {
        let id = layout::phrase_id(lines);
        let Some(index) = position(texts, &id) else {
            continue;
        };
        let Some(bbox) = texts[index].ink() else {
            continue;
        };
        let scale = largest
            .min(width / bbox.width())
            .min(height / bbox.height());
        match &best {
            Some((_, best_scale, _)) if scale < best_scale * MORE_LINES_GAIN => {}
            _ => best = Some((index, scale, bbox)),
        }
    }
    let (index, scale, bbox) = best?;
    let middle = (PHRASE_TOP + PHRASE_BOTTOM) / 2.0;
    let at = Transform::from_row(
        scale,
        0.0,
        0.0,
        scale,
        LEFT - bbox.left() * scale,
        middle - (bbox.top() + bbox.height() / 2.0) * scale,
    );
    Some((index, at))
}

/// The card as PNG, without the alpha channel when every pixel is opaque (the backdrop
/// covers the card): 5 % fewer bytes than tiny-skia's RGBA and quicker to write. An
/// opaque pixel's premultiplied colour is its colour.
fn encode(pixmap: &Pixmap) -> Result<Vec<u8>, png::EncodingError> {
    let data = pixmap.data();
    if data.chunks_exact(4).any(|pixel| pixel[3] != u8::MAX) {
        return pixmap.encode_png();
    }
    let mut rgb = Vec::with_capacity(data.len() / 4 * 3);
    for pixel in data.chunks_exact(4) {
        rgb.extend_from_slice(&pixel[..3]);
    }
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&rgb)?;
    writer.finish()?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;
    use resvg::tiny_skia::Color;

    fn decoded(png: &[u8]) -> (png::ColorType, Vec<u8>) {
        let mut reader = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut pixels).unwrap();
        pixels.truncate(info.buffer_size());
        (info.color_type, pixels)
    }

    #[test]
    fn an_opaque_card_is_written_without_alpha_and_a_see_through_one_with_it() {
        let mut pixmap = Pixmap::new(3, 2).unwrap();
        pixmap.fill(Color::from_rgba8(200, 30, 90, 255));
        let (color, pixels) = decoded(&encode(&pixmap).unwrap());
        assert_eq!(color, png::ColorType::Rgb);
        assert_eq!(pixels, [200, 30, 90].repeat(6));

        // One pixel not quite opaque: its colour would be wrong without its alpha.
        pixmap.pixels_mut()[4] = Color::from_rgba8(200, 30, 90, 254)
            .premultiply()
            .to_color_u8();
        let (color, pixels) = decoded(&encode(&pixmap).unwrap());
        assert_eq!(color, png::ColorType::Rgba);
        assert_eq!(&pixels[16..20], [200, 30, 90, 254]);
    }
}
