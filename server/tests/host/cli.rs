//! The binary as an operator meets it: start-up errors and the phrases commands.

use std::path::Path;
use std::process::Command;

fn lastwords() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lastwords"));
    command.env_remove("PORT").env("NO_COLOR", "1");
    command
}

#[test]
fn a_bad_setting_stops_start_up_naming_the_key_and_the_value() {
    let output = lastwords()
        .args(["serve", "--public-url", "ftp://nowhere"])
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("public_url") && stderr.contains("ftp://nowhere"),
        "{stderr}"
    );

    let output = lastwords()
        .arg("serve")
        .env("PORT", "eighty")
        .output()
        .expect("the binary runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--port") && stderr.contains("eighty"),
        "{stderr}"
    );
}

#[test]
fn a_product_name_that_is_one_of_the_sites_own_paths_stops_start_up() {
    for path in lastwords::config::SITE_PATHS {
        let name = format!("{}{}", path[..1].to_uppercase(), &path[1..]);
        for command in [&["serve"][..], &["config", "check"]] {
            let output = lastwords()
                .args(command)
                .args(["--product-name", &name, "--port", "0"])
                .output()
                .expect("the binary runs");
            assert_eq!(output.status.code(), Some(2), "{command:?} {name}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(
                stderr.contains("product_name")
                    && stderr.contains(&name)
                    && stderr.contains(&format!("/{path}/ is the site's own")),
                "{stderr}"
            );
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
}

#[test]
fn a_bad_config_file_is_named_with_the_offending_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lastwords.toml");
    std::fs::write(&file, "render_threads = \"many\"\n").unwrap();
    let output = lastwords()
        .args(["--config", file.to_str().unwrap(), "serve"])
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("render_threads") && stderr.contains("lastwords.toml"),
        "{stderr}"
    );
}

#[test]
fn a_config_file_that_is_no_file_is_refused_not_read_for_ever() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("settings.toml");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    let big = dir.path().join("big.toml");
    std::fs::write(&big, "# a comment\n".repeat(100_000)).unwrap();
    // A FIFO no one writes to waited for ever; /dev/zero was read until memory ran out.
    for (file, why) in [
        (fifo.as_path(), "not a regular file"),
        (Path::new("/dev/zero"), "not a regular file"),
        (big.as_path(), "over 1 MiB"),
    ] {
        let output = lastwords()
            .args(["config", "check", "--config"])
            .arg(file)
            .output()
            .expect("the binary runs");
        assert_eq!(output.status.code(), Some(2), "{}", file.display());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(why), "{stderr}");
    }
}

#[test]
fn export_to_a_dash_writes_to_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    init(data);
    add(data, "dash", "Op");
    let output = lastwords()
        .current_dir(dir.path())
        .args(["phrases", "export", "-", "--data-dir", data])
        .output()
        .expect("the binary runs");
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("\"DASH\""));
    assert!(!dir.path().join("-").exists(), "no file named -");
}

#[test]
fn phrases_add_upper_cases_and_refuses_what_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    init(data);
    let add = |word: &str| {
        lastwords()
            .args(["phrases", "add", word, "--name", "Tess", "--data-dir", data])
            .output()
            .expect("the binary runs")
    };
    let first = add("rawr");
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    assert!(String::from_utf8_lossy(&first.stdout).contains("\"RAWR\""));
    let again = add("Rawr");
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already taken"));
    let long = add(&"x".repeat(21));
    assert!(!long.status.success());
    assert!(String::from_utf8_lossy(&long.stderr).contains("at most 20 characters"));
    // What shows as the taken phrase: a braille blank is a space, and a selector after a
    // letter changes nothing.
    let blank = add("rawr\u{2800}");
    assert!(String::from_utf8_lossy(&blank.stderr).contains("already taken"));
    let selector = add("raw\u{fe0f}r");
    assert!(String::from_utf8_lossy(&selector.stderr).contains("U+FE0F"));
    // One that reads like it is minted, and the operator told.
    let alike = add("rawr 0");
    assert!(alike.status.success());
    let alike = add("rawr o");
    assert!(alike.status.success());
    assert!(
        String::from_utf8_lossy(&alike.stderr).contains("\"RAWR O\" reads like \"RAWR 0\""),
        "{}",
        String::from_utf8_lossy(&alike.stderr)
    );

    let list = lastwords()
        .args(["phrases", "list", "--json", "--data-dir", data])
        .output()
        .expect("the binary runs");
    let phrases: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert!(
        phrases
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["word"] == "RAWR")
    );
}

