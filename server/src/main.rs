use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{CommandFactory as _, FromArgMatches as _, Parser, Subcommand};
use lastwords::cli::{self, config_check, healthcheck, phrases, serve};
use lastwords::config::Settings;

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
    Phrases(phrases::PhrasesCommand),
    /// Inspect the configuration
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Exit 0 if the server on the configured port answers /healthz (for container
    /// health checks: the image has no curl)
    Healthcheck {
        /// Ask /readyz instead: also fails until the phrase list is loaded
        #[arg(long)]
        ready: bool,
        /// Give up after this many seconds (1 to 3600)
        #[arg(long, default_value_t = 3, value_name = "SECONDS",
              value_parser = clap::value_parser!(u64).range(1..=3600))]
        timeout: u64,
    },
}

#[derive(Subcommand)]
enum ConfigCommand {
    /// Print the effective configuration (flags, environment and file merged, defaults
    /// filled in, secrets masked) and exit non-zero if something is wrong
    Check,
    /// Print the reference table of every setting (flag, environment variable, TOML key,
    /// default, meaning), as docs/operations.md holds it
    Reference,
}

/// Where the host this container runs listens, from its own command line, unless the
/// health check was told an address or a file on its own.
fn serving_addr(matches: &clap::ArgMatches) -> Option<std::net::SocketAddr> {
    let told = healthcheck::SETTINGS
        .iter()
        .any(|&id| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine));
    if told {
        return None;
    }
    healthcheck::container_processes()
        .into_iter()
        .find_map(|started| {
            let host = Cli::try_parse_from(started.args).ok()?;
            if !matches!(host.command, None | Some(Command::Serve)) {
                return None;
            }
            let file = host.config.map(|file| started.folder.join(file));
            cli::load_config(file.as_deref(), &host.settings).ok()
        })
        .map(|config| config.http.addr)
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let command = cli::narrow_help(cli::flags_over_environment(Cli::command(), &args));
    // A container's health check reads 1 as unhealthy and reserves 2, clap's code for a
    // value it cannot read (`PORT=abc` in the container's environment).
    let healthcheck = args.iter().skip(1).any(|arg| arg == "healthcheck");
    let refuse = |error: clap::Error| -> ! {
        if healthcheck && error.use_stderr() {
            let _ = error.print();
            std::process::exit(1);
        }
        error.exit()
    };
    let matches = command
        .clone()
        .try_get_matches()
        .unwrap_or_else(|error| refuse(cli::from_environment(&command, error)));
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| refuse(error));
    // The phrases commands make no link: the public URL production asks for is the
    // site's, and a one-off job run with the deployment's store settings need not know it.
    if matches!(cli.command, Some(Command::Phrases(_))) && cli.settings.public_url.is_none() {
        cli.settings.public_url = Some("https://phrases-command.invalid".into());
    }
    let config = match cli::load_config(cli.config.as_deref(), &cli.settings) {
        Ok(config) => Arc::new(config),
        Err(message) => {
            lastwords::tell!("lastwords: {message}");
            // A container's health check reads 1 as unhealthy; 2 is reserved there.
            let healthcheck = matches!(cli.command, Some(Command::Healthcheck { .. }));
            return ExitCode::from(if healthcheck { 1 } else { 2 });
        }
    };
    let serving = matches!(cli.command, None | Some(Command::Serve));
    cli::init_tracing(config.environment, !serving);
    // A worker takes at most 64 ready sockets from the poller at a time. With the
    // default 1,024, one worker took a thousand busy connections at once, its run queue
    // (256) spilled the earliest into the shared queue, behind the later ones, and p99
    // was twice as long (docs/benchmarks.md, issue 22: 22 ms against 12). A blocking
    // thread outlives the store's idle look every 30 s: made and ended for each one (the
    // default keeps it 10 s), it was most of an idle host's CPU.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_io_events_per_tick(64)
        .thread_keep_alive(std::time::Duration::from_secs(45))
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            lastwords::tell!("lastwords: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            None | Some(Command::Serve) => serve::run(config).await,
            Some(Command::Phrases(command)) => phrases::run(&config.store, command).await,
            Some(Command::Config(ConfigCommand::Check)) => config_check::run(&config),
            Some(Command::Config(ConfigCommand::Reference)) => {
                cli::out(format_args!("{}", lastwords::config::reference_table()));
                Ok(())
            }
            Some(Command::Healthcheck { ready, timeout }) => {
                let addr = serving_addr(&matches).unwrap_or(config.http.addr);
                healthcheck::run(addr, ready, Duration::from_secs(timeout)).await
            }
        }
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        // The alternate form prints the context, then each cause after a colon. A host's
        // last word goes where its logs go, in their format, so the collector that reads
        // JSON in production files it as an error; a command's goes to the person who ran it.
        Err(error) if serving && tracing::enabled!(tracing::Level::ERROR) => {
            tracing::error!("{error:#}");
            ExitCode::FAILURE
        }
        Err(error) => {
            lastwords::tell!("lastwords: {error:#}");
            ExitCode::FAILURE
        }
    }
}
