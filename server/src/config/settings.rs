//! The raw layer: every setting as the operator gave it (flag, environment variable or
//! TOML key), before defaults and checks.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ConfigError, Environment};

/// Declares every setting once: its type, default as the docs show it, environment
/// variable, value name and doc. The flag (`--data-dir`) and the TOML key (`data_dir`) are its
/// name; the struct, the layering ([`Settings::or`]) and the reference table
/// ([`reference_table`]) are made from this list.
macro_rules! settings {
    ($(
        $field:ident: $ty:ty = $default:literal, env $env:literal, value $value:literal
            $(, split $separator:literal)?,
        $doc:literal;
    )+) => {
        /// The settings an operator may give, each as a flag, an environment variable, or
        /// a key of the same name (with underscores) in the TOML file named by `--config`.
        #[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Settings {
            $(
                #[doc = $doc]
                #[arg(
                    long,
                    global = true,
                    env = $env,
                    value_name = $value,
                    help = concat!($doc, " [default: ", $default, "]")
                    $(, value_delimiter = $separator)?
                )]
                pub $field: Option<$ty>,
            )+
        }

        impl Settings {
            /// Fills every key unset here from `lower`.
            pub fn or(self, lower: Settings) -> Settings {
                Settings {
                    $($field: self.$field.or(lower.$field),)+
                }
            }
        }

        /// Every setting as the reference table shows it, in declaration order.
        pub const DECLARED: &[Declared] = &[
            $(Declared {
                key: stringify!($field),
                env: $env,
                default: $default,
                doc: $doc,
            },)+
        ];
    };
}

/// One declared setting, for the reference table.
#[derive(Debug)]
pub struct Declared {
    /// The TOML key; the flag is the key with dashes.
    pub key: &'static str,
    pub env: &'static str,
    pub default: &'static str,
    pub doc: &'static str,
}

