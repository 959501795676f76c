//! The README's console examples are real output: each `$ toolgate …` line
//! of a ```` ```console ```` block runs here (through `sh`, with the built
//! binary first on `PATH`), and what it prints must be the lines that follow
//! it. A taxonomy or output change that alters an example fails this test
//! until the README shows the new output.

#[cfg(unix)]
use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::process::Command;

/// One example: the README line it starts on, the command, the output.
#[cfg(unix)]
struct Example {
    line: usize,
    command: String,
    expected: String,
}

#[cfg(unix)]
fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    for (i, text) in readme.lines().enumerate() {
        if text.starts_with("```") {
            in_console = text == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(command) = text.strip_prefix("$ ") {
            out.push(Example {
                line: i + 1,
                command: command.to_string(),
                expected: String::new(),
            });
        } else if let Some(example) = out.last_mut() {
            example.expected.push_str(text);
            example.expected.push('\n');
        }
    }
    out
}

// The examples are shell commands (`sh`, symlinks): Unix only.
#[cfg(unix)]
#[test]
fn readme_console_examples_print_what_the_readme_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_default();
    let examples = examples(&readme);
    assert!(
        examples.len() >= 10,
        "only {} examples found",
        examples.len()
    );
    // The examples run from a scratch copy of the layout they assume: the
    // project's corpus/ beside them and ../shared one level up, so that a
    // file an example writes lands in the scratch directory.
    let scratch =
        Scratch(std::env::temp_dir().join(format!("toolgate-readme-{}", std::process::id())));
    let scratch = &scratch.0;
    let cwd = scratch.join("main");
    std::fs::create_dir_all(&cwd).unwrap_or_else(|e| panic!("{e}"));
    let shared = root.join("../shared");
    let have_shared = shared.is_dir();
    link(&root.join("corpus"), &cwd.join("corpus"));
    if have_shared {
        link(&shared, &scratch.join("shared"));
    }
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_toolgate"));
    let bin_dir = bin.parent().unwrap_or(Path::new("."));
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin_dir.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(dirs).unwrap_or_default();
    let mut ran = 0;
    for ex in &examples {
        if ex.command.contains("../shared") && !have_shared {
            eprintln!("skipping README line {}: ../shared is absent", ex.line);
            continue;
        }
        let out = Command::new("sh")
            .arg("-c")
            .arg(&ex.command)
            .current_dir(&cwd)
            .env("PATH", &path)
            .output()
            .unwrap_or_else(|e| panic!("running sh: {e}"));
        let got = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            got.trim_end(),
            ex.expected.trim_end(),
            "README line {}: `{}` printed something else (stderr: {})",
            ex.line,
            ex.command,
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 5, "only {ran} examples ran");
}

/// A scratch directory, removed however the test ends.
#[cfg(unix)]
struct Scratch(PathBuf);

#[cfg(unix)]
impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(unix)]
fn link(target: &Path, at: &Path) {
    if !at.exists() {
        std::os::unix::fs::symlink(target, at).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// `.ci/run` runs exactly the test command the README's first lines give.
#[test]
fn ci_runs_the_readme_test_command() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let test_line = readme
        .lines()
        .take(8)
        .find(|l| l.contains("# run all the tests"))
        .expect("the README's first lines give the test command");
    let command = test_line.split(" #").next().unwrap_or_default().trim();
    let ci = std::fs::read_to_string(root.join(".ci/run")).expect(".ci/run");
    let last = ci
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .trim();
    assert_eq!(
        last, command,
        ".ci/run must end with the README's test command"
    );
}