#[test]
fn a_name_is_printed_whole_and_cannot_seem_to_end_its_quote() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    init(data);
    let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}";
    let name = format!(r#"Rex"; removed "DINO ROAR {family}"#);
    let add = || {
        lastwords()
            .args([
                "phrases",
                "add",
                "quoted",
                "--name",
                &name,
                "--data-dir",
                data,
            ])
            .output()
            .expect("the binary runs")
    };
    let added = add();
    let stdout = String::from_utf8_lossy(&added.stdout);
    assert!(
        stdout.contains(&format!(
            r#""QUOTED" by "Rex\"; removed \"DINO ROAR {family}""#
        )),
        "{stdout}"
    );
    let again = add();
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert!(
        stderr.contains(&format!(r#"(by "Rex\"; removed \"DINO ROAR {family}")"#)),
        "{stderr}"
    );
    let list = lastwords()
        .args(["phrases", "list", "--data-dir", data])
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&list.stdout);
    assert!(stdout.contains(&format!("\tQUOTED\t{name}\n")), "{stdout}");
}

#[test]
fn import_adds_new_phrases_and_says_what_it_skipped_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    init(data);
    add(data, "good luck!", "Anky");
    let file = dir.path().join("import.json");
    let long = "y".repeat(21);
    std::fs::write(
        &file,
        format!(
            r#"[{{"word":"first one","name":"A"}},{{"word":"FIRST ONE","name":"B"}},{{"word":"GOOD LUCK!","name":"C"}},{{"word":"{long}","name":"D"}},{{"word":7,"name":"E"}},{{"word":"CUT","name":"Rex \ud83e"}},{{"word":"AFTER IT","name":"F"}}]"#
        ),
    )
    .unwrap();
    let output = lastwords()
        .args([
            "phrases",
            "import",
            file.to_str().unwrap(),
            "--data-dir",
            data,
        ])
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Rejected entries make the exit status say so, after every valid one was added.
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("3 of 7 entries were rejected"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("added 2, skipped 2 as already taken, rejected 3"),
        "{stdout}"
    );
    assert!(
        stdout.contains("#4 ") && stdout.contains("at most 20 characters"),
        "{stdout}"
    );
    assert!(stdout.contains("#5: needs string fields"), "{stdout}");
    // Half an emoji's escape, as a writer that cut a name by UTF-16 units leaves it: that
    // entry alone is rejected.
    assert!(
        stdout.contains("#6: not valid JSON (unexpected end of hex escape)"),
        "{stdout}"
    );
}

