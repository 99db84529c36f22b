//! What a cache miss of `/words` costs, measured on the real renderer.
//!
//! Builds the renderer pool from the embedded UI with one thread, as the host does,
//! and times the `words` route with 200 generated phrases: the render alone, the
//! askama shell, the ETag of `CachedPage::new` and each encoding `CachedPage::encode` makes the
//! first time a client asks for it, and the whole page path as `routes::pages` runs it. A last section times the same bundle inside one engine
//! without the pool, to show where a render's time goes.
//!
//!     cargo run --release --example render_bench
//!     cargo run --release --example render_bench -- --write-phrases FILE
//!
//! `RENDER_BENCH_BUNDLE=ui/dist/server.js` times a server bundle from disk instead of
//! the embedded one, to compare UI changes without rebuilding the host.
//!
//! With `--write-phrases` it only writes the generated phrases as a `phrases.json` (an
//! array of `{id, word, name}`, which a new embedded store imports) and exits; `scripts/bench` serves
//! them, so the HTTP figures and these are for the same list.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, anyhow, bail};
use deno_core::{JsRuntime, RuntimeOptions, v8};
use lastwords::feed::check::Check;
use lastwords::feed::list::{PAGE_SIZE, PhraseList};
use lastwords::feed::paging::{PageRequest, PhrasePage};
use lastwords::feed::{Phrase, Snapshot};
use lastwords::render::assets::Ui;
use lastwords::render::head::Head;
use lastwords::render::negotiate::Encoding;
use lastwords::render::page_cache::CachedPage;
use lastwords::render::pool::{PoolOptions, RendererPool};
use lastwords::render::props::request_json;
use lastwords::render::shell;

/// How many phrases the `/words` page lists.
const PHRASES: usize = 200;
/// Renders before timing starts, so the engine's caches and allocator settle.
const WARM_UP: usize = 20;
/// Timed runs of each measurement.
const RUNS: usize = 200;
/// Fixed, so every run of the benchmark renders the same list.
const SEED: u64 = 0x1a57_3055_d1a0_5a75;

/// The golden render requests; the benchmark keeps their shape and swaps the phrases.
const GOLDEN_WORDS: &str = include_str!("../tests/golden/words.json");
const GOLDEN_HOME: &str = include_str!("../tests/golden/home.json");

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let phrases = generate_phrases(PHRASES, SEED);
    match (args.next().as_deref(), args.next(), args.next()) {
        (None, _, _) => bench(phrases),
        (Some("--write-phrases"), Some(file), None) => write_phrases(&phrases, file.into()),
        _ => bail!("usage: render_bench [--write-phrases FILE]"),
    }
}

fn write_phrases(phrases: &[Phrase], file: PathBuf) -> anyhow::Result<()> {
    let json = serde_json::to_string_pretty(phrases)?;
    std::fs::write(&file, json).with_context(|| format!("cannot write {}", file.display()))
}

