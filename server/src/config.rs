//! One typed configuration, parsed once at start from flags, environment variables and
//! an optional TOML file (in that order of precedence), then handed around as
//! `Arc<Config>`. A bad value stops start-up with a message naming the key and value.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

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

    /// On SIGTERM, how long in-flight requests may take to finish [default: 10]
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
    /// The JSON file in the data folder, even when a Firestore project is set.
    Embedded,
    /// Firestore; a project must be configured.
    Firestore,
}

/// The deployment profile, which chooses defaults such as the log format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    #[default]
    Staging,
    Production,
}

/// Links the site shows in its header and footer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SiteLinks {
    pub chat: String,
    pub social: String,
    pub marketplace: String,
    pub blog: String,
}

/// The effective configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where the HTTP server listens.
    pub addr: SocketAddr,
    /// Where the embedded store keeps its database, and the list saved from Firestore.
    pub data_dir: PathBuf,
    /// Names the phrases route and the page copy.
    pub product_name: String,
    /// Absolute origin used in canonical URLs; never ends with a slash.
    pub public_url: Url,
    /// External links shown on every page.
    pub links: SiteLinks,
    /// Shown in the footer as a mailto link.
    pub press_email: String,
    /// The deployment profile.
    pub environment: Environment,
    /// How many renderer threads (and JS engines) to run.
    pub render_threads: usize,
    /// How long one render may run before it is stopped.
    pub render_timeout: Duration,
    /// How many renders may wait for a renderer.
    pub render_queue: usize,
    /// Where phrases live: Firestore when a project is configured, else the embedded store.
    pub firestore: Option<FirestoreLocation>,
    /// No public URL was given, so it is the address actually bound (which differs
    /// from `addr` with port 0); see [`Config::listening_on`].
    pub public_url_follows_listener: bool,
    /// Origins (`scheme://host[:port]`) whose pages may open the live WebSocket.
    pub allowed_origins: Vec<String>,
    /// Live WebSockets the host holds at most.
    pub max_sockets: usize,
    /// Live WebSockets per client address; 0 means no limit.
    pub max_sockets_per_ip: usize,
    /// TCP connections held at once; None: as many as the open-file limit allows.
    pub max_connections: Option<usize>,
    /// Connections the kernel may queue before they are accepted.
    pub listen_backlog: u32,
    /// HTTP requests handled at once.
    pub max_concurrent_requests: usize,
    /// Longest a request may take before it gets 408.
    pub request_timeout: Duration,
    /// How long in-flight requests may take to finish after SIGTERM.
    pub shutdown_timeout: Duration,
    /// How long the feed may be disconnected before `/readyz` says 503.
    pub ready_stale_after: Duration,
}

/// A Firestore collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FirestoreLocation {
    pub project: String,
    pub database: String,
    pub collection: String,
}