/// Mints `word` by `name` in the store at `data`.
fn add(data: &str, word: &str, name: &str) {
    let output = lastwords()
        .args(["phrases", "add", word, "--name", name, "--data-dir", data])
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Creates an empty embedded store in `data`.
fn init(data: &str) {
    let output = lastwords()
        .args(["phrases", "init", "--data-dir", data])
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A port nothing listens on right now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn healthcheck_passes_against_a_serving_host_and_fails_once_it_stops() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port().to_string();
    let mut server = lastwords()
        .args(["serve", "--port", &port, "--data-dir"])
        .arg(data.path())
        .env("RUST_LOG", "warn")
        .spawn()
        .expect("the server starts");
    let healthcheck = |extra: &[&str]| {
        lastwords()
            .args(["healthcheck", "--port", &port])
            .args(extra)
            .output()
            .expect("the binary runs")
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !healthcheck(&[]).status.success() {
        assert!(std::time::Instant::now() < deadline, "never healthy");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(
        healthcheck(&["--ready"]).status.success(),
        "the embedded store loads at once"
    );

    // SIGTERM is a clean stop: exit code 0.
    let status = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(server.wait().unwrap().code(), Some(0));

    let output = healthcheck(&[]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("127.0.0.1:{port}/healthz")),
        "{stderr}"
    );

    // A setting it cannot read is unhealthy too: a container runtime reserves 2.
    let output = lastwords()
        .args(["healthcheck", "--port", &port])
        .env("LASTWORDS_RENDER_THREADS", "0")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("render_threads"));
    // So is one the command line's parser cannot read, and a timeout of none or of ages.
    for (env, args) in [
        (Some("abc"), &[][..]),
        (Some(""), &[][..]),
        (None, &["--timeout", "0"][..]),
        (None, &["--timeout", "18446744073709551615"][..]),
    ] {
        let mut command = lastwords();
        if let Some(port) = env {
            command.env("PORT", port);
        }
        let output = command.arg("healthcheck").args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{env:?} {args:?}");
    }
}

#[test]
fn the_health_check_asks_where_the_containers_host_was_told_to_listen() {
    // `docker run IMAGE serve --port 9000`: the image says PORT=8080 to every process, the
    // host listens where its flag says, and the health check must ask there.
    let namespaces = Command::new("unshare")
        .args(["--pid", "--fork", "--mount-proc", "true"])
        .output();
    if !namespaces.is_ok_and(|output| output.status.success()) {
        eprintln!("skipped: making a process namespace needs root and util-linux's unshare");
        return;
    }
    let binary = env!("CARGO_BIN_EXE_lastwords");
    let data = tempfile::tempdir().unwrap();
    let elsewhere = free_port().to_string();
    // Each its own port: the last container's host may still hold its own as it goes.
    let ports: [u16; 3] = std::array::from_fn(|_| free_port());
    let shell = |line: String| ["sh".to_owned(), "-c".to_owned(), line];
    let containers = [
        // The host is process 1.
        (
            vec![
                binary.to_owned(),
                "serve".into(),
                "--port".into(),
                ports[0].to_string(),
            ],
            true,
        ),
        // The one child of an init (`docker run --init`).
        (
            shell(format!("{binary} serve --port {} & wait", ports[1])).into(),
            true,
        ),
        // One of several: not a container's host, as on a machine whose process 1 is its
        // init, with every daemon its child.
        (
            shell(format!(
                "{binary} serve --port {} & sleep 600 & wait",
                ports[2]
            ))
            .into(),
            false,
        ),
    ];
    for ((container, found), port) in containers.into_iter().zip(ports) {
        let mut namespace = Command::new("unshare")
            .args(["--pid", "--fork", "--mount-proc", "--kill-child", "--"])
            .args(&container)
            .current_dir(data.path())
            .env("PORT", &elsewhere)
            .env("LASTWORDS_DATA_DIR", data.path())
            .env("RUST_LOG", "warn")
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        let first = loop {
            let children = format!("/proc/{0}/task/{0}/children", namespace.id());
            let found = std::fs::read_to_string(children).unwrap_or_default();
            if let Some(pid) = found.split_whitespace().next() {
                break pid.to_owned();
            }
            assert!(std::time::Instant::now() < deadline, "no namespace");
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "{container:?} never listened"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let healthcheck = |extra: &[&str]| {
            Command::new("nsenter")
                .args(["--target", &first, "--pid", "--mount", "--"])
                .args([binary, "healthcheck"])
                .args(extra)
                .env("PORT", &elsewhere)
                .env("NO_COLOR", "1")
                .output()
                .unwrap()
        };
        // Listening comes before serving: a host found answers within the deadline.
        let mut asked = healthcheck(&[]);
        while found && !asked.status.success() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(100));
            asked = healthcheck(&[]);
        }
        let told_elsewhere = healthcheck(&["--port", &elsewhere]);
        namespace.kill().unwrap();
        namespace.wait().unwrap();
        let stderr = String::from_utf8_lossy(&asked.stderr);
        assert_eq!(asked.status.success(), found, "{container:?}: {stderr}");
        // Told an address on its own command line, it asks there.
        assert_eq!(told_elsewhere.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&told_elsewhere.stderr).contains(&elsewhere));
    }
}

