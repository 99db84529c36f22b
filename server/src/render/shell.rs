//! The HTML document around React's markup: head tags, the hashed stylesheet and
//! scripts, and the page's props as inert JSON for hydration.

use askama::Template;

use crate::escape::inert;
pub use crate::escape::inert_json;
use crate::render::assets::Manifest;
use crate::render::head::Head;

#[derive(Template)]
#[template(path = "shell.html")]
struct Shell<'a> {
    head: &'a Head,
    css: &'a str,
    js: &'a str,
    preload: Vec<&'a str>,
    fonts: &'a [String],
    body: &'a str,
    props_json: &'a str,
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage<'a> {
    title: &'a str,
    message: &'a str,
    css: &'a str,
    back_href: &'a str,
    back_label: &'a str,
}

/// A page for when rendering itself failed: plain HTML with the site's stylesheet, no
/// React, so it works whatever broke.
pub fn error_document(manifest: &Manifest, title: &str, message: &str) -> String {
    error_document_back(manifest, title, message, ("/", "Back to the home page"))
}

/// The same, with a link back to `back` (its address and its text) instead of home.
pub fn error_document_back(
    manifest: &Manifest,
    title: &str,
    message: &str,
    (back_href, back_label): (&str, &str),
) -> String {
    ErrorPage {
        title,
        message,
        css: &manifest.css,
        back_href,
        back_label,
    }
    .render()
    .unwrap_or_else(|_| format!("<!doctype html><title>{title}</title><p>{message}</p>"))
}

/// Wraps `body` (React's markup) in the document, with `props` (JSON) for hydration.
pub fn document(
    manifest: &Manifest,
    head: &Head,
    body: &str,
    props: &str,
) -> Result<String, askama::Error> {
    let props_json = inert(props);
    // The entry's modules, then those of each island the page has (React writes the
    // island's name into its marker), each once.
    let mut preload: Vec<&str> = manifest.preload.iter().map(String::as_str).collect();
    for (island, modules) in &manifest.islands {
        if body.contains(&format!("data-island=\"{island}\"")) {
            for module in modules {
                if !preload.contains(&module.as_str()) {
                    preload.push(module);
                }
            }
        }
    }
    Shell {
        head,
        css: &manifest.css,
        js: &manifest.js,
        preload,
        fonts: &manifest.fonts,
        body,
        props_json: &props_json,
    }
    .render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_strings_stay_inside_the_json() {
        let value = serde_json::json!({
            "word": "</script><script>alert(1)</script>",
            "name": "<!-- & \u{2028}\u{2029}",
        });
        let json = inert_json(&value);
        for forbidden in ["<", ">", "&", "\u{2028}", "\u{2029}"] {
            assert!(!json.contains(forbidden), "{forbidden:?} in {json}");
        }
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn the_error_page_names_the_site() {
        let html = error_document(&Manifest::default(), "Too <busy>", "Try again.");
        assert!(
            html.contains("<title>Too &#60;busy&#62; — Dinos</title>"),
            "{html}"
        );
        assert!(html.contains("text-accent\">Dinos</p>"), "{html}");
    }

    #[test]
    fn a_page_preloads_the_modules_of_the_islands_it_has_and_no_others() {
        let manifest = Manifest {
            preload: vec!["shared.js".into()],
            islands: [
                ("words".to_owned(), vec!["list.js".into(), "live.js".into()]),
                (
                    "phrase".to_owned(),
                    vec!["phrase.js".into(), "live.js".into()],
                ),
            ]
            .into(),
            ..Manifest::default()
        };
        let head = Head {
            title: "t".into(),
            description: "d".into(),
            canonical: "https://x.example/".into(),
            indexable: true,
            image: "https://x.example/og.png".into(),
            image_alt: "alt".into(),
            feed: None,
            structured_data: None,
            prev: None,
            next: None,
        };
        let preloaded = |body: &str| {
            let html = document(&manifest, &head, body, "{}").unwrap();
            html.split("<link rel=\"modulepreload\" href=\"/assets/")
                .skip(1)
                .map(|rest| rest.split('"').next().unwrap().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(preloaded("<p>home</p>"), ["shared.js"]);
        assert_eq!(
            preloaded(r#"<div data-island="words">list</div>"#),
            ["shared.js", "list.js", "live.js"]
        );
        assert_eq!(
            preloaded(r#"<div data-island="words"></div><div data-island="phrase"></div>"#),
            ["shared.js", "phrase.js", "live.js", "list.js"]
        );
    }

    #[test]
    fn head_text_is_escaped() {
        let head = Head {
            title: "A \"quoted\" <title>".into(),
            description: "d".into(),
            canonical: "https://x.example/".into(),
            indexable: true,
            image: "https://x.example/og.png?a=1&b=\"2\"".into(),
            image_alt: "alt".into(),
            feed: None,
            structured_data: None,
            prev: None,
            next: Some("https://x.example/words?after=1-a&b=\"".into()),
        };
        let html = document(&Manifest::default(), &head, "<p>ok</p>", "{}").unwrap();
        assert!(
            html.contains("A &#34;quoted&#34; &#60;title&#62;"),
            "{html}"
        );
        assert!(html.contains("og.png?a=1&#38;b=&#34;2&#34;"), "{html}");
        assert!(
            html.contains(
                r#"<link rel="next" href="https://x.example/words?after=1-a&#38;b=&#34;">"#
            ),
            "{html}"
        );
        assert!(html.contains("<div id=\"root\"><p>ok</p></div>"));
    }
}
