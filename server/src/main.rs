use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use lastwords::assets::Ui;
use lastwords::config::{Config, Environment, FirestoreLocation, Settings};
use lastwords::snapshot::Feed;
use lastwords::state::AppState;
use lastwords::store::embedded::{EmbeddedStore, Seed};
use lastwords::store::firestore::{self, FirestoreSettings, FirestoreStore};
use lastwords::store::saved;
use lastwords::store::{AddOutcome, NewPhrase, PhraseStore};
use lastwords::text::{preview, terminal_safe};

/// The Dinos site: server-rendered React, live Last Words, one binary.
///
/// Every option can also be given as the environment variable shown, or as a key of
/// the same name (with underscores, such as product_name) in the TOML file named by
/// --config. Flags win over the environment, which wins over the file.
#[derive(Parser)]
#[command(name = "lastwords", version, about, long_about)]
struct Cli {
    /// A TOML file with any of the settings below
    #[arg(long, global = true, env = "LASTWORDS_CONFIG", value_name = "FILE")]
    config: Option<PathBuf>,

    #[command(flatten)]
    settings: Settings,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the site (the default)
    Serve,
    /// List, add or remove minted phrases in the configured store
    #[command(subcommand)]
    Phrases(PhrasesCommand),
    /// Inspect the configuration
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Exit 0 if the server on the configured port answers /healthz (for container
    /// health checks: the image has no curl)
    Healthcheck {
        /// Ask /readyz instead: also fails until the phrase list is loaded
        #[arg(long)]
        ready: bool,
        /// Give up after this many seconds
        #[arg(long, default_value_t = 3, value_name = "SECONDS")]
        timeout: u64,
    },
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Print the effective configuration (flags, environment and file merged, defaults
    /// filled in, secrets masked) and exit non-zero if something is wrong
    Check,
}

#[derive(Subcommand)]
enum PhrasesCommand {
    /// Create the embedded store in the data folder: empty, or with the phrases of a
    /// phrases.json left by an earlier version (which is then renamed, never deleted)
    Init,
    /// Print every phrase, oldest first
    List {
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
    },
    /// Mint a phrase: upper-cased, 1 to 20 characters, refused when already taken
    Add {
        /// The phrase
        word: String,
        /// Who minted it
        #[arg(long)]
        name: String,
    },
    /// Remove the phrase with this document id
    Remove {
        /// The document id, as `phrases list` shows it
        id: String,
    },
    /// Add every valid phrase of a JSON file (an array of {"word": ..., "name": ...};
    /// other fields are ignored); each rejected entry is reported with its reason.
    /// Nothing is ever removed
    Import {
        /// The JSON file
        file: PathBuf,
    },
    /// Write every phrase as JSON that `phrases import` takes back (oldest first)
    Export {
        /// Where to write it [default: standard output]
        file: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match load_config(&cli) {
        Ok(config) => Arc::new(config),
        Err(message) => {
            eprintln!("lastwords: {message}");
            return ExitCode::from(2);
        }
    };
    init_tracing(config.environment);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("lastwords: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            None | Some(Command::Serve) => serve(config).await,
            Some(Command::Phrases(command)) => phrases(config, command).await,
            Some(Command::Config(ConfigCommand::Check)) => config_check(&config),
            Some(Command::Healthcheck { ready, timeout }) => {
                healthcheck(&config, ready, Duration::from_secs(timeout)).await
            }
        }
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("lastwords: {message}");
            ExitCode::FAILURE
        }
    }
}

fn load_config(cli: &Cli) -> Result<Config, String> {
    let file = match &cli.config {
        Some(path) => Settings::from_file(path).map_err(|e| e.to_string())?,
        None => Settings::default(),
    };
    cli.settings
        .clone()
        .or(file)
        .resolve()
        .map_err(|e| e.to_string())
}

fn init_tracing(environment: Environment) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    match environment {
        Environment::Production => builder.json().init(),
        Environment::Staging => builder.compact().init(),
    }
}

fn firestore_settings(location: &FirestoreLocation) -> FirestoreSettings {
    FirestoreSettings {
        project: location.project.clone(),
        database: location.database.clone(),
        collection: location.collection.clone(),
        retry_delay: Duration::from_secs(1),
    }
}