#[test]
fn render_threads_and_queue_are_bounded() {
    for (threads, ok) in [("64", true), ("65", false), ("100000", false)] {
        let output = lastwords()
            .args(["config", "check", "--render-threads", threads])
            .output()
            .unwrap();
        assert_eq!(output.status.success(), ok, "{threads}");
    }
    // The queue's slots are allocated at start: a few zeros too many took all memory.
    for (queue, ok) in [
        ("1", true),
        ("65536", true),
        ("65537", false),
        ("99999999999", false),
    ] {
        for command in [&["config", "check"][..], &["serve", "--port", "0"]] {
            if ok && command[0] == "serve" {
                continue;
            }
            let output = lastwords()
                .args(command)
                .args(["--render-queue", queue])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.success(), ok, "{command:?} {queue}: {stderr}");
            if !ok {
                assert_eq!(
                    output.status.code(),
                    Some(2),
                    "{command:?} {queue}: {stderr}"
                );
                assert!(
                    stderr.contains("render_queue") && stderr.contains("1 to 65536"),
                    "{stderr}"
                );
            }
        }
    }
}

#[test]
fn config_check_refuses_the_store_serve_would_refuse_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let check = |data: &std::path::Path, production: bool| {
        let mut command = lastwords();
        command
            .args(["config", "check"])
            .arg("--data-dir")
            .arg(data);
        if production {
            command.args(["--env", "production", "--store", "embedded"]);
            command.args(["--public-url", "https://dinos.example"]);
        }
        let output = command.output().unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let listing = |data: &std::path::Path| {
        let mut names: Vec<_> = std::fs::read_dir(data)
            .map(|entries| entries.map(|e| e.unwrap().file_name()).collect())
            .unwrap_or_default();
        names.sort();
        names
    };

    // No store: serve makes one with samples outside production, and refuses in it.
    let empty = dir.path().join("empty");
    assert!(check(&empty, false).0);
    let (ok, stderr) = check(&empty, true);
    assert!(
        !ok && stderr.contains("there is no phrase store at"),
        "{stderr}"
    );
    assert!(!empty.exists(), "nothing made");
    // Folders that serve would make, nested: as good, and none is made.
    let nested = dir.path().join("a/b/c");
    let (ok, stderr) = check(&nested, false);
    assert!(ok, "{stderr}");
    assert!(!dir.path().join("a").exists(), "nothing made");
    // Under a file, which no folder can be made in.
    std::fs::write(dir.path().join("file"), "").unwrap();
    let (ok, stderr) = check(&dir.path().join("file/data"), false);
    assert!(!ok && stderr.contains("file is not a folder"), "{stderr}");

    // A sound store: passes, and no file appears beside it.
    let sound = dir.path().join("sound");
    let init = lastwords()
        .args(["phrases", "init", "--data-dir"])
        .arg(&sound)
        .output()
        .unwrap();
    assert!(init.status.success());
    let before = listing(&sound);
    let (ok, stderr) = check(&sound, true);
    assert!(ok, "{stderr}");
    assert_eq!(listing(&sound), before);

    // A damaged one: said as serve says it.
    let store = sound.join("phrases.sqlite3");
    std::fs::write(&store, "garbage").unwrap();
    let (ok, stderr) = check(&sound, false);
    assert!(
        !ok && stderr.contains("is too short to be a database"),
        "{stderr}"
    );
    assert!(stderr.contains(&store.display().to_string()), "{stderr}");
}

