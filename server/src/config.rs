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

    /// Folder for the embedded store's phrases.json [default: ./data]
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
    /// Where the embedded store keeps `phrases.json`.
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

        let firestore = match self.firestore_project {
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
            environment: self.environment.unwrap_or_default(),
            render_threads,
            render_timeout: Duration::from_millis(render_timeout_ms),
            render_queue,
        })
    }
}

impl Config {
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
    fn defaults_serve_words_on_localhost() {
        let config = Settings::default().resolve().unwrap();
        assert_eq!(config.addr.to_string(), "127.0.0.1:8080");
        assert_eq!(config.words_path(), "/words");
        assert_eq!(config.absolute_url("/words"), "http://127.0.0.1:8080/words");
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