/// A configuration value that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read the config file {path}: {source}")]
    ReadFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path}: {source}")]
    ParseFile {
        path: PathBuf,
        source: Box<toml::de::Error>,
    },
    #[error("invalid value for {key}: {value:?}: {reason}")]
    Invalid {
        key: &'static str,
        value: String,
        reason: String,
    },
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
            shutdown_timeout_s: self.shutdown_timeout_s.or(lower.shutdown_timeout_s),
            ready_stale_after_s: self.ready_stale_after_s.or(lower.ready_stale_after_s),
        }
    }

    /// Applies defaults and checks every value.
    pub fn resolve(self) -> Result<Config, ConfigError> {
        let host = self.host.unwrap_or(IpAddr::from([127, 0, 0, 1]));
        let port = self.port.unwrap_or(8080);
        let addr = SocketAddr::new(host, port);

        let product_name = self.product_name.unwrap_or_else(|| "Words".into());
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

        let public_url_given = self.public_url.clone();
        let public_url = match self.public_url {
            Some(raw) => parse_http_url("public_url", &raw)?,
            None => parse_http_url("public_url", &format!("http://{addr}"))?,
        };
        if public_url.path() != "/" || public_url.query().is_some() {
            return Err(invalid(
                "public_url",
                public_url.as_str(),
                "give only the origin, such as https://dinos.example",
            ));
        }

        let link = |key, value: Option<String>, default: &str| -> Result<String, ConfigError> {
            let raw = value.unwrap_or_else(|| default.into());
            parse_http_url(key, &raw).map(|_| raw)
        };
        let links = SiteLinks {
            chat: link(
                "chat_url",
                self.chat_url,
                "https://discord.com/invite/dinos",
            )?,
            social: link("social_url", self.social_url, "https://twitter.com/dinos")?,
            marketplace: link(
                "marketplace_url",
                self.marketplace_url,
                "https://opensea.io/collection/dinos",
            )?,
            blog: link("blog_url", self.blog_url, "https://medium.com/@dinos")?,
        };

        let press_email = self
            .press_email
            .unwrap_or_else(|| "press@example.com".into());
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

        let render_threads = match self.render_threads {
            Some(0) => return Err(invalid("render_threads", "0", "at least 1 is needed")),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(2, |n| n.get()),
        };
        let render_timeout_ms = self.render_timeout_ms.unwrap_or(2000);
        if !(10..=60_000).contains(&render_timeout_ms) {
            return Err(invalid(
                "render_timeout_ms",
                &render_timeout_ms.to_string(),
                "expected 10 to 60000 milliseconds",
            ));
        }
        let render_queue = self.render_queue.unwrap_or(256);
        if render_queue == 0 {
            return Err(invalid("render_queue", "0", "at least 1 is needed"));
        }

        let environment = self.environment.unwrap_or_default();
        let store = self.store.unwrap_or_default();
        let project = match (store, self.firestore_project) {
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
        if environment == Environment::Production {
            if public_url_given.is_none() {
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

        let allowed_origins = match self.allowed_origins {
            None => vec![origin_of(&public_url)],
            Some(list) => list
                .iter()
                .map(|raw| {
                    let url = parse_http_url("allowed_origins", raw.trim())?;
                    if url.path() != "/" || url.query().is_some() {
                        return Err(invalid(
                            "allowed_origins",
                            raw,
                            "give origins only, such as https://dinos.example",
                        ));
                    }
                    Ok(origin_of(&url))
                })
                .collect::<Result<_, _>>()?,
        };
        let positive = |key: &'static str, value: Option<u64>, default: u64, max: u64| {
            let value = value.unwrap_or(default);
            if value == 0 || value > max {
                return Err(invalid(
                    key,
                    &value.to_string(),
                    &format!("expected 1 to {max}"),
                ));
            }
            Ok(value)
        };
        let max_sockets = positive(
            "max_sockets",
            self.max_sockets.map(|n| n as u64),
            15_000,
            1_000_000,
        )? as usize;
        let max_connections = match self.max_connections {
            Some(n) => Some(positive("max_connections", Some(n as u64), 1, 10_000_000)? as usize),
            None => None,
        };
        let listen_backlog = positive(
            "listen_backlog",
            self.listen_backlog.map(u64::from),
            4096,
            65_535,
        )? as u32;
        let max_concurrent_requests = positive(
            "max_concurrent_requests",
            self.max_concurrent_requests.map(|n| n as u64),
            1024,
            1_000_000,
        )? as usize;
        let request_timeout = Duration::from_secs(positive(
            "request_timeout_s",
            self.request_timeout_s,
            15,
            3600,
        )?);
        let shutdown_timeout = Duration::from_secs(positive(
            "shutdown_timeout_s",
            self.shutdown_timeout_s,
            10,
            3600,
        )?);
        let ready_stale_after = Duration::from_secs(positive(
            "ready_stale_after_s",
            self.ready_stale_after_s,
            30,
            86_400,
        )?);

        let firestore = match project {
            None => None,
            Some(project) => {
                let database = self
                    .firestore_database
                    .unwrap_or_else(|| "(default)".into());
                let collection = self.firestore_collection.unwrap_or_else(|| "words".into());
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
                Some(FirestoreLocation {
                    project,
                    database,
                    collection,
                })
            }
        };

        Ok(Config {
            addr,
            firestore,
            data_dir: self.data_dir.unwrap_or_else(|| PathBuf::from("data")),
            product_name,
            public_url,
            links,
            press_email,
            environment,
            public_url_follows_listener: public_url_given.is_none(),
            allowed_origins,
            max_sockets,
            max_sockets_per_ip: self.max_sockets_per_ip.unwrap_or(32),
            max_connections,
            listen_backlog,
            max_concurrent_requests,
            request_timeout,
            shutdown_timeout,
            ready_stale_after,
            render_threads,
            render_timeout: Duration::from_millis(render_timeout_ms),
            render_queue,
        })
    }
}

/// `raw` with any password replaced by `***`.
fn masked(raw: &str) -> String {
    match Url::parse(raw) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("***"));
            url.to_string()
        }
        _ => raw.to_owned(),
    }
}

