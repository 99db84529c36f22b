//! What the host makes for a request: React rendered on JS engines behind a bounded queue
//! ([`pool`]), the pages kept by what they show ([`page_cache`]), a page's render run
//! through both with its metrics and fallback ([`service`]), the document around
//! React's markup ([`shell`]), what its `<head>` tells search engines and link previews
//! ([`head`]) and what React renders with ([`props`]), the UI build embedded in the
//! binary or, in development, read from a folder ([`assets`]), each phrase's card image
//! ([`card`]), the sitemap
//! and the Atom feed ([`listings`]), robots, the manifest and icons ([`site_files`]), content encodings and validators
//! ([`negotiate`]).

pub mod assets;
pub mod card;
pub mod head;
pub mod listings;
pub mod negotiate;
pub mod page_cache;
pub use engine as pool;
pub mod props;
pub mod raster;
pub mod service;
pub mod shell;
pub mod site_files;
