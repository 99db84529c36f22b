//! From [`Settings`] to [`Config`]: defaults filled in and every value checked, one short
//! function per group of [`Config`]. The groups run in a fixed order, so with several bad
//! values the same one is always reported.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use url::Url;

use super::settings::{Unread, read_small_file};
use super::{Config, ConfigError, Environment, HttpLimits, Site, SiteLinks, Store, StoreKind};
use super::{FirestoreSettings, PoolOptions, SocketCaps};
use super::{Settings, invalid, listener_site, origin_of, parse_http_url};

impl Settings {
    /// Applies defaults and checks every value.
    pub fn resolve(self) -> Result<Config, ConfigError> {
        let environment = self.env.unwrap_or_default();
        let host = self.host.unwrap_or(IpAddr::from([127, 0, 0, 1]));
        let addr = SocketAddr::new(host, self.port.unwrap_or(8080));
        Ok(Config {
            site: site(&self, addr, environment)?,
            render: render(
                self.render_threads,
                self.render_timeout_ms,
                self.render_queue,
            )?,
            store: store(&self, environment)?,
            sockets: sockets(&self)?,
            http: http(&self, addr)?,
            ui_dir: ui_dir(self.ui_dir.clone(), environment)?,
            environment,
        })
    }
}

/// A folder to take the UI from, in development only: production serves the build in
/// the binary, the one its image was tested with.
fn ui_dir(dir: Option<PathBuf>, environment: Environment) -> Result<Option<PathBuf>, ConfigError> {
    match dir {
        Some(dir) if environment == Environment::Production => Err(invalid(
            "ui_dir",
            &dir.display().to_string(),
            "a UI folder is for development; production serves the UI built into the binary",
        )),
        dir => Ok(dir),
    }
}

fn site(
    settings: &Settings,
    addr: SocketAddr,
    environment: Environment,
) -> Result<Site, ConfigError> {
    let product_name = product_name(settings.product_name.clone())?;
    let public_url = public_url(settings.public_url.clone(), addr)?;
    // Production sends HSTS, which browsers take only over HTTPS, and every canonical link
    // and sitemap entry starts with this: an http:// one is a typo, or TLS is missing.
    if environment == Environment::Production
        && settings.public_url.is_some()
        && public_url.scheme() != "https"
    {
        return Err(invalid(
            "public_url",
            public_url.as_str(),
            "production is served over HTTPS (it sends Strict-Transport-Security, and every page's links start with this): give the https:// address visitors use",
        ));
    }
    let links = links(
        settings.chat_url.clone(),
        settings.social_url.clone(),
        settings.marketplace_url.clone(),
        settings.blog_url.clone(),
    )?;
    let press_email = press_email(settings.press_email.clone())?;
    let allowed_origins = match (&settings.allowed_origins, &settings.public_url) {
        (None, None) => listener_site(addr).1,
        _ => allowed_origins(settings.allowed_origins.clone(), &public_url)?,
    };
    Ok(Site {
        product_name,
        public_url,
        public_url_follows_listener: settings.public_url.is_none(),
        allowed_origins,
        links,
        press_email,
    })
}

fn store(settings: &Settings, environment: Environment) -> Result<Store, ConfigError> {
    let project = firestore_project(
        settings.store.unwrap_or_default(),
        settings.firestore_project.clone(),
        environment,
        settings.public_url.is_some(),
    )?;
    let firestore = firestore(
        project,
        settings.firestore_database.clone(),
        settings.firestore_collection.clone(),
    )?;
    if settings
        .data_dir
        .as_ref()
        .is_some_and(|dir| dir.as_os_str().is_empty())
    {
        return Err(invalid(
            "data_dir",
            "",
            "is empty: name a folder (a relative one is taken from where the command starts), or leave it unset for ./data",
        ));
    }
    Ok(Store {
        data_dir: settings
            .data_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from("./data")),
        firestore,
        ready_stale_after: seconds(
            "ready_stale_after_s",
            settings.ready_stale_after_s,
            30,
            86_400,
        )?,
    })
}

fn sockets(settings: &Settings) -> Result<SocketCaps, ConfigError> {
    let max = positive(
        "max_sockets",
        settings.max_sockets.map(|n| n as u64),
        15_000,
        1_000_000,
    )? as usize;
    Ok(SocketCaps {
        max,
        max_per_ip: settings.max_sockets_per_ip.unwrap_or(32),
    })
}