#[test]
fn config_check_prints_the_effective_settings_masked_and_fails_on_problems() {
    let dir = tempfile::tempdir().unwrap();
    let output = lastwords()
        .args(["config", "check", "--chat-url", "https://chat.example/i"])
        .arg("--data-dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("https://chat.example/i"), "{stdout}");

    // A password in a link every page shows would be published: refused, and not shown.
    let output = lastwords()
        .args([
            "config",
            "check",
            "--chat-url",
            "https://ops:hunter2@chat.example",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("chat_url") && stderr.contains("https://ops:***@chat.example/"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");

    // In the public URL a password would be in every link: refused, and not shown.
    let output = lastwords()
        .args([
            "config",
            "check",
            "--public-url",
            "https://ops:hunter2@dinos.example",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("public_url") && stderr.contains("ops:***@"),
        "{stderr}"
    );
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert!(stdout.contains("allowed_origins") && stdout.contains("max_sockets"));

    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, "x").unwrap();
    let output = lastwords()
        .args(["config", "check", "--data-dir"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("is not a folder"));
}

#[test]
fn production_refuses_to_start_without_what_it_needs() {
    let output = lastwords()
        .args(["serve", "--env", "production"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("LASTWORDS_PUBLIC_URL"), "{stderr}");

    // What `config check` in production says of these settings, refusing them.
    let refused = |settings: &[&str]| {
        let output = lastwords()
            .args(["config", "check", "--env", "production"])
            .args(settings)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2));
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let stderr = refused(&["--public-url", "https://dinos.example"]);
    assert!(stderr.contains("--store embedded"), "{stderr}");
    let stderr = refused(&[
        "--store",
        "embedded",
        "--public-url",
        "http://dinos.example",
    ]);
    assert!(stderr.contains("give the https:// address"), "{stderr}");
}

#[test]
fn production_serves_no_sample_phrases_from_a_folder_without_a_store() {
    // A volume lost or not mounted would be a site of made-up phrases, taken for real.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let output = lastwords()
        .args(["serve", "--env", "production", "--store", "embedded"])
        .args([
            "--public-url",
            "https://dinos.example",
            "--port",
            "0",
            "--data-dir",
        ])
        .arg(&data)
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("there is no phrase store at"), "{stderr}");
    assert!(stderr.contains("`lastwords phrases init`"), "{stderr}");
    assert!(!data.exists(), "nothing made up on disk");
}

#[test]
fn a_host_that_stops_says_why_in_its_log_format() {
    // A collector reading JSON in production files a plain line as an unknown-severity
    // message: the reason a container keeps restarting must be an error event.
    let dir = tempfile::tempdir().unwrap();
    let serve = |rust_log: &str| {
        lastwords()
            .args(["serve", "--env", "production", "--store", "embedded"])
            .args(["--public-url", "https://dinos.example", "--port", "0"])
            .arg("--data-dir")
            .arg(dir.path().join("missing"))
            .env("RUST_LOG", rust_log)
            .output()
            .unwrap()
    };
    let output = serve("");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let events: Vec<serde_json::Value> = stderr
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    let last = events.last().expect("a line says why");
    assert_eq!(last["level"], "ERROR", "{stderr}");
    let message = last["fields"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("there is no phrase store at"), "{stderr}");

    // Logging turned off for the host's own lines: the reason still reaches stderr.
    let output = serve("tower_http=debug");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("there is no phrase store at"), "{stderr}");
}

#[test]
fn list_prints_nothing_a_terminal_would_act_on() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    init(data);
    // Written by hand, past every check: an escape sequence that would clear the screen.
    let connection = rusqlite::Connection::open(dir.path().join("phrases.sqlite3")).unwrap();
    connection
        .execute(
            "INSERT INTO phrases (id, word, name) VALUES ('e\u{1b}[2J', 'FINE', 'Mallory\u{1b}]0;owned\u{7}')",
            [],
        )
        .unwrap();
    drop(connection);
    let output = lastwords()
        .args(["phrases", "list", "--data-dir", data])
        .output()
        .expect("the binary runs");
    assert!(output.status.success());
    for stream in [&output.stdout, &output.stderr] {
        let text = String::from_utf8_lossy(stream);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("breaks the content rules"),
        "the broken row is named, not shown: {stderr}"
    );
}

#[test]
fn each_subcommand_help_lists_only_the_settings_it_uses() {
    let help = |args: &[&str]| {
        let output = lastwords().args(args).output().expect("the binary runs");
        assert!(output.status.success(), "{args:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    for args in [&["phrases", "--help"][..], &["phrases", "add", "--help"]] {
        let text = help(args);
        for used in [
            "--data-dir",
            "--store",
            "--firestore-project",
            "--firestore-database",
            "--firestore-collection",
            "LASTWORDS_STORE",
            "--config",
        ] {
            assert!(text.contains(used), "{args:?} lacks {used}:\n{text}");
        }
        for unused in [
            "--render-threads",
            "--max-sockets",
            "--public-url",
            "--port",
        ] {
            assert!(!text.contains(unused), "{args:?} lists {unused}:\n{text}");
        }
    }
    let text = help(&["healthcheck", "--help"]);
    assert!(
        text.contains("--port") && text.contains("--ready"),
        "{text}"
    );
    assert!(!text.contains("--render-threads"), "{text}");
    for args in [
        &["--help"][..],
        &["serve", "--help"],
        &["config", "check", "--help"],
    ] {
        let text = help(args);
        assert!(
            text.contains("--render-threads") && text.contains("--max-sockets"),
            "{args:?}:\n{text}"
        );
    }
}

#[test]
fn a_setting_hidden_from_a_subcommand_help_is_still_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let output = lastwords()
        .args(["phrases", "list", "--render-threads", "3", "--data-dir"])
        .arg(dir.path())
        .env("LASTWORDS_MAX_SOCKETS", "0")
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("max_sockets"), "{stderr}");
}

#[test]
fn a_wrong_path_is_said_as_such_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("afile");
    std::fs::write(&file, "x").unwrap();
    let said = |args: &[&str]| {
        let output = lastwords().args(args).output().unwrap();
        assert!(!output.status.success(), "{args:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let file = file.to_str().unwrap();
    for command in [["phrases", "init"], ["serve", "--port"]] {
        let mut args = command.to_vec();
        if command[0] == "serve" {
            args.push("0");
        }
        args.extend(["--data-dir", file]);
        let stderr = said(&args);
        assert!(stderr.contains("is not a folder"), "{args:?}: {stderr}");
    }

    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    init(data);
    let stderr = said(&[
        "phrases",
        "backup",
        "/no/such/folder/b.sqlite3",
        "--data-dir",
        data,
    ]);
    assert!(
        stderr.contains("/no/such/folder, which is not a folder here"),
        "{stderr}"
    );

    // A file that is not a backup: what to do is about the file, not the store.
    let stderr = said(&["phrases", "restore", file, "--data-dir", data]);
    assert!(
        stderr.contains("Name a file `lastwords phrases backup` wrote"),
        "{stderr}"
    );
    assert!(!stderr.contains("phrases init"), "{stderr}");
}

#[test]
fn a_log_filter_it_cannot_read_is_said_not_ignored() {
    let output = lastwords()
        .args(["config", "check"])
        .env("RUST_LOG", "lastwords=[[[")
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("RUST_LOG cannot be read"), "{stderr}");
}

#[test]
fn a_bad_value_from_the_environment_names_the_variable() {
    for (variable, value, said) in [
        (
            "LASTWORDS_DATA_DIR",
            "",
            "LASTWORDS_DATA_DIR is set, but empty",
        ),
        ("PORT", "abc", "from the environment variable PORT"),
    ] {
        let output = lastwords()
            .args(["config", "check"])
            .env(variable, value)
            .output()
            .unwrap();
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(said), "{stderr}");
    }
    // Given as a flag, the flag is what was wrong.
    let output = lastwords()
        .args(["config", "check", "--port", "abc"])
        .env("PORT", "abc")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&output.stderr).contains("environment variable"));
}