/// Starts keeping `feed` current from the configured store. Firestore is followed in
/// the background (the host serves the saved list, or an "unavailable" page, until it
/// answers); the embedded store is created when missing and must load now.
async fn feed_from_store(config: &Config, feed: &Feed) -> Result<(), String> {
    match &config.firestore {
        Some(location) => {
            std::fs::create_dir_all(&config.data_dir).map_err(|e| {
                format!(
                    "cannot create the data folder {}: {e}",
                    config.data_dir.display()
                )
            })?;
            saved::restore_and_keep(&config.data_dir, feed);
            firestore::follow(firestore_settings(location), feed.clone());
            Ok(())
        }
        None => {
            let (store, _) = EmbeddedStore::open_or_create(&config.data_dir, Seed::Samples)
                .map_err(|e| e.to_string())?;
            store.start(feed.clone()).map_err(|e| e.to_string())
        }
    }
}

/// The configured store for the CLI: Firestore when a project is set, else the embedded
/// store, which must exist (the CLI never makes one up, except `phrases init`).
async fn open_store(config: &Config) -> Result<Arc<dyn PhraseStore>, String> {
    match &config.firestore {
        Some(location) => {
            let store = FirestoreStore::connect(firestore_settings(location))
                .await
                .map_err(|e| e.to_string())?;
            Ok(Arc::new(store))
        }
        None => {
            let store = EmbeddedStore::open(&config.data_dir).map_err(|e| e.to_string())?;
            Ok(Arc::new(store))
        }
    }
}

async fn serve(config: Arc<Config>) -> Result<(), String> {
    let ui = Ui::embedded()?;
    let listener = lastwords::connections::open_listener(&config)?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    let config = {
        let mut config = Config::clone(&config);
        config.listening_on(bound);
        Arc::new(config)
    };
    let feed = Feed::new();
    feed_from_store(&config, &feed).await?;
    let state = {
        let config = config.clone();
        tokio::task::spawn_blocking(move || AppState::start(config, ui, feed))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())?
    };
    tracing::info!(
        url = %format!("http://{bound}"),
        public_url = %config.public_url,
        "serving"
    );
    lastwords::server::serve(listener, state, lastwords::server::shutdown_signal())
        .await
        .map_err(|e| e.to_string())?;
    tracing::info!("stopped");
    Ok(())
}

/// Prints every setting; fails on what would stop `serve` or break it later.
fn config_check(config: &Config) -> Result<(), String> {
    let rows = config.describe();
    let width = rows.iter().map(|(key, _)| key.len()).max().unwrap_or(0);
    for (key, value) in &rows {
        println!("{key:width$}  {value}");
    }
    let mut problems = Vec::new();
    if let Err(message) = Ui::embedded() {
        problems.push(message);
    }
    let data_dir = &config.data_dir;
    let parent = data_dir.parent().filter(|p| !p.as_os_str().is_empty());
    if data_dir.exists() && !data_dir.is_dir() {
        problems.push(format!("data_dir {} is not a folder", data_dir.display()));
    } else if !data_dir.exists() && parent.is_some_and(|p| !p.is_dir()) {
        problems.push(format!(
            "data_dir {} cannot be created: its parent folder does not exist",
            data_dir.display()
        ));
    }
    if config.firestore.is_some()
        && std::env::var_os("FIRESTORE_EMULATOR_HOST").is_none()
        && let Some(path) = std::env::var_os("GOOGLE_APPLICATION_CREDENTIALS")
        && !std::path::Path::new(&path).is_file()
    {
        problems.push(format!(
            "GOOGLE_APPLICATION_CREDENTIALS names {}, which is not a file",
            std::path::Path::new(&path).display()
        ));
    }
    if problems.is_empty() {
        eprintln!("configuration ok");
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// GET /healthz (or /readyz) on this host's own port, over a plain TCP connection.
async fn healthcheck(config: &Config, ready: bool, limit: Duration) -> Result<(), String> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let mut addr = config.addr;
    if addr.ip().is_unspecified() {
        addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
    }
    let path = if ready { "/readyz" } else { "/healthz" };
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response).await?;
        Ok::<_, std::io::Error>(response)
    };
    let response = tokio::time::timeout(limit, exchange)
        .await
        .map_err(|_| {
            format!(
                "http://{addr}{path} did not answer within {} s",
                limit.as_secs()
            )
        })?
        .map_err(|e| format!("cannot reach http://{addr}{path}: {e}"))?;
    let text = String::from_utf8_lossy(&response);
    let status = text.lines().next().unwrap_or_default();
    if status.split_whitespace().nth(1) == Some("200") {
        Ok(())
    } else {
        let body = text.split("\r\n\r\n").nth(1).unwrap_or_default().trim();
        Err(format!("http://{addr}{path} answered {status:?}: {body}"))
    }
}

