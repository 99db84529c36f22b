//! Draws a card: the backdrop (drawn once), a framed Dino (each drawn once, when first
//! wanted), and the lettering, laid out with the bundled fonts and fitted to its boxes,
//! then encoded as PNG. Everything here is CPU work: call it on a blocking thread.

use std::sync::{Arc, OnceLock};

use resvg::tiny_skia::{Pixmap, PixmapPaint, Transform};
use resvg::usvg::{self, fontdb};

use super::layout::{self, HEIGHT, WIDTH};
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
    fonts: OnceLock<Arc<fontdb::Database>>,
    backdrop: OnceLock<Result<Pixmap, String>>,
    name_x: OnceLock<f32>,
    pub dinos: Vec<Dino>,
}

/// The lettering of one card, laid out and placed, before it is drawn.
pub struct Lettering {
    tree: usvg::Tree,
    /// Each text's id, with where it is drawn.
    placed: Vec<(String, Transform)>,
}

impl Lettering {
    /// The tree it was laid out in (to read its texts back).
    pub fn tree(&self) -> &usvg::Tree {
        &self.tree
    }

    /// Where each drawn text's ink lands on the card, as (left, top, right, bottom).
    pub fn ink_boxes(&self) -> Vec<(String, [f32; 4])> {
        self.placed
            .iter()
            .filter_map(|(id, transform)| {
                let bbox = ink(&self.tree, id)?.transform(*transform)?;
                Some((
                    id.clone(),
                    [bbox.left(), bbox.top(), bbox.right(), bbox.bottom()],
                ))
            })
            .collect()
    }

    fn draw(&self, pixmap: &mut Pixmap) {
        for (id, transform) in &self.placed {
            let Some(node) = self.tree.node_by_id(id) else {
                continue;
            };
            // render_node draws from the node's layer box; undo that so `transform`
            // applies to the text's own coordinates.
            let Some(layer) = node.abs_layer_bounding_box() else {
                continue;
            };
            let at = transform.pre_translate(layer.x(), layer.y());
            resvg::render_node(node, at, &mut pixmap.as_mut());
        }
    }
}

impl Painter {
    pub fn new(art: &'static CardArt, dinos: Vec<Dino>) -> Self {
        Self {
            art,
            fonts: OnceLock::new(),
            backdrop: OnceLock::new(),
            name_x: OnceLock::new(),
            dinos,
        }
    }

    /// Unpacks the fonts and draws the backdrop, which the first card would otherwise
    /// wait for (some 100 ms).
    pub fn warm(&self) {
        self.fonts();
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
    pub fn fonts(&self) -> &Arc<fontdb::Database> {
        self.fonts.get_or_init(|| {
            let mut db = fontdb::Database::new();
            for packed in self.art.fonts {
                let mut ttf = Vec::new();
                match brotli::BrotliDecompress(&mut &packed[..], &mut ttf) {
                    Ok(()) => db.load_font_data(ttf),
                    Err(error) => tracing::error!(%error, "a bundled card font does not unpack"),
                }
            }
            Arc::new(db)
        })
    }

    fn options(&self) -> usvg::Options<'static> {
        let fonts = self.fonts().clone();
        usvg::Options {
            fontdb: fonts,
            font_family: "Archivo Black".into(),
            font_resolver: usvg::FontResolver {
                select_font: usvg::FontResolver::default_font_selector(),
                select_fallback: Box::new(fallback),
            },
            ..usvg::Options::default()
        }
    }

    /// Where the byline's name starts: the advance of [`layout::BY`] in the display face.
    fn name_x(&self) -> f32 {
        *self.name_x.get_or_init(|| {
            let db = self.fonts();
            let query = fontdb::Query {
                families: &[fontdb::Family::Name(layout::FONT_FAMILY)],
                ..fontdb::Query::default()
            };
            db.query(&query)
                .and_then(|id| {
                    db.with_face_data(id, |data, index| advance(data, index, layout::BY))
                })
                .flatten()
                // A face without those letters is a broken bundle; the name still follows.
                .unwrap_or(layout::BYLINE_SIZE * 1.5)
        })
    }