fn bench(phrases: Vec<Phrase>) -> anyhow::Result<()> {
    let mut ui = Ui::embedded().map_err(|message| anyhow!(message))?;
    if let Some(path) = std::env::var_os("RENDER_BENCH_BUNDLE") {
        let source = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read RENDER_BENCH_BUNDLE={}", path.display()))?;
        ui.server_bundle = source.into();
    }
    let words = words_request(phrases)?;
    let empty_words = words_request(Vec::new())?;
    let request = words.to_string();
    let props_value = &words["props"];
    let props = &props_value.to_string();
    println!(
        "words request: {PHRASES} phrases, {} bytes of JSON; {WARM_UP} warm-up runs, then {RUNS} timed",
        request.len()
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let pool = RendererPool::start(
        ui.server_bundle.clone(),
        PoolOptions {
            threads: 1,
            timeout: Duration::from_secs(5),
            queue: 4,
        },
    )?;
    let render = |request: String| runtime.block_on(pool.render(&ui.server_bundle, request));

    let body = render(request.clone())?;
    let html = shell::document(&ui.manifest, &words_head(), &body, props)?;
    let page = CachedPage::new(html.clone());
    println!(
        "words page: {} bytes of React markup, {} bytes of HTML, {} gzip, {} br",
        body.len(),
        page.html.len(),
        page.encode(Encoding::Gzip).len(),
        page.encode(Encoding::Brotli).len()
    );

    section("cache miss, one renderer thread");
    report(
        &format!("render words ({PHRASES} phrases)"),
        measure(|| render(request.clone()).map(drop))?,
    );
    report(
        "shell words (askama document)",
        measure(|| shell::document(&ui.manifest, &words_head(), &body, props).map(drop))?,
    );
    for (label, encoding) in [
        ("ETag (CachedPage::new)", Encoding::Identity),
        ("ETag and gzip", Encoding::Gzip),
        ("ETag and brotli", Encoding::Brotli),
    ] {
        report(
            &format!("compress words: {label}"),
            measure(|| {
                drop(CachedPage::new(html.clone()).encode(encoding));
                Ok::<_, anyhow::Error>(())
            })?,
        );
    }
    // What a browser's miss costs: the request JSON, the render, the shell, the ETag
    // and the one encoding it asked for (each other encoding is made when first asked).
    report(
        &format!("page words ({PHRASES} phrases, render + shell + brotli)"),
        measure(|| {
            let props = serde_json::value::to_raw_value(props_value)?;
            let body = render(request_json("words", &props)?)?;
            let html = shell::document(&ui.manifest, &words_head(), &body, props.get())?;
            drop(CachedPage::new(html).encode(Encoding::Brotli));
            Ok::<_, anyhow::Error>(())
        })?,
    );
    report(
        "render words (0 phrases)",
        measure(|| render(empty_words.to_string()).map(drop))?,
    );
    report(
        "render home",
        measure(|| render(GOLDEN_HOME.to_owned()).map(drop))?,
    );
    drop(pool);

    section("inside one engine, no pool (where a render's time goes)");
    let inside = std::thread::spawn(move || engine_breakdown(ui.server_bundle, request))
        .join()
        .map_err(|_| anyhow!("the engine thread panicked"))??;
    for (label, mean) in inside {
        println!("{label}: mean {} ms", millis(mean));
    }
    Ok(())
}

/// The golden `words` request with the first page of `phrases` and an empty check, as
/// `pages::words` cuts it.
fn words_request(phrases: Vec<Phrase>) -> anyhow::Result<serde_json::Value> {
    let mut request: serde_json::Value = serde_json::from_str(GOLDEN_WORDS)?;
    let snapshot = Snapshot {
        version: 7,
        list: PhraseList::from_phrases(phrases),
        loaded: true,
    };
    let first = PageRequest::parse(None, None, None)?;
    let page = PhrasePage::cut(&snapshot, &first, PAGE_SIZE);
    let props = request
        .get_mut("props")
        .and_then(|props| props.as_object_mut())
        .context("the golden words request has no props object")?;
    props.insert("phrases".into(), serde_json::to_value(&page.phrases)?);
    props.insert("count".into(), page.count.into());
    props.insert("next".into(), serde_json::to_value(&page.next)?);
    props.insert("prev".into(), serde_json::Value::Null);
    props.insert("query".into(), "".into());
    props.insert(
        "check".into(),
        serde_json::to_value(Check::new("", &snapshot))?,
    );
    Ok(request)
}

/// The head `pages::words` builds, with the default product name.
fn words_head() -> Head {
    Head {
        title: "Already-minted Last Words — Dinos".into(),
        description: "Every Last Words already minted by the Dinos community, and a checker to see whether yours is still free.".into(),
        canonical: "https://dinos.example/words".into(),
        indexable: true,
        image: "https://dinos.example/og.png".into(),
        image_alt: lastwords::site::PREVIEW_IMAGE_ALT.into(),
        feed: None,
        structured_data: None,
        prev: None,
        next: None,
    }
}

/// Times `run`: [`WARM_UP`] untimed runs, then [`RUNS`] timed ones.
fn measure<E>(mut run: impl FnMut() -> Result<(), E>) -> Result<Vec<Duration>, E> {
    for _ in 0..WARM_UP {
        run()?;
    }
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        run()?;
        times.push(started.elapsed());
    }
    Ok(times)
}

fn section(title: &str) {
    println!("\n-- {title}");
}

fn report(label: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |fraction: f64| {
        let rank = ((times.len() as f64 * fraction).ceil() as usize).clamp(1, times.len());
        times[rank - 1]
    };
    let mean = times.iter().sum::<Duration>() / times.len().max(1) as u32;
    println!(
        "{label}: p50 {} ms, p99 {} ms, mean {} ms",
        millis(at(0.50)),
        millis(at(0.99)),
        millis(mean)
    );
}

fn millis(duration: Duration) -> String {
    let ms = duration.as_secs_f64() * 1000.0;
    if ms < 1.0 {
        format!("{ms:.2}")
    } else {
        format!("{ms:.1}")
    }
}