settings! {
    host: IpAddr = "127.0.0.1", env "HOST", value "ADDR",
        "Address to listen on";

    port: u16 = "8080", env "PORT", value "PORT",
        "Port to listen on";

    data_dir: PathBuf = "./data", env "LASTWORDS_DATA_DIR", value "DIR",
        "Folder of the embedded store's database (phrases.sqlite3) and of the list saved from \
         Firestore";

    product_name: String = "Words", env "LASTWORDS_PRODUCT_NAME", value "NAME",
        "Product name: names the /words route, the heading \"Already-minted Last Words\" and \
         the hashtag #myLastWords: one capitalised word, not one of the site's own paths \
         (Api, Assets, Sitemaps, Healthz, Readyz, Metrics)";

    public_url: String = "http://<host>:<port> (localhost for 0.0.0.0)", env "LASTWORDS_PUBLIC_URL", value "URL",
        "Public base URL, for canonical links, Open Graph tags and the sitemap: an origin \
         only, and https:// in production (which sends HSTS)";

    chat_url: String = "https://discord.com/invite/dinos", env "LASTWORDS_CHAT_URL", value "URL",
        "Invite link of the community chat";

    social_url: String = "https://twitter.com/dinos", env "LASTWORDS_SOCIAL_URL", value "URL",
        "Profile on the social network; a phrase page's post link opens its web intent (X's for \
         a network without one)";

    marketplace_url: String = "https://opensea.io/collection/dinos", env "LASTWORDS_MARKETPLACE_URL", value "URL",
        "The collection on the NFT marketplace";

    blog_url: String = "https://medium.com/@dinos", env "LASTWORDS_BLOG_URL", value "URL",
        "The blog";

    press_email: String = "press@example.com", env "LASTWORDS_PRESS_EMAIL", value "EMAIL",
        "Address for press inquiries";

    env: Environment = "staging", env "LASTWORDS_ENV", value "ENV",
        "Deployment profile: staging (readable logs) or production (JSON logs, HSTS; refuses to \
         start without --public-url and a Firestore project unless --store embedded)";

    render_threads: usize = "number of cores, at most 64", env "LASTWORDS_RENDER_THREADS", value "N",
        "Threads that render React, each with its own JS engine (1 to 64)";

    render_timeout_ms: u64 = "2000", env "LASTWORDS_RENDER_TIMEOUT_MS", value "MS",
        "A render running longer than this many milliseconds is stopped and its engine rebuilt";

    render_queue: usize = "256", env "LASTWORDS_RENDER_QUEUE", value "N",
        "Renders that may wait for a free renderer before requests get 503 with Retry-After \
         (1 to 65536)";

    ui_dir: PathBuf = "none", env "LASTWORDS_UI_DIR", value "DIR",
        "Development: a UI build's folder (what ui/dev.mjs or ui/build.mjs writes) to render \
         pages and serve /assets/ from instead of the build in the binary, taken up again \
         without a restart whenever its manifest.json changes (scripts/dev sets it); the \
         binary's build still gives the icons and the cards' art. Refused in production";

    firestore_project: String = "none", env "LASTWORDS_FIRESTORE_PROJECT", value "ID",
        "Google Cloud project whose Firestore holds the phrases; without it the embedded \
         store is used. FIRESTORE_EMULATOR_HOST is honoured";

    firestore_database: String = "(default)", env "LASTWORDS_FIRESTORE_DATABASE", value "ID",
        "Firestore database id";

    firestore_collection: String = "words", env "LASTWORDS_FIRESTORE_COLLECTION", value "NAME",
        "Firestore collection of phrases (fields `word` and `name`)";

    store: StoreKind = "auto", env "LASTWORDS_STORE", value "KIND",
        "Where phrases live: auto (Firestore when a project is set, else embedded), embedded \
         or firestore";

    allowed_origins: Vec<String> = "the public URL's origin (and 127.0.0.1's, [::1]'s for 0.0.0.0)", env "LASTWORDS_ALLOWED_ORIGINS", value "ORIGINS", split ',',
        "Origins allowed to open the live WebSocket, comma-separated (others get 403)";

    max_sockets: usize = "15000", env "LASTWORDS_MAX_SOCKETS", value "N",
        "Live WebSockets one host holds before answering 503";

    max_sockets_per_ip: usize = "32", env "LASTWORDS_MAX_SOCKETS_PER_IP", value "N",
        "Live WebSockets one client address may hold (behind a proxy, set --trusted-proxies); \
         past it the upgrade gets 429, as a rate limit's; 0 for no limit";

    max_connections: usize = "nine tenths of the open-file limit, less 64", env "LASTWORDS_MAX_CONNECTIONS", value "N",
        "TCP connections held at once, WebSockets included; past it only /healthz, /readyz \
         and /metrics are answered and everything else gets 503";

    max_connections_per_ip: usize = "256", env "LASTWORDS_MAX_CONNECTIONS_PER_IP", value "N",
        "TCP connections one client address (an IPv6 one by its /64) may hold at once, \
         so one cannot take them all; a trusted proxy's are not counted (set \
         --trusted-proxies behind one); past it a connection is closed unanswered; 0 for no limit";

    listen_backlog: u32 = "4096", env "LASTWORDS_LISTEN_BACKLOG", value "N",
        "Connections the kernel queues before the host accepts them, for reconnect storms; \
         capped by net.core.somaxconn";

    max_concurrent_requests: usize = "1024", env "LASTWORDS_MAX_CONCURRENT_REQUESTS", value "N",
        "HTTP requests served at once; more wait in the kernel's queue";

    request_timeout_s: u64 = "15", env "LASTWORDS_REQUEST_TIMEOUT_S", value "SECONDS",
        "A request not answered within this many seconds gets 408; a connection whose request has \
         not all arrived by then (slow or idle) is closed";

    trusted_proxies: Vec<String> = "none", env "LASTWORDS_TRUSTED_PROXIES", value "RANGES", split ',',
        "Addresses and CIDR ranges of the proxies in front of the host (load balancer, \
         ingress), comma-separated: from these peers the client's address is read from \
         X-Forwarded-For (or Forwarded), for the per-address caps, the rate limit and the \
         logs; from any other peer those headers are ignored";

    metrics_from: Vec<String> = "loopback and private networks", env "LASTWORDS_METRICS_FROM", value "RANGES", split ',',
        "Client addresses and CIDR ranges that may read /metrics, comma-separated, or any: \
         by default loopback and the private networks (127.0.0.0/8, ::1, 10.0.0.0/8, \
         172.16.0.0/12, 192.168.0.0/16, fc00::/7), which Prometheus scrapes each replica \
         from; a request that came through a proxy (X-Forwarded-For, Forwarded or X-Real-IP) \
         is refused unless any, and the others get 403";

    rate_limit_per_s: u32 = "20", env "LASTWORDS_RATE_LIMIT_PER_S", value "N",
        "Requests a second one client address may make on average (probes and /metrics are \
         exempt); past it, 429 with Retry-After; 0 for no limit";

    rate_limit_burst: u32 = "100", env "LASTWORDS_RATE_LIMIT_BURST", value "N",
        "Requests one client address may make at once before the rate applies";

    drain_s: u64 = "3 in production, 0 in staging", env "LASTWORDS_DRAIN_S", value "SECONDS",
        "On SIGTERM, how long /readyz answers 503 while the host still serves, so the load \
         balancer stops sending it visitors before it stops accepting (a second signal ends \
         it)";

    shutdown_timeout_s: u64 = "5", env "LASTWORDS_SHUTDOWN_TIMEOUT_S", value "SECONDS",
        "On SIGTERM, after the drain, how long in-flight requests may take to finish";

    ready_stale_after_s: u64 = "30", env "LASTWORDS_READY_STALE_AFTER_S", value "SECONDS",
        "/readyz answers 503 once the phrase feed has been disconnected this long";
}

