//! One typed configuration, parsed once at start from flags, environment variables and
//! an optional TOML file (in that order of precedence), then handed around as
//! `Arc<Config>`. A bad value stops start-up with a message naming the key and value.

mod resolve;
mod settings;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

pub use crate::live::socket_limits::SocketCaps;
pub use crate::render::pool::PoolOptions;
pub use crate::store::FirestoreSettings;
pub use resolve::SITE_PATHS;
pub use settings::{DECLARED, Declared, Settings, StoreKind, reference_table};

/// The deployment profile, which chooses defaults such as the log format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    #[default]
    Staging,
    Production,
}

impl Environment {
    /// The profile as `--env` and the TOML file name it.
    pub fn name(self) -> &'static str {
        match self {
            Environment::Staging => "staging",
            Environment::Production => "production",
        }
    }
}

/// Links the site shows in its header and footer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SiteLinks {
    pub chat: String,
    pub social: String,
    pub marketplace: String,
    pub blog: String,
}

/// The effective configuration, in the groups its consumers take: the site to the
/// state and the pages, the renderer pool's options to the pool, the HTTP limits to the
/// listener and the server, the socket caps to the WebSocket upgrade, the store to `cli`.
#[derive(Debug, Clone)]
pub struct Config {
    /// The deployment profile.
    pub environment: Environment,
    /// What the pages say and where they are served.
    pub site: Site,
    /// The renderer threads and their queue.
    pub render: PoolOptions,
    /// The listener and what one connection or request may take.
    pub http: HttpLimits,
    /// Live WebSockets in all and per client address.
    pub sockets: SocketCaps,
    /// Where phrases live.
    pub store: Store,
    /// Development: the folder whose UI build is served, and followed, instead of the
    /// binary's.
    pub ui_dir: Option<PathBuf>,
}

/// What the pages say and where they are served.
#[derive(Debug, Clone)]
pub struct Site {
    /// Names the phrases route and the page copy.
    pub product_name: String,
    /// Absolute origin used in canonical URLs; never ends with a slash.
    pub public_url: Url,
    /// No public URL was given, so it is the address actually bound (which differs
    /// from the configured one with port 0); see [`Config::listening_on`].
    pub public_url_follows_listener: bool,
    /// Origins (`scheme://host[:port]`) whose pages may open the live WebSocket.
    pub allowed_origins: Vec<String>,
    /// External links shown on every page.
    pub links: SiteLinks,
    /// Shown in the footer as a mailto link.
    pub press_email: String,
}

/// The listener and what one connection or request may take.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// Where the HTTP server listens.
    pub addr: SocketAddr,
    /// Connections the kernel may queue before they are accepted.
    pub listen_backlog: u32,
    /// TCP connections held at once; None: as many as the open-file limit allows.
    pub max_connections: Option<usize>,
    /// TCP connections one client address may hold at once; 0: no limit.
    pub max_connections_per_ip: usize,
    /// HTTP requests handled at once.
    pub max_concurrent_requests: usize,
    /// Longest a request may take before it gets 408.
    pub request_timeout: Duration,
    /// How long in-flight requests may take to finish after the drain.
    pub shutdown_timeout: Duration,
    /// On SIGTERM, how long `/readyz` says 503 while the host still serves.
    pub drain: Duration,
    /// The proxies whose forwarded headers name the client.
    pub trusted_proxies: crate::net::client::TrustedProxies,
    /// Who may read `/metrics`.
    pub metrics_from: crate::net::client::MetricsReaders,
    /// Requests per client address; `None`: no limit.
    pub rate: Option<crate::net::rate_limit::Rate>,
}

/// Where phrases live.
#[derive(Debug, Clone)]
pub struct Store {
    /// Where the embedded store keeps its database, and the list saved from Firestore.
    pub data_dir: PathBuf,
    /// Firestore when a project is configured, else the embedded store.
    pub firestore: Option<FirestoreSettings>,
    /// How long the feed may be disconnected before `/readyz` says 503.
    pub ready_stale_after: Duration,
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

/// `raw` with any password replaced by `***`, also where it does not parse as a URL (a
/// bad port): whatever stands between the user's `:` and the `@` of its authority.
fn masked(raw: &str) -> String {
    match Url::parse(raw) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("***"));
            url.to_string()
        }
        Ok(_) => raw.to_owned(),
        Err(_) => {
            let start = raw.find("://").map_or(0, |at| at + 3);
            let end = raw[start..]
                .find(['/', '?', '#'])
                .map_or(raw.len(), |at| start + at);
            match raw[start..end].rfind('@') {
                Some(at) => match raw[start..start + at].find(':') {
                    Some(colon) => {
                        format!("{}***{}", &raw[..start + colon + 1], &raw[start + at..])
                    }
                    None => raw.to_owned(),
                },
                None => raw.to_owned(),
            }
        }
    }
}