/// `scheme://host[:port]` as browsers send it in `Origin` (no trailing slash).
fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

impl Config {
    /// Records the address the listener actually got: with port 0, or with no public
    /// URL configured, canonical links and the allowed origin follow it.
    pub fn listening_on(&mut self, addr: SocketAddr) {
        self.addr = addr;
        if self.public_url_follows_listener
            && let Ok(url) = Url::parse(&format!("http://{addr}"))
        {
            let old = origin_of(&self.public_url);
            self.allowed_origins.retain(|origin| *origin != old);
            self.allowed_origins.push(origin_of(&url));
            self.public_url = url;
        }
    }

    /// Every setting as `(key, value)`, named as in the TOML file, for `config check`.
    /// A password in a URL is masked.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let store = match &self.firestore {
            Some(f) => format!(
                "firestore (project {}, database {}, collection {})",
                f.project, f.database, f.collection
            ),
            None => format!(
                "embedded ({})",
                self.data_dir
                    .join(crate::store::embedded::FILE_NAME)
                    .display()
            ),
        };
        vec![
            ("env", format!("{:?}", self.environment).to_lowercase()),
            ("listen", self.addr.to_string()),
            ("public_url", masked(self.public_url.as_str())),
            ("allowed_origins", self.allowed_origins.join(", ")),
            ("store", store),
            ("data_dir", self.data_dir.display().to_string()),
            ("product_name", self.product_name.clone()),
            ("chat_url", masked(&self.links.chat)),
            ("social_url", masked(&self.links.social)),
            ("marketplace_url", masked(&self.links.marketplace)),
            ("blog_url", masked(&self.links.blog)),
            ("press_email", self.press_email.clone()),
            ("render_threads", self.render_threads.to_string()),
            (
                "render_timeout_ms",
                self.render_timeout.as_millis().to_string(),
            ),
            ("render_queue", self.render_queue.to_string()),
            ("max_sockets", self.max_sockets.to_string()),
            (
                "max_sockets_per_ip",
                match self.max_sockets_per_ip {
                    0 => "no limit".into(),
                    n => n.to_string(),
                },
            ),
            (
                "max_connections",
                self.max_connections
                    .map_or("nine tenths of the open-file limit, less 64".into(), |n| {
                        n.to_string()
                    }),
            ),
            ("listen_backlog", self.listen_backlog.to_string()),
            (
                "max_concurrent_requests",
                self.max_concurrent_requests.to_string(),
            ),
            (
                "request_timeout_s",
                self.request_timeout.as_secs().to_string(),
            ),
            (
                "shutdown_timeout_s",
                self.shutdown_timeout.as_secs().to_string(),
            ),
            (
                "ready_stale_after_s",
                self.ready_stale_after.as_secs().to_string(),
            ),
            ("hsts", self.hsts().to_string()),
        ]
    }

    /// Whether responses carry Strict-Transport-Security.
    pub fn hsts(&self) -> bool {
        self.environment == Environment::Production
    }

    /// The path of the phrases page, such as `/words`.
    pub fn words_path(&self) -> String {
        format!("/{}", self.product_name.to_lowercase())
    }

    /// An absolute URL on the public origin.
    pub fn absolute_url(&self, path: &str) -> String {
        format!("{}{}", self.public_url.as_str().trim_end_matches('/'), path)
    }

    /// A configuration for tests: defaults, a given data folder, one renderer.
    pub fn for_tests(data_dir: &Path) -> Config {
        Settings {
            data_dir: Some(data_dir.to_owned()),
            render_threads: Some(1),
            ..Settings::default()
        }
        .resolve()
        .expect("the defaults are valid")
    }
}

fn parse_http_url(key: &'static str, raw: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(raw).map_err(|e| invalid(key, raw, &e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(invalid(key, raw, "expected an http:// or https:// URL"));
    }
    Ok(url)
}

