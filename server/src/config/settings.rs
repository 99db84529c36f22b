//! The raw layer: every setting as the operator gave it (flag, environment variable or
//! TOML key), before defaults and checks.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{ConfigError, Environment};

/// The settings an operator may give, each as a flag, an environment variable, or a key
/// of the same name (with underscores) in the TOML file named by `--config`.
#[derive(Debug, Clone, Default, clap::Args, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Address to listen on [default: 127.0.0.1]
    #[arg(long, global = true, env = "HOST", value_name = "ADDR")]
    pub host: Option<IpAddr>,

    /// Port to listen on [default: 8080]
    #[arg(long, global = true, env = "PORT")]
    pub port: Option<u16>,

    /// Folder of the embedded store's database (phrases.sqlite3) and of the list saved
    /// from Firestore [default: ./data]
    #[arg(long, global = true, env = "LASTWORDS_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Product name: names the /words route, the heading "Already-minted Last Words"
    /// and the hashtag #myLastWords [default: Words]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_PRODUCT_NAME",
        value_name = "NAME"
    )]
    pub product_name: Option<String>,

    /// Public base URL, for canonical links, Open Graph tags and the sitemap
    /// [default: http://<host>:<port>]
    #[arg(long, global = true, env = "LASTWORDS_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,

    /// Invite link of the community chat [default: https://discord.com/invite/dinos]
    #[arg(long, global = true, env = "LASTWORDS_CHAT_URL", value_name = "URL")]
    pub chat_url: Option<String>,

    /// Profile on the social network [default: https://twitter.com/dinos]
    #[arg(long, global = true, env = "LASTWORDS_SOCIAL_URL", value_name = "URL")]
    pub social_url: Option<String>,

    /// The collection on the NFT marketplace [default: https://opensea.io/collection/dinos]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_MARKETPLACE_URL",
        value_name = "URL"
    )]
    pub marketplace_url: Option<String>,

    /// The blog [default: https://medium.com/@dinos]
    #[arg(long, global = true, env = "LASTWORDS_BLOG_URL", value_name = "URL")]
    pub blog_url: Option<String>,

    /// Address for press inquiries [default: press@example.com]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_PRESS_EMAIL",
        value_name = "EMAIL"
    )]
    pub press_email: Option<String>,

    /// Deployment profile: staging or production [default: staging]
    #[arg(long = "env", global = true, env = "LASTWORDS_ENV", value_name = "ENV")]
    #[serde(rename = "env")]
    pub environment: Option<Environment>,

    /// Threads that render React, each with its own JS engine [default: number of cores]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_RENDER_THREADS",
        value_name = "N"
    )]
    pub render_threads: Option<usize>,

    /// A render running longer than this many milliseconds is stopped [default: 2000]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_RENDER_TIMEOUT_MS",
        value_name = "MS"
    )]
    pub render_timeout_ms: Option<u64>,

    /// Renders that may wait for a free renderer before requests get 503 [default: 256]
    #[arg(long, global = true, env = "LASTWORDS_RENDER_QUEUE", value_name = "N")]
    pub render_queue: Option<usize>,

    /// Google Cloud project whose Firestore holds the phrases; without it the embedded
    /// store is used. FIRESTORE_EMULATOR_HOST is honoured
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_FIRESTORE_PROJECT",
        value_name = "ID"
    )]
    pub firestore_project: Option<String>,

    /// Firestore database id [default: (default)]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_FIRESTORE_DATABASE",
        value_name = "ID"
    )]
    pub firestore_database: Option<String>,

    /// Firestore collection of phrases (fields `word` and `name`) [default: words]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_FIRESTORE_COLLECTION",
        value_name = "NAME"
    )]
    pub firestore_collection: Option<String>,

    /// Where phrases live: auto (Firestore when a project is set, else embedded),
    /// embedded or firestore [default: auto]
    #[arg(long, global = true, env = "LASTWORDS_STORE", value_name = "KIND")]
    pub store: Option<StoreKind>,

    /// Origins allowed to open the live WebSocket, comma-separated
    /// [default: the public URL's origin]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_ALLOWED_ORIGINS",
        value_name = "ORIGINS",
        value_delimiter = ','
    )]
    pub allowed_origins: Option<Vec<String>>,

    /// Live WebSockets one host holds before answering 503 [default: 15000]
    #[arg(long, global = true, env = "LASTWORDS_MAX_SOCKETS", value_name = "N")]
    pub max_sockets: Option<usize>,

    /// Live WebSockets one client address may hold; 0 for no limit, which suits a
    /// host behind a proxy that hides client addresses [default: 32]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_MAX_SOCKETS_PER_IP",
        value_name = "N"
    )]
    pub max_sockets_per_ip: Option<usize>,

    /// TCP connections held at once, WebSockets included; past it only /healthz and
    /// /readyz are answered and everything else gets 503 [default: nine tenths of the
    /// open-file limit, less 64]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_MAX_CONNECTIONS",
        value_name = "N"
    )]
    pub max_connections: Option<usize>,

    /// Connections the kernel queues before the host accepts them, for reconnect
    /// storms; capped by net.core.somaxconn [default: 4096]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_LISTEN_BACKLOG",
        value_name = "N"
    )]
    pub listen_backlog: Option<u32>,

    /// HTTP requests served at once; more wait in the kernel's queue [default: 1024]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_MAX_CONCURRENT_REQUESTS",
        value_name = "N"
    )]
    pub max_concurrent_requests: Option<usize>,

    /// A request not answered within this many seconds gets 408 [default: 15]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_REQUEST_TIMEOUT_S",
        value_name = "SECONDS"
    )]
    pub request_timeout_s: Option<u64>,

    /// Addresses and CIDR ranges of the proxies in front of the host (load balancer,
    /// ingress), comma-separated: from these peers the client's address is read from
    /// X-Forwarded-For (or Forwarded), for the per-address caps, the rate limit and the
    /// logs; from any other peer those headers are ignored [default: none]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_TRUSTED_PROXIES",
        value_name = "RANGES",
        value_delimiter = ','
    )]
    pub trusted_proxies: Option<Vec<String>>,

    /// Requests a second one client address may make on average (probes and /metrics
    /// are exempt); past it, 429 with Retry-After; 0 for no limit [default: 20]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_RATE_LIMIT_PER_S",
        value_name = "N"
    )]
    pub rate_limit_per_s: Option<u32>,

    /// Requests one client address may make at once before the rate applies
    /// [default: 100]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_RATE_LIMIT_BURST",
        value_name = "N"
    )]
    pub rate_limit_burst: Option<u32>,

    /// On SIGTERM, how long /readyz answers 503 while the host still serves, so the
    /// load balancer stops sending it visitors before it stops accepting (a second
    /// signal ends it) [default: 3 in production, 0 in staging]
    #[arg(long, global = true, env = "LASTWORDS_DRAIN_S", value_name = "SECONDS")]
    pub drain_s: Option<u64>,

    /// On SIGTERM, after the drain, how long in-flight requests may take to finish
    /// [default: 5]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_SHUTDOWN_TIMEOUT_S",
        value_name = "SECONDS"
    )]
    pub shutdown_timeout_s: Option<u64>,

    /// /readyz answers 503 once the phrase feed has been disconnected this long
    /// [default: 30]
    #[arg(
        long,
        global = true,
        env = "LASTWORDS_READY_STALE_AFTER_S",
        value_name = "SECONDS"
    )]
    pub ready_stale_after_s: Option<u64>,
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
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::ReadFile {
            path: path.to_owned(),
            source,
        })?;
        toml::from_str(&text).map_err(|source| ConfigError::ParseFile {
            path: path.to_owned(),
            source: Box::new(source),
        })
    }

    /// Fills every key unset here from `lower`.
    pub fn or(self, lower: Settings) -> Settings {
        Settings {
            host: self.host.or(lower.host),
            port: self.port.or(lower.port),
            data_dir: self.data_dir.or(lower.data_dir),
            product_name: self.product_name.or(lower.product_name),
            public_url: self.public_url.or(lower.public_url),
            chat_url: self.chat_url.or(lower.chat_url),
            social_url: self.social_url.or(lower.social_url),
            marketplace_url: self.marketplace_url.or(lower.marketplace_url),
            blog_url: self.blog_url.or(lower.blog_url),
            press_email: self.press_email.or(lower.press_email),
            environment: self.environment.or(lower.environment),
            render_threads: self.render_threads.or(lower.render_threads),
            render_timeout_ms: self.render_timeout_ms.or(lower.render_timeout_ms),
            render_queue: self.render_queue.or(lower.render_queue),
            firestore_project: self.firestore_project.or(lower.firestore_project),
            firestore_database: self.firestore_database.or(lower.firestore_database),
            firestore_collection: self.firestore_collection.or(lower.firestore_collection),
            store: self.store.or(lower.store),
            allowed_origins: self.allowed_origins.or(lower.allowed_origins),
            max_sockets: self.max_sockets.or(lower.max_sockets),
            max_sockets_per_ip: self.max_sockets_per_ip.or(lower.max_sockets_per_ip),
            max_connections: self.max_connections.or(lower.max_connections),
            listen_backlog: self.listen_backlog.or(lower.listen_backlog),
            max_concurrent_requests: self
                .max_concurrent_requests
                .or(lower.max_concurrent_requests),
            request_timeout_s: self.request_timeout_s.or(lower.request_timeout_s),
            trusted_proxies: self.trusted_proxies.or(lower.trusted_proxies),
            rate_limit_per_s: self.rate_limit_per_s.or(lower.rate_limit_per_s),
            rate_limit_burst: self.rate_limit_burst.or(lower.rate_limit_burst),
            drain_s: self.drain_s.or(lower.drain_s),
            shutdown_timeout_s: self.shutdown_timeout_s.or(lower.shutdown_timeout_s),
            ready_stale_after_s: self.ready_stale_after_s.or(lower.ready_stale_after_s),
        }
    }
}