fn http(settings: &Settings, addr: SocketAddr) -> Result<HttpLimits, ConfigError> {
    let max_connections = match settings.max_connections {
        Some(n) => Some(positive("max_connections", Some(n as u64), 1, 10_000_000)? as usize),
        None => None,
    };
    let listen_backlog = positive(
        "listen_backlog",
        settings.listen_backlog.map(u64::from),
        4096,
        65_535,
    )? as u32;
    let max_concurrent_requests = positive(
        "max_concurrent_requests",
        settings.max_concurrent_requests.map(|n| n as u64),
        1024,
        1_000_000,
    )? as usize;
    Ok(HttpLimits {
        addr,
        listen_backlog,
        max_connections,
        max_connections_per_ip: settings.max_connections_per_ip.unwrap_or(256),
        max_concurrent_requests,
        request_timeout: seconds("request_timeout_s", settings.request_timeout_s, 15, 3600)?,
        shutdown_timeout: seconds("shutdown_timeout_s", settings.shutdown_timeout_s, 5, 3600)?,
        drain: drain(settings)?,
        trusted_proxies: crate::net::client::TrustedProxies::parse(
            settings.trusted_proxies.as_deref().unwrap_or_default(),
        )
        .map_err(|reason| {
            invalid(
                "trusted_proxies",
                &settings
                    .trusted_proxies
                    .clone()
                    .unwrap_or_default()
                    .join(","),
                &reason,
            )
        })?,
        metrics_from: match settings.metrics_from.as_deref() {
            None => crate::net::client::MetricsReaders::private(),
            Some(entries) => crate::net::client::MetricsReaders::parse(entries)
                .map_err(|reason| invalid("metrics_from", &entries.join(","), &reason))?,
        },
        rate: rate(settings)?,
    })
}

/// The drain on SIGTERM: 0 to 3600 s; by default 3 s in production (behind a load
/// balancer: with the 5 s shutdown timeout and 2 s for the sockets' close frames, a
/// stop fits Cloud Run's 10 s), none in staging (a developer's Ctrl-C).
fn drain(settings: &Settings) -> Result<Duration, ConfigError> {
    let default = match settings.env.unwrap_or_default() {
        Environment::Production => 3,
        Environment::Staging => 0,
    };
    let seconds = settings.drain_s.unwrap_or(default);
    if seconds > 3600 {
        return Err(invalid(
            "drain_s",
            &seconds.to_string(),
            "use 0 to 3600 seconds",
        ));
    }
    Ok(Duration::from_secs(seconds))
}

fn rate(settings: &Settings) -> Result<Option<crate::net::rate_limit::Rate>, ConfigError> {
    let per_second = settings.rate_limit_per_s.unwrap_or(20);
    let burst = settings.rate_limit_burst.unwrap_or(100);
    let Some(per_second) = std::num::NonZeroU32::new(per_second) else {
        return Ok(None);
    };
    let Some(burst) = std::num::NonZeroU32::new(burst) else {
        return Err(invalid(
            "rate_limit_burst",
            "0",
            "use at least 1 (turn the limit off with rate_limit_per_s = 0)",
        ));
    };
    Ok(Some(crate::net::rate_limit::Rate { per_second, burst }))
}

fn product_name(given: Option<String>) -> Result<String, ConfigError> {
    let product_name = given.unwrap_or_else(|| "Words".into());
    if product_name.is_empty()
        || !product_name.chars().all(|c| c.is_ascii_alphanumeric())
        || !product_name.starts_with(|c: char| c.is_ascii_uppercase())
    {
        return Err(invalid(
            "product_name",
            &product_name,
            "use one capitalised word of ASCII letters and digits, such as Words",
        ));
    }
    let path = product_name.to_lowercase();
    if SITE_PATHS.contains(&path.as_str()) {
        return Err(invalid(
            "product_name",
            &product_name,
            &format!("/{path}/ is the site's own; choose another word, such as Words"),
        ));
    }
    Ok(product_name)
}

/// The first path segments the router serves besides the phrases' (`routes::router`):
/// a product name among them would put the phrase pages on top of them.
pub const SITE_PATHS: [&str; 6] = ["api", "assets", "sitemaps", "healthz", "readyz", "metrics"];

/// The given origin, or the listening address when none is given.
fn public_url(given: Option<String>, addr: SocketAddr) -> Result<Url, ConfigError> {
    let public_url = match given {
        Some(raw) => parse_http_url("public_url", &raw)?,
        None => listener_site(addr).0,
    };
    if !is_origin(&public_url) {
        return Err(invalid(
            "public_url",
            public_url.as_str(),
            "give only the origin, such as https://dinos.example: every page's links start with it",
        ));
    }
    Ok(public_url)
}

/// Scheme, host and port, and nothing else: no path, query or fragment, which would end
/// up inside every link made from it, and no user or password, which would be shown in them.
fn is_origin(url: &Url) -> bool {
    url.path() == "/"
        && url.query().is_none()
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none()
}