/// Where phrases live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreKind {
    /// Firestore when a project is configured, else the embedded store.
    #[default]
    Auto,
    /// The SQLite database in the data folder, even when a Firestore project is set.
    Embedded,
    /// Firestore; a project must be configured.
    Firestore,
}

impl Settings {
    /// Reads a TOML file holding the same keys as the flags.
    pub fn from_file(path: &Path) -> Result<Self, ConfigError> {
        let text = read_small_file(path).map_err(|unread| {
            let invalid = |what| std::io::Error::new(std::io::ErrorKind::InvalidInput, what);
            ConfigError::ReadFile {
                path: path.to_owned(),
                source: match unread {
                    Unread::NotAFile => invalid("not a regular file"),
                    Unread::TooBig => invalid("over 1 MiB, far more than any settings file"),
                    Unread::Io(error) => error,
                },
            }
        })?;
        toml::from_str(&text).map_err(|source| ConfigError::ParseFile {
            path: path.to_owned(),
            source: Box::new(source),
        })
    }
}

/// Why a small file (of settings, of credentials) was not read.
pub(super) enum Unread {
    NotAFile,
    TooBig,
    Io(std::io::Error),
}

/// The text of `path`, a regular file of at most 1 MiB, far past any file of settings or
/// credentials: a FIFO with no writer waited for ever, and `/dev/zero` was read until
/// memory ran out. Looked at before it is opened: opening a FIFO waits for a writer.
pub(super) fn read_small_file(path: &Path) -> Result<String, Unread> {
    use std::io::Read as _;
    const MOST: u64 = 1 << 20;
    if !std::fs::metadata(path).map_err(Unread::Io)?.is_file() {
        return Err(Unread::NotAFile);
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MOST + 1).read_to_string(&mut text))
        .map_err(Unread::Io)?;
    if text.len() as u64 > MOST {
        return Err(Unread::TooBig);
    }
    Ok(text)
}

/// The configuration reference of docs/operations.md: a row a setting.
pub fn reference_table() -> String {
    let mut table = String::from(
        "| flag | environment | TOML key | default | meaning |\n|---|---|---|---|---|\n",
    );
    for setting in DECLARED {
        // A value is set as code; a description of one ("number of cores") is not.
        let default = match setting.default {
            "none" => "—".to_owned(),
            value if value.contains(' ') => value.to_owned(),
            value => format!("`{value}`"),
        };
        table.push_str(&format!(
            "| `--{}` | `{}` | `{}` | {default} | {} |\n",
            setting.key.replace('_', "-"),
            setting.env,
            setting.key,
            setting.doc,
        ));
    }
    table
}
