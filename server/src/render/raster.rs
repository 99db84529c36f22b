//! The UI's icon and Open Graph art as the PNG and ICO files browsers, app launchers
//! and link previews ask for, drawn from the SVG the UI build wrote when first asked
//! for (`render::site_files`). Drawn here rather than by the build script: the host has
//! resvg for the cards, and a second resvg built for the build script cost every clean
//! build 20 s of compiling.

use bytes::Bytes;
use resvg::{tiny_skia, usvg};

/// The icon and the Open Graph picture, rasterised.
#[derive(Debug)]
pub struct RasterImages {
    /// 1200×630, for link previews.
    pub og: Bytes,
    /// For the web app manifest.
    pub icon_192: Bytes,
    pub icon_512: Bytes,
    /// 180×180, what iOS puts on a home screen.
    pub apple_touch_icon: Bytes,
    /// 16 and 32 px, for browsers that ask for `/favicon.ico` whatever the page says.
    pub favicon_ico: Bytes,
}

impl RasterImages {
    /// A tenth of a second in the debug build, a few hundredths in the release build.
    pub fn draw(icon_svg: &str, og_svg: &str) -> Result<RasterImages, String> {
        let icon = parse(icon_svg, "icon.svg")?;
        let og = parse(og_svg, "og.svg")?;
        Ok(RasterImages {
            og: png(&og, 1200, 630)?.into(),
            icon_192: png(&icon, 192, 192)?.into(),
            icon_512: png(&icon, 512, 512)?.into(),
            apple_touch_icon: png(&icon, 180, 180)?.into(),
            favicon_ico: ico(&[(&png(&icon, 32, 32)?, 32), (&png(&icon, 16, 16)?, 16)]).into(),
        })
    }
}

fn parse(svg: &str, name: &str) -> Result<usvg::Tree, String> {
    usvg::Tree::from_str(svg, &usvg::Options::default())
        .map_err(|e| format!("the UI build's {name} is not an SVG the host can draw: {e}"))
}

/// The whole drawing scaled to `width`×`height`.
fn png(tree: &usvg::Tree, width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut pixmap = tiny_skia::Pixmap::new(width, height).ok_or("an image of no size")?;
    let size = tree.size();
    let transform = tiny_skia::Transform::from_scale(
        width as f32 / size.width(),
        height as f32 / size.height(),
    );
    resvg::render(tree, transform, &mut pixmap.as_mut());
    pixmap
        .encode_png()
        .map_err(|e| format!("cannot encode a PNG: {e}"))
}

/// An ICO file holding PNG images (supported by every browser since 2007).
fn ico(images: &[(&[u8], u8)]) -> Vec<u8> {
    let count = images.len() as u16;
    let mut out = Vec::new();
    out.extend_from_slice(&[0, 0, 1, 0]);
    out.extend_from_slice(&count.to_le_bytes());
    let mut offset = 6 + 16 * u32::from(count);
    for (png, size) in images {
        out.extend_from_slice(&[*size, *size, 0, 0]);
        out.extend_from_slice(&1u16.to_le_bytes()); // colour planes
        out.extend_from_slice(&32u16.to_le_bytes()); // bits per pixel
        out.extend_from_slice(&(png.len() as u32).to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        offset += png.len() as u32;
    }
    for (png, _) in images {
        out.extend_from_slice(png);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQUARE: &str = r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#2a9d8f"/></svg>"##;

    #[test]
    fn every_image_is_a_png_of_its_size_and_the_favicon_holds_two() {
        let images = RasterImages::draw(SQUARE, SQUARE).unwrap();
        for (png, side) in [
            (&images.icon_192, 192),
            (&images.icon_512, 512),
            (&images.apple_touch_icon, 180),
        ] {
            let header = png::Decoder::new(std::io::Cursor::new(png.to_vec()))
                .read_info()
                .unwrap();
            assert_eq!((header.info().width, header.info().height), (side, side));
        }
        let og = png::Decoder::new(std::io::Cursor::new(images.og.to_vec()))
            .read_info()
            .unwrap();
        assert_eq!((og.info().width, og.info().height), (1200, 630));
        assert_eq!(&images.favicon_ico[..6], &[0, 0, 1, 0, 2, 0]);
    }

    #[test]
    fn art_that_is_not_svg_is_refused_by_name() {
        let error = RasterImages::draw(SQUARE, "<svg").unwrap_err();
        assert!(error.contains("og.svg"), "{error}");
    }
}
