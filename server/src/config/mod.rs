//! One typed configuration, parsed once at start from flags, environment variables and
//! an optional TOML file (in that order of precedence), then handed around as
//! `Arc<Config>`. A bad value stops start-up with a message naming the key and value.

mod resolve;
mod settings;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

pub use settings::{Settings, StoreKind};

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
    /// How long the listener waits before reconnecting after an error.
    pub retry_delay: Duration,
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

/// `scheme://host[:port]` as browsers send it in `Origin` (no trailing slash).
fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
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