impl Config {
    /// Records the address the listener actually got: with port 0, or with no public
    /// URL configured, canonical links and the allowed origin follow it.
    pub fn listening_on(&mut self, addr: SocketAddr) {
        let (_, before) = listener_site(self.http.addr);
        self.http.addr = addr;
        let site = &mut self.site;
        if site.public_url_follows_listener {
            let (url, origins) = listener_site(addr);
            site.allowed_origins
                .retain(|origin| !before.contains(origin));
            site.allowed_origins.extend(origins);
            site.public_url = url;
        }
    }

    /// Every setting as `(key, value)`, named as in the TOML file, for `config check`.
    /// A password in a URL is masked.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let Config {
            environment,
            site,
            render,
            http,
            sockets,
            store,
            ui_dir,
        } = self;
        let store_kind = match &store.firestore {
            Some(f) => format!(
                "firestore (project {}, database {}, collection {})",
                f.project, f.database, f.collection
            ),
            None => format!(
                "embedded ({})",
                store
                    .data_dir
                    .join(crate::store::embedded::FILE_NAME)
                    .display()
            ),
        };
        vec![
            ("env", environment.name().to_owned()),
            ("listen", http.addr.to_string()),
            ("public_url", masked(site.public_url.as_str())),
            ("allowed_origins", site.allowed_origins.join(", ")),
            ("store", store_kind),
            ("data_dir", store.data_dir.display().to_string()),
            ("product_name", site.product_name.clone()),
            ("chat_url", masked(&site.links.chat)),
            ("social_url", masked(&site.links.social)),
            ("marketplace_url", masked(&site.links.marketplace)),
            ("blog_url", masked(&site.links.blog)),
            ("press_email", site.press_email.clone()),
            ("render_threads", render.threads.to_string()),
            ("render_timeout_ms", render.timeout.as_millis().to_string()),
            ("render_queue", render.queue.to_string()),
            (
                "ui_dir",
                ui_dir
                    .as_ref()
                    .map_or("none (the build in the binary)".into(), |dir| {
                        dir.display().to_string()
                    }),
            ),
            ("max_sockets", sockets.max.to_string()),
            (
                "max_sockets_per_ip",
                match sockets.max_per_ip {
                    0 => "no limit".into(),
                    n => n.to_string(),
                },
            ),
            (
                "max_connections",
                http.max_connections
                    .map_or("nine tenths of the open-file limit, less 64".into(), |n| {
                        n.to_string()
                    }),
            ),
            (
                "max_connections_per_ip",
                match http.max_connections_per_ip {
                    0 => "no limit".into(),
                    n => n.to_string(),
                },
            ),
            ("listen_backlog", http.listen_backlog.to_string()),
            (
                "max_concurrent_requests",
                http.max_concurrent_requests.to_string(),
            ),
            (
                "request_timeout_s",
                http.request_timeout.as_secs().to_string(),
            ),
            ("drain_s", http.drain.as_secs().to_string()),
            (
                "shutdown_timeout_s",
                http.shutdown_timeout.as_secs().to_string(),
            ),
            ("trusted_proxies", http.trusted_proxies.describe()),
            ("metrics_from", http.metrics_from.describe()),
            (
                "rate_limit_per_s",
                http.rate
                    .map_or("no limit".into(), |rate| rate.per_second.to_string()),
            ),
            (
                "rate_limit_burst",
                http.rate.map_or("-".into(), |rate| rate.burst.to_string()),
            ),
            (
                "ready_stale_after_s",
                store.ready_stale_after.as_secs().to_string(),
            ),
            ("hsts", self.hsts().to_string()),
        ]
    }

    /// Whether responses carry Strict-Transport-Security.
    pub fn hsts(&self) -> bool {
        self.environment == Environment::Production
    }
}

impl Site {
    /// The path of the phrases page, such as `/words`.
    pub fn words_path(&self) -> String {
        format!("/{}", self.product_name.to_lowercase())
    }

    /// The path of a phrase's page: `/words/{id}`, the id percent-encoded as
    /// JavaScript's `encodeURIComponent` does, so the host and the UI write one URL.
    pub fn phrase_path(&self, id: &str) -> String {
        format!(
            "{}/{}",
            self.words_path(),
            percent_encoding::utf8_percent_encode(id, URI_COMPONENT)
        )
    }

