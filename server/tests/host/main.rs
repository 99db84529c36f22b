//! The host's tests in process: each module a part of it, on a whole host built by
//! `common` (real renderer, real UI bundle, embedded store) or through the binary (`cli`).
//! One test binary, not one per file: each would link the whole host again.

mod card;
mod cli;
mod common;
mod fast_path;
mod front;
mod golden;
mod page_cache;
mod phrase_pages;
mod router;
mod router_guards;
mod site_files;
mod ui_folder;
