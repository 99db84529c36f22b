//! The binary as an operator meets it: start-up errors and the phrases commands.

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
fn phrases_add_upper_cases_and_refuses_what_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
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
fn import_adds_new_phrases_and_says_what_it_skipped_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let file = dir.path().join("import.json");
    let long = "y".repeat(21);
    std::fs::write(
        &file,
        format!(
            r#"[{{"word":"first one","name":"A"}},{{"word":"FIRST ONE","name":"B"}},{{"word":"GOOD LUCK!","name":"C"}},{{"word":"{long}","name":"D"}},{{"word":7,"name":"E"}}]"#
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
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("added 1, skipped 2 as already taken, rejected 2"),
        "{stdout}"
    );
    assert!(stdout.contains("at most 20 characters"), "{stdout}");
    assert!(stdout.contains("must be strings"), "{stdout}");
}
