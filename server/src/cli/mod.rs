//! What the binary does, apart from parsing its command line: each subcommand as a
//! function over the resolved [`Config`], so `main.rs` only dispatches.

pub mod config_check;
pub mod healthcheck;
pub mod phrases;
pub mod serve;

use std::path::Path;

use crate::config::{Config, ConfigError, Environment, Settings};

/// `command` with each subcommand's help narrowed to the settings it uses. The others
/// stay accepted there, as flags and as environment variables, only hidden: one
/// environment serves every subcommand, and every value is still checked.
pub fn narrow_help(command: clap::Command) -> clap::Command {
    let hidden_but = |used: &[&str]| -> Vec<clap::Arg> {
        command
            .get_arguments()
            .filter(|arg| arg.is_global_set() && !used.contains(&arg.get_id().as_str()))
            .map(|arg| arg.clone().hide(true))
            .collect()
    };
    // A subcommand that already has an argument keeps it rather than take the global one.
    let phrases = hidden_but(phrases::SETTINGS);
    let healthcheck = hidden_but(healthcheck::SETTINGS);
    command
        .mut_subcommand("phrases", |sub| sub.args(phrases))
        .mut_subcommand("healthcheck", |sub| sub.args(healthcheck))
}

/// `command` without the environment variable of each setting given as a flag in `args`:
/// the flag wins. clap reads a global setting's variable where the command line starts,
/// so an empty or bad one (a platform's `PORT=`) was refused before the flag given after
/// the subcommand was seen.
pub fn flags_over_environment(
    command: clap::Command,
    args: &[std::ffi::OsString],
) -> clap::Command {
    // After `--` every word is a value (`phrases add -- --data-dir`), not a flag.
    let flags = args.iter().take_while(|arg| *arg != "--");
    let given = |long: &str| {
        flags.clone().any(|arg| {
            arg.to_str().is_some_and(|arg| {
                arg.strip_prefix("--")
                    .and_then(|arg| arg.strip_prefix(long))
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
            })
        })
    };
    let overridden: Vec<clap::Id> = command
        .get_arguments()
        .filter(|arg| arg.get_env().is_some() && arg.get_long().is_some_and(given))
        .map(|arg| arg.get_id().clone())
        .collect();
    overridden.into_iter().fold(command, |command, id| {
        command.mut_arg(id, |arg| arg.env(None::<&str>))
    })
}

/// Flags and environment (`settings`) over the TOML `file`, resolved.
pub fn load_config(file: Option<&Path>, settings: &Settings) -> Result<Config, ConfigError> {
    let file = match file {
        Some(path) => Settings::from_file(path)?,
        None => Settings::default(),
    };
    settings.clone().or(file).resolve()
}

/// Writes `text` to standard output, all of it before this returns. A reader that has
/// gone (`lastwords phrases list | head`) ends the process as SIGPIPE ends other tools
/// (status 141), not in a panic with a backtrace: Rust ignores the signal, which the
/// server needs, and `print!` panics. Any other failure (`phrases export > backup.json`
/// on a full disk) ends it with status 1 and says so: a script must not take a cut-short
/// export for a whole one.
pub fn out(text: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    // Flushed here: what is left in the buffer at exit is written with its error ignored.
    match stdout.write_fmt(text).and_then(|()| stdout.flush()) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(141),
        Err(error) => {
            let _ = writeln!(
                std::io::stderr(),
                "lastwords: cannot write to standard output: {error}; what it printed is cut short (a change it made, such as a phrase added, stands)"
            );
            std::process::exit(1);
        }
    }
}

/// `text` on standard error, unless it cannot be written (closed, full): a message lost
/// there must not take the process, or a change it made, with it, as `eprintln!`'s panic
/// did.
pub fn err(text: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = std::io::stderr().lock().write_fmt(text);
}

/// `eprintln!` through [`err`].
#[macro_export]
macro_rules! tell {
    ($($arg:tt)*) => {
        $crate::cli::err(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `println!` to standard output through [`out`].
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `error` as clap made it, naming the environment variable a bad value came from when
/// the flag it names was not given (clap names the flag the variable stands for, which
/// an operator who never typed it looks for in vain).
pub fn from_environment(command: &clap::Command, mut error: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue};
    let Some(ContextValue::String(named)) = error.get(ContextKind::InvalidArg) else {
        return error;
    };
    let flag = named
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned();
    let given = std::env::args().any(|arg| arg == flag || arg.starts_with(&format!("{flag}=")));
    let variable = command
        .get_arguments()
        .find(|arg| {
            arg.get_long()
                .is_some_and(|long| format!("--{long}") == flag)
        })
        .and_then(clap::Arg::get_env)
        .and_then(|name| name.to_str())
        .filter(|name| !given && std::env::var_os(name).is_some());
    if let Some(variable) = variable {
        let tip = if std::env::var_os(variable).is_some_and(|value| value.is_empty()) {
            format!(
                "the environment variable {variable} is set, but empty: unset it, or give it a value"
            )
        } else {
            format!("the value comes from the environment variable {variable}")
        };
        error.insert(
            ContextKind::Suggested,
            ContextValue::StyledStrs(vec![tip.into()]),
        );
    }
    error
}

/// Logs to standard error: JSON lines in production, compact text in staging.
/// `command`: a one-off command (`phrases add`), not the host.
pub fn init_tracing(environment: Environment, command: bool) {
    // The Firestore client warns at every RESET of the listen stream, a routine part of
    // the protocol that the feed handles (an emulator sends one per write), and says
    // ERROR twice a second while it cannot reach Firestore, whose outage the host tells
    // itself once, with the cause its probe met, and again when the list comes back.
    // The file watcher (--ui-dir) tells of a watch that went with its folder at info:
    // routine too. So are the client's word of each connection it makes, and its error
    // at each request past its deadline, which its retry (or our probe) tells again.
    // A command's operator is told once, in the error it ends with, what its retries met.
    let default = || {
        tracing_subscriber::EnvFilter::new(format!(
            "info,firestore::db=warn,firestore::db::listen_changes::event_loop=off,gcloud_sdk::middleware=off,gcloud_sdk::request_timeouts=off,notify=warn{}",
            if command {
                ",firestore::db::retry=off"
            } else {
                ""
            }
        ))
    };
    let mut unread = None;
    let filter = match std::env::var("RUST_LOG") {
        Ok(given) if !given.is_empty() => tracing_subscriber::EnvFilter::try_new(&given)
            .unwrap_or_else(|error| {
                unread = Some((given, error));
                default()
            }),
        _ => default(),
    };
    // A line that cannot be written (its pipe closed while the log shipper restarts, a
    // full disk) is lost, not the host: the subscriber's own report of the failure went
    // to the same standard error with `eprintln!`, which panicked.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .log_internal_errors(false)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    match environment {
        Environment::Production => builder.json().init(),
        Environment::Staging => builder.compact().init(),
    }
    if let Some((given, error)) = unread {
        tracing::warn!(rust_log = %given, %error, "RUST_LOG cannot be read; logging at info instead");
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        settings: super::Settings,
    }

    #[test]
    fn the_settings_a_subcommand_uses_are_settings() {
        let command = Cli::command();
        let lists = super::phrases::SETTINGS
            .iter()
            .chain(super::healthcheck::SETTINGS);
        // `config` (the file) is main's own flag, beside the settings.
        for id in lists.filter(|id| **id != "config") {
            assert!(
                command.get_arguments().any(|arg| arg.get_id() == *id),
                "{id}"
            );
        }
    }
}