fn links(
    chat: Option<String>,
    social: Option<String>,
    marketplace: Option<String>,
    blog: Option<String>,
) -> Result<SiteLinks, ConfigError> {
    let link = |key, value: Option<String>, default: &str| -> Result<String, ConfigError> {
        let raw = value.unwrap_or_else(|| default.into());
        parse_http_url(key, &raw).map(|_| raw)
    };
    Ok(SiteLinks {
        chat: link("chat_url", chat, "https://discord.com/invite/dinos")?,
        social: link("social_url", social, "https://twitter.com/dinos")?,
        marketplace: link(
            "marketplace_url",
            marketplace,
            "https://opensea.io/collection/dinos",
        )?,
        blog: link("blog_url", blog, "https://medium.com/@dinos")?,
    })
}

fn press_email(given: Option<String>) -> Result<String, ConfigError> {
    let press_email = given.unwrap_or_else(|| "press@example.com".into());
    let looks_like_email = press_email
        .split_once('@')
        .is_some_and(|(user, domain)| !user.is_empty() && domain.contains('.'))
        && !press_email.contains(|c: char| c.is_whitespace() || "<>\"?&".contains(c));
    if !looks_like_email {
        return Err(invalid(
            "press_email",
            &press_email,
            "expected an address such as press@dinos.example",
        ));
    }
    Ok(press_email)
}

/// The most renderer threads a host runs.
const MAX_RENDER_THREADS: usize = 64;
const MAX_RENDER_QUEUE: usize = 65_536;

fn render(
    threads: Option<usize>,
    timeout_ms: Option<u64>,
    queue: Option<usize>,
) -> Result<PoolOptions, ConfigError> {
    let threads = match threads {
        Some(0) => return Err(invalid("render_threads", "0", "at least 1 is needed")),
        // Each is a JS engine with its own heap: a typo of a few zeros would not start
        // a host, but run it out of memory.
        Some(n) if n > MAX_RENDER_THREADS => {
            return Err(invalid(
                "render_threads",
                &n.to_string(),
                "expected 1 to 64 (each is a JS engine of its own, some megabytes)",
            ));
        }
        Some(n) => n,
        None => std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(MAX_RENDER_THREADS),
    };
    let timeout_ms = timeout_ms.unwrap_or(2000);
    if !(10..=60_000).contains(&timeout_ms) {
        return Err(invalid(
            "render_timeout_ms",
            &timeout_ms.to_string(),
            "expected 10 to 60000 milliseconds",
        ));
    }
    let queue = queue.unwrap_or(256);
    // Its slots are allocated at start; past a few thousand a request waits longer than
    // a render may take, and a typo of a few zeros would take the memory of the machine.
    if !(1..=MAX_RENDER_QUEUE).contains(&queue) {
        return Err(invalid(
            "render_queue",
            &queue.to_string(),
            "expected 1 to 65536 (renders waiting for a free renderer; each is a slot held from the start)",
        ));
    }
    Ok(PoolOptions {
        threads,
        timeout: Duration::from_millis(timeout_ms),
        queue,
    })
}

/// The Firestore project to read phrases from, if any: production must name one (and a
/// public URL) unless the embedded store is chosen explicitly.
fn firestore_project(
    store: StoreKind,
    project: Option<String>,
    environment: Environment,
    public_url_given: bool,
) -> Result<Option<String>, ConfigError> {
    let project = match (store, project) {
        (StoreKind::Embedded, _) => None,
        (StoreKind::Firestore, None) => {
            return Err(invalid(
                "store",
                "firestore",
                "set firestore_project (LASTWORDS_FIRESTORE_PROJECT) to the Google Cloud project",
            ));
        }
        (_, project) => project,
    };
    // The Firestore client reads it itself, and retried a name it could not resolve for
    // as long as the host ran.
    if project.is_some()
        && let Some(emulator) = std::env::var_os("FIRESTORE_EMULATOR_HOST")
        && !emulator_address(&emulator.to_string_lossy())
    {
        return Err(invalid(
            "FIRESTORE_EMULATOR_HOST",
            &emulator.to_string_lossy(),
            "expected the host:port of a Firestore emulator, such as 127.0.0.1:8080 or [::1]:8080 (or leave it unset for Firestore itself)",
        ));
    }
    // The client reads the file when it first asks for a token, and a host started with
    // a missing or broken one retried for as long as it ran, saying only that it could
    // not connect.
    if project.is_some()
        && std::env::var_os("FIRESTORE_EMULATOR_HOST").is_none()
        && let Some(path) = std::env::var_os("GOOGLE_APPLICATION_CREDENTIALS")
        && let Err(reason) = credentials_file(std::path::Path::new(&path))
    {
        return Err(invalid(
            "GOOGLE_APPLICATION_CREDENTIALS",
            &path.to_string_lossy(),
            &reason,
        ));
    }
    if environment == Environment::Production {
        if !public_url_given {
            return Err(invalid(
                "public_url",
                "",
                "production needs the public base URL (LASTWORDS_PUBLIC_URL), such as https://dinos.example",
            ));
        }
        if project.is_none() && store != StoreKind::Embedded {
            return Err(invalid(
                "firestore_project",
                "",
                "production reads phrases from Firestore: set LASTWORDS_FIRESTORE_PROJECT, or choose --store embedded explicitly",
            ));
        }
    }
    Ok(project)
}

