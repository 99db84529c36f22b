//! The site's own facts, the one place the host states them: its name, what it is, and
//! the organization behind it, for page titles, link previews, the web app manifest and
//! search engines. The UI states its copy in `ui/src/data/site.ts`.

/// The name as a literal, so the facts below can be built from it at compile time.
macro_rules! name {
    () => {
        "Dinos"
    };
}

/// What the collection is, after "a" or "A".
macro_rules! what {
    () => {
        "donation-driven collection of dinosaur NFTs that raises money for climate non-profits."
    };
}

/// The site's name, as page titles and link previews end.
pub const NAME: &str = name!();

/// The name in app launchers.
pub const APP_NAME: &str = concat!(name!(), " — Last Words");

/// The home page's title.
pub const HOME_TITLE: &str = concat!(name!(), " — the NFT collection that saves the world");

/// The home page's description.
pub const HOME_DESCRIPTION: &str = concat!(
    name!(),
    " is a ",
    what!(),
    " Leave your Last Words before the meteor hits."
);

/// The organization, as schema.org describes it to search engines.
pub const ORGANIZATION_DESCRIPTION: &str = concat!("A ", what!());

/// The one line an app launcher shows.
pub const APP_DESCRIPTION: &str = "Dinosaur NFTs minted for donations to climate non-profits.";

/// What the link-preview image shows, for those who cannot see it.
pub const PREVIEW_IMAGE_ALT: &str = concat!(
    name!(),
    ": cartoon dinosaurs under a falling meteor, and the words Last Words"
);

/// A page's title: what the page is, then the site.
pub fn title(page: &str) -> String {
    format!("{page} — {NAME}")
}

/// The hashtag a shared phrase carries, for the product (`#myLastWords`).
pub fn hashtag(product: &str) -> String {
    format!("#myLast{product}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_facts_read_as_before() {
        assert_eq!(
            HOME_DESCRIPTION,
            "Dinos is a donation-driven collection of dinosaur NFTs that raises money for climate non-profits. Leave your Last Words before the meteor hits."
        );
        assert_eq!(
            ORGANIZATION_DESCRIPTION,
            "A donation-driven collection of dinosaur NFTs that raises money for climate non-profits."
        );
        assert_eq!(title("Page not found"), "Page not found — Dinos");
    }
}