    /// Lays out the lettering of a card and places it inside its boxes.
    pub fn lettering(&self, site: &str, word: &str, name: &str) -> Result<Lettering, String> {
        let svg = layout::lettering(site, word, name, self.name_x());
        let tree = usvg::Tree::from_str(&svg, &self.options())
            .map_err(|e| format!("the card's lettering does not parse: {e}"))?;
        let mut placed = Vec::with_capacity(3);
        if let Some(at) = fit_line(&tree, layout::SITE_ID, SITE_X, SITE_BASELINE) {
            placed.push((layout::SITE_ID.to_owned(), at));
        }
        if let Some(at) = fit_line(&tree, layout::BYLINE_ID, LEFT, BYLINE_BASELINE) {
            placed.push((layout::BYLINE_ID.to_owned(), at));
        }
        if let Some(phrase) = fit_phrase(&tree) {
            placed.push(phrase);
        }
        Ok(Lettering { tree, placed })
    }

    /// The card as PNG: `word` by `name`, with `dino`.
    pub fn paint(
        &self,
        site: &str,
        word: &str,
        name: &str,
        dino: &Dino,
    ) -> Result<Vec<u8>, String> {
        let lettering = self.lettering(site, word, name)?;
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

/// The first face after those tried that has `c`, in the bundle's order. (usvg's own
/// fallback logs a warning for every character it falls back for.)
fn fallback(c: char, tried: &[fontdb::ID], db: &mut Arc<fontdb::Database>) -> Option<fontdb::ID> {
    db.faces()
        .filter(|face| !tried.contains(&face.id))
        .find(|face| has_char(db, face.id, c))
        .map(|face| face.id)
}

fn has_char(db: &fontdb::Database, id: fontdb::ID, c: char) -> bool {
    use skrifa::MetadataProvider as _;
    db.with_face_data(id, |data, index| {
        skrifa::FontRef::from_index(data, index)
            .ok()
            .and_then(|font| font.charmap().map(c))
            .is_some()
    })
    .unwrap_or(false)
}

/// The advance of `text` at the byline's size in the face, if it has every character.
fn advance(data: &[u8], index: u32, text: &str) -> Option<f32> {
    use skrifa::MetadataProvider as _;
    let font = skrifa::FontRef::from_index(data, index).ok()?;
    let charmap = font.charmap();
    let metrics = font.glyph_metrics(
        skrifa::instance::Size::new(layout::BYLINE_SIZE),
        skrifa::instance::LocationRef::default(),
    );
    text.chars()
        .map(|c| {
            charmap
                .map(c)
                .and_then(|glyph| metrics.advance_width(glyph))
        })
        .sum()
}

/// The ink box of the text `id`, in the lettering's coordinates.
fn ink(tree: &usvg::Tree, id: &str) -> Option<usvg::Rect> {
    match tree.node_by_id(id)? {
        usvg::Node::Text(text) => {
            let bbox = text.flattened().abs_bounding_box();
            (bbox.width() > 0.0 && bbox.height() > 0.0).then_some(bbox)
        }
        _ => None,
    }
}

/// One line from `left`, its baseline on `baseline`, shrunk (about its baseline) when
/// it would pass [`RIGHT`].
fn fit_line(tree: &usvg::Tree, id: &str, left: f32, baseline: f32) -> Option<Transform> {
    let bbox = ink(tree, id)?;
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
fn fit_phrase(tree: &usvg::Tree) -> Option<(String, Transform)> {
    let (width, height) = (RIGHT - LEFT, PHRASE_BOTTOM - PHRASE_TOP);
    let largest = PHRASE_MAX_SIZE / layout::PHRASE_REFERENCE_SIZE;
    let mut best: Option<(String, f32, usvg::Rect)> = None;
    for lines in 1..=layout::MAX_LINES {
        let id = layout::phrase_id(lines);
        let Some(bbox) = ink(tree, &id) else { continue };
        let scale = largest
            .min(width / bbox.width())
            .min(height / bbox.height());
        match &best {
            Some((_, best_scale, _)) if scale < best_scale * MORE_LINES_GAIN => {}
            _ => best = Some((id, scale, bbox)),
        }
    }
    let (id, scale, bbox) = best?;
    let middle = (PHRASE_TOP + PHRASE_BOTTOM) / 2.0;
    let at = Transform::from_row(
        scale,
        0.0,
        0.0,
        scale,
        LEFT - bbox.left() * scale,
        middle - (bbox.top() + bbox.height() / 2.0) * scale,
    );
    Some((id, at))
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