/// Whether `value` is `host:port`, as the emulator's address is given (the client takes
/// it with `http://` before it too); an IPv6 host in brackets, as in a URL.
fn emulator_address(value: &str) -> bool {
    let address = ["http://", "https://"]
        .iter()
        .find_map(|scheme| value.strip_prefix(scheme))
        .unwrap_or(value);
    address.rsplit_once(':').is_some_and(|(host, port)| {
        let host = match host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
            Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
            None => !host.is_empty() && !host.contains(['/', ' ', ':', '[', ']']),
        };
        host && port.parse::<u16>().is_ok_and(|port| port > 0)
    })
}

/// Why the credentials file cannot be what the Firestore client reads (a service
/// account's or a user's key: a JSON object with its `type`), if it cannot. Only the
/// reason is told: the file holds a private key.
fn credentials_file(path: &std::path::Path) -> Result<(), String> {
    let text = read_small_file(path).map_err(|unread| match unread {
        Unread::NotAFile => "is not a file".to_owned(),
        Unread::TooBig => "is over 1 MiB, far larger than a credentials file".to_owned(),
        Unread::Io(error) => format!("cannot be read: {error}"),
    })?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|error| {
        format!(
            "is not the JSON of a credentials file (line {}, column {})",
            error.line(),
            error.column()
        )
    })?;
    if !json.get("type").is_some_and(serde_json::Value::is_string) {
        return Err("is JSON without the \"type\" a credentials file names (a service account's key, from the console)".into());
    }
    Ok(())
}

/// The origins given, or the public URL's own.
fn allowed_origins(
    given: Option<Vec<String>>,
    public_url: &Url,
) -> Result<Vec<String>, ConfigError> {
    let Some(list) = given else {
        return Ok(vec![origin_of(public_url)]);
    };
    // None allowed would refuse the live feed to every page, the site's own included.
    if list.is_empty() {
        return Err(invalid(
            "allowed_origins",
            "[]",
            "give at least the site's own origin, such as https://dinos.example, or leave the setting out for the public URL's",
        ));
    }
    list.iter()
        .map(|raw| {
            if raw.trim().is_empty() {
                return Err(invalid(
                    "allowed_origins",
                    raw,
                    "an empty origin: give origins such as https://dinos.example, separated by commas",
                ));
            }
            let url = parse_http_url("allowed_origins", raw.trim())?;
            if !is_origin(&url) {
                return Err(invalid(
                    "allowed_origins",
                    raw,
                    "give origins only, such as https://dinos.example",
                ));
            }
            Ok(origin_of(&url))
        })
        .collect()
}

/// `value` (or `default`) seconds, which must be 1 to `max`.
fn seconds(
    key: &'static str,
    value: Option<u64>,
    default: u64,
    max: u64,
) -> Result<Duration, ConfigError> {
    positive(key, value, default, max).map(Duration::from_secs)
}

/// `value` (or `default`), which must be 1 to `max`.
fn positive(
    key: &'static str,
    value: Option<u64>,
    default: u64,
    max: u64,
) -> Result<u64, ConfigError> {
    let value = value.unwrap_or(default);
    if value == 0 || value > max {
        return Err(invalid(
            key,
            &value.to_string(),
            &format!("expected 1 to {max}"),
        ));
    }
    Ok(value)
}

/// How long the Firestore client waits before it reconnects a dropped Listen stream
/// itself. Not a setting: when that does not bring the list back, the supervisor
/// (`store::firestore::follow`) starts over with its own backoff.
const FIRESTORE_RETRY_DELAY: Duration = Duration::from_secs(1);

fn firestore(
    project: Option<String>,
    database: Option<String>,
    collection: Option<String>,
) -> Result<Option<FirestoreSettings>, ConfigError> {
    let Some(project) = project else {
        return Ok(None);
    };
    let database = database.unwrap_or_else(|| "(default)".into());
    let collection = collection.unwrap_or_else(|| "words".into());
    for (key, value) in [
        ("firestore_project", &project),
        ("firestore_database", &database),
        ("firestore_collection", &collection),
    ] {
        if value.is_empty() || value.contains(['/', ' ']) {
            return Err(invalid(
                key,
                value,
                "expected an id without slashes or spaces",
            ));
        }
    }
    Ok(Some(FirestoreSettings {
        project,
        database,
        collection,
        retry_delay: FIRESTORE_RETRY_DELAY,
    }))
}