    /// A link that opens a post on the configured social network (its web intent; X's
    /// when the network is not one that has it) with `text` and `url`.
    pub fn post_url(&self, text: &str, url: &str) -> String {
        let origin = Url::parse(&self.links.social)
            .ok()
            .filter(|social| {
                let host = social.host_str().unwrap_or_default();
                let host = host.strip_prefix("www.").unwrap_or(host);
                social.scheme() == "https" && matches!(host, "twitter.com" | "x.com")
            })
            .map_or_else(
                || "https://x.com".to_owned(),
                |social| social.origin().ascii_serialization(),
            );
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("text", text)
            .append_pair("url", url)
            .finish();
        format!("{origin}/intent/tweet?{query}")
    }

    /// An absolute URL on the public origin.
    pub fn absolute_url(&self, path: &str) -> String {
        format!("{}{}", self.public_url.as_str().trim_end_matches('/'), path)
    }
}

/// What `encodeURIComponent` leaves as it is: letters, digits and `-_.!~*'()`.
const URI_COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// The public URL and the allowed origins of a host told neither, from the address it
/// listens on. An unspecified one (`0.0.0.0`, as in a container) is not an address a
/// browser asks: it is reached as `localhost` or a loopback address, through a port
/// mapping or on the same machine, and those are its origins.
fn listener_site(addr: SocketAddr) -> (Url, Vec<String>) {
    let port = addr.port();
    let url = |host: &str| {
        Url::parse(&format!("http://{host}")).expect("an address and a port make a URL")
    };
    if addr.ip().is_unspecified() {
        let origins =
            ["localhost", "127.0.0.1", "[::1]"].map(|host| format!("http://{host}:{port}"));
        (url(&format!("localhost:{port}")), origins.to_vec())
    } else {
        let url = url(&addr.to_string());
        let origins = vec![origin_of(&url)];
        (url, origins)
    }
}

/// `scheme://host[:port]` as browsers send it in `Origin` (no trailing slash).
fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

fn parse_http_url(key: &'static str, raw: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(raw).map_err(|e| invalid(key, raw, &e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(invalid(key, raw, "expected an http:// or https:// URL"));
    }
    // Every URL of the settings is a link on the pages or an origin compared with one:
    // a password in it would be published to every visitor.
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid(
            key,
            raw,
            "a user or password in it would be shown in every page's links; leave them out",
        ));
    }
    Ok(url)
}