async fn phrases(config: Arc<Config>, command: PhrasesCommand) -> Result<(), String> {
    if let PhrasesCommand::Init = command {
        return init(&config);
    }
    let store = open_store(&config).await?;
    match command {
        PhrasesCommand::Init => unreachable!("handled above"),
        PhrasesCommand::List { json } => {
            let phrases = store.list().await.map_err(|e| e.to_string())?;
            if json {
                // JSON escapes every control character itself.
                let text = serde_json::to_string_pretty(&phrases).map_err(|e| e.to_string())?;
                println!("{text}");
            } else {
                for phrase in &phrases {
                    println!(
                        "{}\t{}\t{}",
                        terminal_safe(&phrase.id),
                        terminal_safe(&phrase.word),
                        terminal_safe(&phrase.name)
                    );
                }
                eprintln!("{} phrases", phrases.len());
            }
        }
        PhrasesCommand::Add { word, name } => {
            let phrase = NewPhrase::validated(&word, &name).map_err(|e| e.to_string())?;
            let phrase = store.add(phrase).await.map_err(|e| e.to_string())?;
            println!("added {} {:?} by {:?}", phrase.id, phrase.word, phrase.name);
        }
        PhrasesCommand::Remove { id } => {
            let phrase = store.remove(id).await.map_err(|e| e.to_string())?;
            println!(
                "removed {} {:?} by {:?}",
                terminal_safe(&phrase.id),
                phrase.word,
                phrase.name
            );
        }
        PhrasesCommand::Import { file } => import(store.as_ref(), &file).await?,
        PhrasesCommand::Export { file } => {
            let phrases = store.list().await.map_err(|e| e.to_string())?;
            let mut text = serde_json::to_string_pretty(&phrases).map_err(|e| e.to_string())?;
            text.push('\n');
            match file {
                Some(path) => {
                    std::fs::write(&path, text)
                        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                    eprintln!("exported {} phrases to {}", phrases.len(), path.display());
                }
                None => print!("{text}"),
            }
        }
    }
    Ok(())
}

/// Creates the embedded store; says what is there when it already exists.
fn init(config: &Config) -> Result<(), String> {
    if let Some(location) = &config.firestore {
        return Err(format!(
            "the configured store is Firestore (project {:?}), which needs no init; `phrases init` creates the embedded store (--store embedded)",
            location.project
        ));
    }
    let (store, created) =
        EmbeddedStore::open_or_create(&config.data_dir, Seed::Empty).map_err(|e| e.to_string())?;
    let path = store.path().display();
    match created {
        None => println!("{path} already exists; nothing to do"),
        Some(created) => match created.imported {
            None => println!("created {path}"),
            Some(import) => {
                println!(
                    "created {path} with {} phrases from {}, renamed to {}",
                    import.added,
                    lastwords::store::embedded::LEGACY_FILE_NAME,
                    lastwords::store::embedded::LEGACY_IMPORTED_NAME
                );
                for reason in &import.rejected {
                    println!("  not imported {reason}");
                }
            }
        },
    }
    Ok(())
}

/// Adds every valid entry of `file` in as few writes as the store allows, then says what
/// became of each: added, already taken, or rejected with its reason.
async fn import(store: &dyn PhraseStore, file: &std::path::Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let entries: Vec<serde_json::Value> = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{} is not a JSON array of {{\"word\": ..., \"name\": ...}}: {e}",
            file.display()
        )
    })?;
    let total = entries.len();
    let mut valid = Vec::with_capacity(total);
    let mut rejected = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let number = index + 1;
        let (Some(word), Some(name)) = (
            entry.get("word").and_then(|v| v.as_str()),
            entry.get("name").and_then(|v| v.as_str()),
        ) else {
            rejected.push(format!("#{number}: needs string fields word and name"));
            continue;
        };
        match NewPhrase::validated(word, name) {
            Ok(phrase) => valid.push(phrase),
            Err(error) => rejected.push(format!("#{number} \"{}\": {error}", preview(word))),
        }
    }
    let outcomes = store
        .add_many(valid)
        .await
        .map_err(|e| format!("nothing imported: {e}"))?;
    let added = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, AddOutcome::Added(_)))
        .count();
    let taken = outcomes.len() - added;
    for reason in &rejected {
        println!("rejected {reason}");
    }
    println!(
        "{total} entries: added {added}, skipped {taken} as already taken, rejected {}",
        rejected.len()
    );
    if rejected.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {total} entries were rejected (listed above); every valid one was imported",
            rejected.len()
        ))
    }
}
