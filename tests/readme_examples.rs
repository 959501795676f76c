//! The documentation's console examples are real output: each `$ toolgate
//! …` line of a ```` ```console ```` block in the README, the manual in
//! `docs/`, `ARCHITECTURE.md` and `BENCHMARKS.md` runs here (through `sh`,
//! with the built binary first on `PATH`), and what it prints must be the
//! lines that follow it. A taxonomy or output change that alters an example
//! fails this test until the page shows the new output.
//!
//! Only ```` ```console ```` blocks run. A command shown but not run (one
//! that installs, edits settings, or takes minutes, such as a benchmark)
//! goes in a ```` ```sh ```` block; output shown without its command, in a
//! ```` ```text ```` block. An example that reads `../shared` is skipped
//! where that directory is absent.

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

/// The pages whose examples run: the README, every page of `docs/`,
/// `ARCHITECTURE.md` and `BENCHMARKS.md`.
#[cfg(unix)]
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .map(|dir| {
            dir.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .collect()
        })
        .unwrap_or_default();
    docs.sort();
    let mut pages = vec![root.join("README.md")];
    pages.extend(docs);
    pages.push(root.join("ARCHITECTURE.md"));
    pages.push(root.join("BENCHMARKS.md"));
    pages
}

// The examples are shell commands (`sh`, symlinks): Unix only.
#[cfg(unix)]
#[test]
fn readme_and_docs_console_examples_print_what_the_page_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pages = pages(root);
    let mut examples: Vec<(String, Example)> = Vec::new();
    for page in &pages {
        let text =
            std::fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let name = page
            .strip_prefix(root)
            .unwrap_or(page)
            .display()
            .to_string();
        let found = self::examples(&text);
        if name == "README.md" {
            assert!(
                found.len() >= 5,
                "only {} README examples found",
                found.len()
            );
        }
        examples.extend(found.into_iter().map(|ex| (name.clone(), ex)));
    }
    assert!(
        examples.len() >= 20,
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
    let mut failures = Vec::new();
    for (page, ex) in &examples {
        if ex.command.contains("../shared") && !have_shared {
            eprintln!("skipping {page} line {}: ../shared is absent", ex.line);
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
        if got.trim_end() != ex.expected.trim_end() {
            failures.push(format!(
                "{page} line {}: `{}` printed\n{}\ninstead of\n{}\n(stderr: {})",
                ex.line,
                ex.command,
                got.trim_end(),
                ex.expected.trim_end(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        ran += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran >= 10, "only {ran} examples ran");
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