/// Times, inside one engine with the bundle loaded, the request's `JSON.parse` and the
/// bundle's whole `render` (parse, checks and `renderToString`), each as a loop of
/// [`RUNS`] in one script so no Rust-to-JS crossing is counted; then the calls the
/// pool's engine makes for one render (copy the request in, call `render`, copy the
/// markup out), each timed apart. The pool's figure minus these is the queue's.
fn engine_breakdown(
    bundle: std::sync::Arc<str>,
    request: String,
) -> anyhow::Result<Vec<(&'static str, Duration)>> {
    let mut runtime = JsRuntime::new(RuntimeOptions::default());
    runtime.execute_script("server.js", bundle)?;
    runtime.execute_script(
        "<request>",
        format!(
            "globalThis.__benchRequest = {};",
            serde_json::to_string(&request)?
        ),
    )?;
    let mut in_script = |body: &str| -> anyhow::Result<Duration> {
        let script = format!(
            "(() => {{ let out; for (let i = 0; i < {WARM_UP}; i++) {{ out = {body}; }} return typeof out; }})()"
        );
        runtime.execute_script("<warm-up>", script)?;
        let script = format!(
            "(() => {{ let out; for (let i = 0; i < {RUNS}; i++) {{ out = {body}; }} return typeof out; }})()"
        );
        let started = Instant::now();
        runtime.execute_script("<timed>", script)?;
        Ok(started.elapsed() / RUNS as u32)
    };
    let parse = in_script("JSON.parse(globalThis.__benchRequest)")?;
    let render_in_script = in_script("globalThis.__lastwords.render(globalThis.__benchRequest)")?;

    let render = {
        let value = runtime.execute_script("<lookup>", "globalThis.__lastwords.render")?;
        deno_core::scope!(scope, &mut runtime);
        let local = v8::Local::new(scope, value);
        let function = v8::Local::<v8::Function>::try_from(local)
            .map_err(|_| anyhow!("the bundle does not define __lastwords.render"))?;
        v8::Global::new(scope, function)
    };
    let (mut copy_in, mut call, mut copy_out) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for run in 0..WARM_UP + RUNS {
        deno_core::scope!(scope, &mut runtime);
        let started = Instant::now();
        let argument =
            v8::String::new(scope, &request).context("the request is too large for the engine")?;
        let copied_in = Instant::now();
        let function = v8::Local::new(scope, &render);
        let receiver = v8::undefined(scope).into();
        let html = function
            .call(scope, receiver, &[argument.into()])
            .context("the render threw")?;
        let called = Instant::now();
        drop(html.to_rust_string_lossy(scope));
        let copied_out = Instant::now();
        if run >= WARM_UP {
            copy_in += copied_in - started;
            call += called - copied_in;
            copy_out += copied_out - called;
        }
    }
    let runs = RUNS as u32;
    Ok(vec![
        ("JSON.parse of the words request, in a script", parse),
        (
            "__lastwords.render of the words request (parse + renderToString), in a script",
            render_in_script,
        ),
        (
            "copying the request into the engine (v8::String::new)",
            copy_in / runs,
        ),
        (
            "__lastwords.render called from Rust, as the pool's engine calls it",
            call / runs,
        ),
        (
            "copying the markup out of the engine (to_rust_string_lossy)",
            copy_out / runs,
        ),
    ])
}

/// `count` phrases like the ones people mint: one to four upper-case words of 5 to 20
/// characters in all, sometimes ending in `!` or `?`, by a name that is sometimes not
/// ASCII; ids of 20 letters and digits like Firestore's. Words are unique, as minting
/// requires.
fn generate_phrases(count: usize, seed: u64) -> Vec<Phrase> {
    // Whitespace-separated, so the lists stay compact under rustfmt.
    const WORDS: &str = "\
        SEE YOU LATER GOODBYE WORLD METEOR COMET SKY FALLING RUN HIDE TOO BIG TO FAIL \
        MORE TREES PLEASE GOOD LUCK I SHOULD HAVE FLOWN WAS THAT A STAR ROAR FOREVER \
        EXTINCT NEVER AGAIN SAVE THE PLANET OCEANS CLIMATE HOT IN HERE WHAT LIGHT LOOK \
        UP BYE EGGS MY TAIL STOMP JURASSIC LOVE ALWAYS ONE LAST DANCE NOT TODAY FOSSIL \
        FUEL ASTEROID IMPACT WISH ME BONES REMEMBER US GREEN FERNS SUNSET HELLO";
    const NAMES: &str = "\
        Rex Trixie Ptera Bronto Stego Anky Raptor Dippy Sue Spino Alice Bob Carmen \
        Dmitri Émile Zoë Søren Aiko Kwame Lucía Mateo Nadia Oluwaseun Priya Quentin \
        Rosa Siobhán Tomás Uma Viktor Wen Xavier Yara Zainab jurassic_fan dino4ever \
        MeteorWatcher";
    const ID_CHARACTERS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let names: Vec<&str> = NAMES.split_whitespace().collect();
    let mut random = SplitMix64(seed);
    let mut taken = std::collections::HashSet::new();
    let mut phrases = Vec::with_capacity(count);
    while phrases.len() < count {
        let parts = 1 + random.below(4);
        let mut word = (0..parts)
            .map(|_| words[random.below(words.len())])
            .collect::<Vec<_>>()
            .join(" ");
        match random.below(10) {
            0 => word.push('!'),
            1 => word.push('?'),
            _ => {}
        }
        if !(5..=20).contains(&word.len()) || !taken.insert(word.clone()) {
            continue;
        }
        let id = (0..20)
            .map(|_| char::from(ID_CHARACTERS[random.below(ID_CHARACTERS.len())]))
            .collect();
        let name = names[random.below(names.len())].to_owned();
        let created = phrases.len() as u64 + 1;
        phrases.push(Phrase {
            id,
            word,
            name,
            created,
            edited: 0,
        });
    }
    phrases
}

/// A small seeded generator, so the phrase list is the same on every run and machine.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (the tiny modulo bias does not matter here).
    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}