fn invalid(key: &'static str, value: &str, reason: &str) -> ConfigError {
    ConfigError::Invalid {
        key,
        value: masked(value),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_in_the_docs_is_the_declared_one() {
        let docs = include_str!("../../../docs/operations.md");
        assert!(
            docs.contains(&reference_table()),
            "docs/operations.md's configuration reference is not what `lastwords config \
             reference` prints: paste that in its place"
        );
    }

    #[test]
    fn every_declared_setting_is_described_with_its_declared_default() {
        let config = Settings::default().resolve().unwrap();
        let described: std::collections::HashMap<_, _> = config.describe().into_iter().collect();
        for setting in DECLARED {
            let (key, default) = match setting.key {
                // `config check` shows these two as the address, and the store as one line.
                "host" | "port" => ("listen", None),
                "store" | "firestore_project" | "firestore_database" | "firestore_collection" => {
                    ("store", None)
                }
                // The rest declare a description of a default, not a value.
                key if [' ', '<'].iter().any(|c| setting.default.contains(*c))
                    || setting.default == "none" =>
                {
                    (key, None)
                }
                key => (key, Some(setting.default)),
            };
            let value = described.get(key);
            assert!(
                value.is_some(),
                "`config check` does not show {}",
                setting.key
            );
            if let Some(default) = default {
                assert_eq!(value.map(String::as_str), Some(default), "{}", setting.key);
            }
        }
        assert_eq!(described["listen"], "127.0.0.1:8080");
    }

    #[test]
    fn production_needs_a_public_url_and_firestore_unless_embedded_is_chosen() {
        let production = |settings: Settings| {
            Settings {
                env: Some(Environment::Production),
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
        assert!(embedded.store.firestore.is_none() && embedded.hsts());
        let firestore = production(Settings {
            firestore_project: Some("dinos".into()),
            ..with_url()
        })
        .unwrap();
        assert_eq!(firestore.store.firestore.unwrap().project, "dinos");
        assert_eq!(firestore.site.allowed_origins, ["https://dinos.example"]);
    }

    #[test]
    fn a_host_on_every_address_is_reached_as_localhost_by_default() {
        // As a container listens (HOST=0.0.0.0), reached through a port mapping.
        let mut config = Settings {
            host: Some("0.0.0.0".parse().unwrap()),
            port: Some(0),
            ..Settings::default()
        }
        .resolve()
        .unwrap();
        config.listening_on("0.0.0.0:8080".parse().unwrap());
        assert_eq!(
            config.site.absolute_url("/words"),
            "http://localhost:8080/words"
        );
        assert_eq!(
            config.site.allowed_origins,
            [
                "http://localhost:8080",
                "http://127.0.0.1:8080",
                "http://[::1]:8080"
            ]
        );
        let on_v6 = Settings {
            host: Some("::".parse().unwrap()),
            port: Some(9000),
            ..Settings::default()
        }
        .resolve()
        .unwrap();
        assert_eq!(on_v6.site.absolute_url("/"), "http://localhost:9000/");
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
        assert_eq!(config.site.allowed_origins, ["http://127.0.0.1:4321"]);
        assert_eq!(config.site.absolute_url("/"), "http://127.0.0.1:4321/");

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
            fixed.site.allowed_origins,
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
        assert_eq!(config.http.addr.to_string(), "127.0.0.1:8080");
        assert_eq!(config.site.words_path(), "/words");
        assert_eq!(
            config.site.absolute_url("/words"),
            "http://127.0.0.1:8080/words"
        );
    }

    #[test]
    fn an_empty_list_of_origins_is_refused_not_taken_as_none_allowed() {
        let file: Settings = toml::from_str("allowed_origins = []").unwrap();
        let message = file.resolve().unwrap_err().to_string();
        assert!(
            message.contains("allowed_origins") && message.contains("at least"),
            "{message}"
        );
    }

    #[test]
    fn the_file_names_the_profile_env_like_the_flag() {
        let file: Settings = toml::from_str("env = \"production\"").unwrap();
        assert_eq!(file.env, Some(Environment::Production));
    }

    #[test]
    fn a_ui_folder_is_for_development_only() {
        let folder = || Settings {
            ui_dir: Some("ui/dist-dev".into()),
            ..Settings::default()
        };
        let staging = folder().resolve().unwrap();
        assert_eq!(staging.ui_dir, Some(PathBuf::from("ui/dist-dev")));
        let message = Settings {
            env: Some(Environment::Production),
            public_url: Some("https://dinos.example".into()),
            store: Some(StoreKind::Embedded),
            ..folder()
        }
        .resolve()
        .unwrap_err()
        .to_string();
        assert!(
            message.contains("ui_dir") && message.contains("ui/dist-dev"),
            "{message}"
        );
    }

    #[test]
    fn flags_win_over_the_file() {
        let file: Settings = toml::from_str("port = 9000\nproduct_name = \"Phrases\"").unwrap();
        let flags = Settings {
            port: Some(7000),
            ..Settings::default()
        };
        let config = flags.or(file).resolve().unwrap();
        assert_eq!(config.http.addr.port(), 7000);
        assert_eq!(config.site.words_path(), "/phrases");
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

        // A fragment or a user in the public URL would be in every link made from it; a
        // password is never shown, even in a URL that does not parse.
        for (url, shown) in [
            (
                "https://ops:hunter2@dinos.example:99999",
                "ops:***@dinos.example:99999",
            ),
            (
                "https://ops:hunter2@dino s.example/x",
                "ops:***@dino s.example/x",
            ),
            ("https://dinos.example#top", "#top"),
            ("https://ops:hunter2@dinos.example", "ops:***@"),
            ("https://ops@dinos.example", "ops@"),
        ] {
            for (public_url, allowed_origins) in [
                (Some(url.to_owned()), None),
                (None, Some(vec![url.to_owned()])),
            ] {
                let bad = Settings {
                    public_url,
                    allowed_origins,
                    ..Settings::default()
                };
                let message = bad.resolve().unwrap_err().to_string();
                assert!(message.contains(shown), "{message}");
                assert!(!message.contains("hunter2"), "{message}");
            }
        }
        // Nor in a link every page shows.
        let bad = Settings {
            chat_url: Some("https://ops:hunter2@chat.example/invite".into()),
            ..Settings::default()
        };
        let message = bad.resolve().unwrap_err().to_string();
        assert!(
            message.contains("chat_url") && message.contains("ops:***@chat.example"),
            "{message}"
        );

        // An empty folder in the file was taken as the working folder's and said as
        // "the folder , where ...".
        let file: Settings = toml::from_str("data_dir = \"\"").unwrap();
        let message = file.resolve().unwrap_err().to_string();
        assert!(
            message.contains("data_dir") && message.contains("is empty"),
            "{message}"
        );

        let file = toml::from_str::<Settings>("prot = 1")
            .unwrap_err()
            .to_string();
        assert!(file.contains("prot"), "{file}");
    }
}