#[test]
fn init_fails_when_entries_of_an_earlier_versions_file_were_not_imported() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let long = "W".repeat(21);
    std::fs::write(
        dir.path().join("phrases.json"),
        format!(
            r#"[{{"id":"a1","word":"HELLO","name":"Rex"}},{{"id":"a2","word":"{long}","name":"Ann"}}]"#
        ),
    )
    .unwrap();
    let output = lastwords()
        .args(["phrases", "init", "--data-dir", data])
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("not imported #2")
            && said.contains("1 of the entries in phrases.json were not imported"),
        "{said}"
    );
    // What was valid is in the store, and the file is kept for the operator to mend.
    let listed = lastwords()
        .args(["phrases", "list", "--data-dir", data])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&listed.stdout).contains("HELLO"));
    assert!(dir.path().join("phrases.json.imported").exists());
}

#[test]
fn a_reader_that_goes_ends_the_listing_quietly() {
    // `lastwords phrases list | head`: the reader leaves before the list is written.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    init(data);
    add(data, "STILL HERE", "Op");
    let mut child = lastwords()
        .args(["phrases", "list", "--data-dir", data])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(141),
        "as SIGPIPE ends other tools"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// What a run of the binary said, and its status.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(command: &mut Command) -> Ran {
    let output = command.output().unwrap();
    Ran {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn output_that_cannot_be_written_fails_the_command_and_says_so() {
    // `phrases export > backup.json` on a full disk: a cron job must not take the cut-short
    // file for a backup. /dev/full fails every write with ENOSPC.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    init(data);
    add(data, "KEEP ME", "Op");
    let full = || std::fs::File::create("/dev/full").unwrap();
    for args in [
        vec!["phrases", "export"],
        vec!["phrases", "list"],
        vec!["phrases", "list", "--json"],
        vec!["phrases", "add", "ONE MORE", "--name", "Op"],
        vec!["config", "check"],
    ] {
        let ran = run(lastwords()
            .args(&args)
            .args(["--data-dir", data])
            .stdout(full()));
        assert_eq!(ran.code, Some(1), "{args:?}: {}", ran.stderr);
        assert!(
            ran.stderr
                .contains("cannot write to standard output: No space left on device"),
            "{args:?}: {}",
            ran.stderr
        );
        assert!(!ran.stderr.contains("panicked"), "{}", ran.stderr);
    }
    // A note on standard error that cannot be written is no problem of the configuration.
    let ran = run(lastwords()
        .args(["config", "check", "--data-dir", data])
        .stdout(std::process::Stdio::null())
        .stderr(full()));
    assert_eq!(ran.code, Some(0));
}

#[test]
fn a_flag_wins_over_an_empty_or_bad_environment_variable() {
    // A platform sets PORT, a compose file leaves LASTWORDS_DATA_DIR empty: the operator's
    // flag, given after the subcommand, is what counts.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    for (variable, value, flag, shown) in [
        ("PORT", "abc", ["--port", "30105"], "127.0.0.1:30105"),
        ("PORT", "", ["--port", "30106"], "127.0.0.1:30106"),
        ("LASTWORDS_DATA_DIR", "", ["--data-dir", data], data),
        ("LASTWORDS_ENV", "prod", ["--env", "staging"], "staging"),
    ] {
        let mut command = lastwords();
        command
            .env(variable, value)
            .args(["config", "check"])
            .args(flag);
        if flag[0] != "--data-dir" {
            command.args(["--data-dir", data]);
        }
        let ran = run(&mut command);
        assert_eq!(ran.code, Some(0), "{variable}={value:?}: {}", ran.stderr);
        assert!(
            ran.stdout.contains(shown),
            "{variable}={value:?}: {}",
            ran.stdout
        );
    }
    // A word after `--` is a value, not the flag: the variable still names the store.
    init(data);
    let ran = run(lastwords()
        .current_dir(dir.path())
        .env("LASTWORDS_DATA_DIR", data)
        .args(["phrases", "add", "--name", "Op", "--", "--data-dir"]));
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    // Without the flag, the variable's bad value is still refused, naming it.
    let ran = run(lastwords()
        .env("PORT", "abc")
        .args(["config", "check", "--data-dir", data]));
    assert_eq!(ran.code, Some(2));
    assert!(ran.stderr.contains("PORT"));
}

#[test]
fn config_check_refuses_a_data_folder_serve_could_not_make_the_store_in() {
    use std::os::unix::fs::PermissionsExt as _;
    use std::os::unix::process::CommandExt as _;
    if !rustix::process::geteuid().is_root() {
        return; // It takes another user, which only root can run the check as.
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // Root's, empty, and not writable by the user the host runs as.
    let folder = dir.path().join("root-owned");
    std::fs::create_dir(&folder).unwrap();
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
    for data in [folder.clone(), folder.join("deeper")] {
        let ran = run(lastwords()
            .uid(65534)
            .gid(65534)
            .args(["config", "check", "--data-dir"])
            .arg(&data));
        assert_eq!(ran.code, Some(1), "{}: {}", data.display(), ran.stderr);
        assert!(
            ran.stderr
                .contains("(uid 65534) cannot create the database"),
            "{}",
            ran.stderr
        );
    }
}

#[test]
fn a_first_restore_makes_the_data_folder_and_a_file_for_a_folder_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old");
    let old = old.to_str().unwrap();
    init(old);
    add(old, "CARRIED OVER", "Op");
    let backup = dir.path().join("backup.sqlite3");
    let made = run(lastwords()
        .args(["phrases", "backup"])
        .arg(&backup)
        .args(["--data-dir", old]));
    assert_eq!(made.code, Some(0), "{}", made.stderr);
    let restore = |data: &std::path::Path, online: bool| {
        let mut command = lastwords();
        command.args(["phrases", "restore"]).arg(&backup);
        if online {
            command.arg("--online");
        }
        run(command.arg("--data-dir").arg(data))
    };
    // Online, into a folder no host serves from (a typo): refused, and nothing made.
    let typo = dir.path().join("typo");
    let refused = restore(&typo, true);
    assert_eq!(refused.code, Some(1));
    assert!(
        refused.stderr.contains("no host serves from it"),
        "{}",
        refused.stderr
    );
    assert!(!typo.exists());
    // A new deployment's first run, as docs/operations.md offers it beside `phrases init`.
    let new = dir.path().join("new/data");
    let restored = restore(&new, false);
    assert_eq!(restored.code, Some(0), "{}", restored.stderr);
    let listed = run(lastwords()
        .args(["phrases", "list", "--data-dir"])
        .arg(&new));
    assert!(listed.stdout.contains("CARRIED OVER"));

    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    for args in [
        vec!["phrases", "list"],
        vec!["phrases", "add", "X", "--name", "Op"],
    ] {
        let ran = run(lastwords().args(&args).arg("--data-dir").arg(&file));
        assert_eq!(ran.code, Some(1), "{}", ran.stderr);
        assert!(
            ran.stderr.contains("a-file: is not a folder"),
            "{args:?}: {}",
            ran.stderr
        );
        assert!(!ran.stderr.contains("chmod"), "{}", ran.stderr);
    }
}

#[test]
fn a_phrases_command_in_production_needs_no_public_url() {
    // A one-off job run with the deployment's store settings, not the site's.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    init(data);
    add(data, "IN PRODUCTION", "Op");
    let production = |args: &[&str]| {
        run(lastwords()
            .env("LASTWORDS_ENV", "production")
            .env_remove("LASTWORDS_PUBLIC_URL")
            .args(args)
            .args(["--store", "embedded", "--data-dir", data]))
    };
    let listed = production(&["phrases", "list"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert!(listed.stdout.contains("IN PRODUCTION"));
    // serve still asks for it.
    let serve = production(&["serve"]);
    assert_eq!(serve.code, Some(2));
    assert!(serve.stderr.contains("public_url"));
}

#[test]
fn a_credentials_file_firestore_could_not_use_stops_start_up_naming_why() {
    let dir = tempfile::tempdir().unwrap();
    let key = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let start = |credentials: &str| {
        run(lastwords()
            .env_remove("FIRESTORE_EMULATOR_HOST")
            .env("GOOGLE_APPLICATION_CREDENTIALS", credentials)
            .args(["serve", "--port", "0", "--firestore-project", "demo-x"])
            .arg("--data-dir")
            .arg(dir.path()))
    };
    let folder = dir.path().to_str().unwrap().to_owned();
    for (credentials, why) in [
        (
            key("broken.json", "{\"type\": \"service_acc"),
            "not the JSON",
        ),
        (
            key("other.json", "{\"private_key\": \"-----BEGIN\"}"),
            "without the \"type\"",
        ),
        (
            dir.path().join("absent.json").to_str().unwrap().to_owned(),
            "cannot be read",
        ),
        (folder, "not a file"),
    ] {
        let ran = start(&credentials);
        assert_eq!(ran.code, Some(2), "{credentials}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("GOOGLE_APPLICATION_CREDENTIALS") && ran.stderr.contains(why),
            "{credentials}: {}",
            ran.stderr
        );
        assert!(
            !ran.stderr.contains("BEGIN"),
            "the key's text is never told"
        );
    }
}

#[test]
fn a_firestore_emulator_address_that_is_no_address_stops_start_up() {
    let check = |emulator: &str| {
        run(lastwords().env("FIRESTORE_EMULATOR_HOST", emulator).args([
            "config",
            "check",
            "--store",
            "firestore",
            "--firestore-project",
            "demo-x",
        ]))
    };
    for bad in [
        "bogus",
        "127.0.0.1",
        "localhost:http",
        ":8080",
        "http://",
        "::1:8080",
        "[nope]:8080",
    ] {
        let ran = check(bad);
        assert_eq!(ran.code, Some(2), "{bad}: {}", ran.stderr);
        assert!(
            ran.stderr.contains("FIRESTORE_EMULATOR_HOST") && ran.stderr.contains("host:port"),
            "{}",
            ran.stderr
        );
    }
    for good in ["127.0.0.1:8080", "[::1]:9000", "http://emulator:8080"] {
        let ran = check(good);
        assert_eq!(ran.code, Some(0), "{good}: {}", ran.stderr);
    }
}