fn invalid(key: &'static str, value: &str, reason: &str) -> ConfigError {
    ConfigError::Invalid {
        key,
        value: value.into(),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn production_needs_a_public_url_and_firestore_unless_embedded_is_chosen() {
        let production = |settings: Settings| {
            Settings {
                environment: Some(Environment::Production),
                ..settings
            }
            .resolve()
        };
        let message = production(Settings::default()).unwrap_err().to_string();
        assert!(
            message.contains("public_url") && message.contains("LASTWORDS_PUBLIC_URL"),
            "{message}"
        );
        let with_url = || Settings {
            public_url: Some("https://dinos.example".into()),
            ..Settings::default()
        };
        let message = production(with_url()).unwrap_err().to_string();
        assert!(
            message.contains("firestore_project") && message.contains("--store embedded"),
            "{message}"
        );
        let embedded = production(Settings {
            store: Some(StoreKind::Embedded),
            firestore_project: Some("ignored".into()),
            ..with_url()
        })
        .unwrap();
        assert!(embedded.firestore.is_none() && embedded.hsts());
        let firestore = production(Settings {
            firestore_project: Some("dinos".into()),
            ..with_url()
        })
        .unwrap();
        assert_eq!(firestore.firestore.unwrap().project, "dinos");
        assert_eq!(firestore.allowed_origins, ["https://dinos.example"]);
    }

    #[test]
    fn origins_follow_the_bound_port_unless_a_public_url_is_given() {
        let mut config = Settings {
            port: Some(0),
            ..Settings::default()
        }
        .resolve()
        .unwrap();
        config.listening_on("127.0.0.1:4321".parse().unwrap());
        assert_eq!(config.allowed_origins, ["http://127.0.0.1:4321"]);
        assert_eq!(config.absolute_url("/"), "http://127.0.0.1:4321/");

        let mut fixed = Settings {
            public_url: Some("https://dinos.example".into()),
            allowed_origins: Some(vec![
                "https://dinos.example".into(),
                "https://www.dinos.example/".into(),
            ]),
            ..Settings::default()
        }
        .resolve()
        .unwrap();
        fixed.listening_on("127.0.0.1:4321".parse().unwrap());
        assert_eq!(
            fixed.allowed_origins,
            ["https://dinos.example", "https://www.dinos.example"]
        );
        let bad = Settings {
            allowed_origins: Some(vec!["https://dinos.example/path".into()]),
            ..Settings::default()
        };
        assert!(
            bad.resolve()
                .unwrap_err()
                .to_string()
                .contains("allowed_origins")
        );
    }

    #[test]
    fn store_firestore_without_a_project_says_what_to_set() {
        let message = Settings {
            store: Some(StoreKind::Firestore),
            ..Settings::default()
        }
        .resolve()
        .unwrap_err()
        .to_string();
        assert!(message.contains("LASTWORDS_FIRESTORE_PROJECT"), "{message}");
    }

    #[test]
    fn defaults_serve_words_on_localhost() {
        let config = Settings::default().resolve().unwrap();
        assert_eq!(config.addr.to_string(), "127.0.0.1:8080");
        assert_eq!(config.words_path(), "/words");
        assert_eq!(config.absolute_url("/words"), "http://127.0.0.1:8080/words");
    }

    #[test]
    fn the_file_names_the_profile_env_like_the_flag() {
        let file: Settings = toml::from_str("env = \"production\"").unwrap();
        assert_eq!(file.environment, Some(Environment::Production));
    }

    #[test]
    fn flags_win_over_the_file() {
        let file: Settings = toml::from_str("port = 9000\nproduct_name = \"Phrases\"").unwrap();
        let flags = Settings {
            port: Some(7000),
            ..Settings::default()
        };
        let config = flags.or(file).resolve().unwrap();
        assert_eq!(config.addr.port(), 7000);
        assert_eq!(config.words_path(), "/phrases");
    }

    #[test]
    fn a_bad_value_names_the_key_and_the_value() {
        let bad = Settings {
            public_url: Some("not a url".into()),
            ..Settings::default()
        };
        let message = bad.resolve().unwrap_err().to_string();
        assert!(message.contains("public_url"), "{message}");
        assert!(message.contains("not a url"), "{message}");

        let file = toml::from_str::<Settings>("prot = 1")
            .unwrap_err()
            .to_string();
        assert!(file.contains("prot"), "{file}");
    }
}
