//! The inputs a scan reads, recognised by kind, and the commands found in
//! them, each at the line and column of its file where it starts.
//!
//! A CI job's commands live in shell scripts, workflow `run:` steps,
//! Dockerfile `RUN` instructions, Makefile recipes, `package.json` scripts
//! and GitLab `script:` lists; an agent's live in its transcripts. Each
//! reader here takes off the outer file's syntax, hands the shell text to
//! the shell front end ([`toolgate_core::script`]) and says where every
//! command it found starts, so that a report can name `file:line:column`.

mod docker;
mod github;
mod gitlab;
mod make;
mod npm;
mod shell;
mod snippet;
mod transcript;
mod yaml;

use std::path::Path;

use toolgate_core::label::{Class, Label};
use toolgate_core::Classifier;

pub use snippet::Snippet;

/// What kind of file an input is: how its commands are found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// One command per line.
    Lines,
    /// One JSON object per line with a `command` field (and an optional
    /// `cwd`).
    Jsonl,
    /// A shell script, read whole.
    Shell,
    /// A GitHub Actions workflow, or an action's `action.yml`: its `run:`
    /// steps.
    GithubActions,
    /// A GitLab CI file: its `script:`, `before_script:` and
    /// `after_script:` lists.
    GitlabCi,
    /// A Dockerfile: its `RUN` instructions.
    Dockerfile,
    /// A Makefile: its recipes.
    Makefile,
    /// A `package.json`: its `scripts`.
    PackageJson,
    /// A Claude Code session transcript (JSONL): its Bash tool calls.
    ClaudeCode,
    /// A Codex rollout (JSONL): its shell calls.
    Codex,
}

impl Kind {
    /// Every kind, in the order `--input` lists them.
    pub const ALL: [Kind; 10] = [
        Kind::Lines,
        Kind::Jsonl,
        Kind::Shell,
        Kind::GithubActions,
        Kind::GitlabCi,
        Kind::Dockerfile,
        Kind::Makefile,
        Kind::PackageJson,
        Kind::ClaudeCode,
        Kind::Codex,
    ];

    /// The name `--input` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Lines => "lines",
            Kind::Jsonl => "jsonl",
            Kind::Shell => "shell",
            Kind::GithubActions => "github-actions",
            Kind::GitlabCi => "gitlab-ci",
            Kind::Dockerfile => "dockerfile",
            Kind::Makefile => "makefile",
            Kind::PackageJson => "package-json",
            Kind::ClaudeCode => "claude-code",
            Kind::Codex => "codex",
        }
    }

    /// The kind `--input` names.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// True for the kinds read one line at a time (streamed, however
    /// long); the others are read whole.
    pub fn is_line_based(self) -> bool {
        matches!(self, Kind::Lines | Kind::Jsonl)
    }
}

/// The kind a file is by its path alone, or `None` when its name says
/// nothing (then [`sniff`] may tell by its first bytes).
///
/// ```
/// use std::path::Path;
/// use toolgate_scan::input::{kind_by_name, Kind};
/// assert_eq!(kind_by_name(Path::new("repo/.github/workflows/ci.yml")), Some(Kind::GithubActions));
/// assert_eq!(kind_by_name(Path::new("docker/api.Dockerfile")), Some(Kind::Dockerfile));
/// assert_eq!(kind_by_name(Path::new("ci/.github/ISSUE_TEMPLATE/bug.yml")), None);
/// ```
pub fn kind_by_name(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_str()?;
    let lower = name.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map(|(_, e)| e);
    let parent = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|p| p.to_str());
    let grandparent = path
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|p| p.to_str());
    let yaml = matches!(ext, Some("yml" | "yaml"));
    if yaml && parent == Some("workflows") && grandparent == Some(".github") {
        return Some(Kind::GithubActions);
    }
    if lower == "action.yml" || lower == "action.yaml" {
        return Some(Kind::GithubActions);
    }
    if lower == ".gitlab-ci.yml" || lower.ends_with(".gitlab-ci.yml") {
        return Some(Kind::GitlabCi);
    }
    if lower == "dockerfile"
        || lower.starts_with("dockerfile.")
        || lower.ends_with(".dockerfile")
        || lower == "containerfile"
    {
        return Some(Kind::Dockerfile);
    }
    if matches!(name, "Makefile" | "makefile" | "GNUmakefile") || matches!(ext, Some("mk" | "make"))
    {
        return Some(Kind::Makefile);
    }
    if lower == "package.json" {
        return Some(Kind::PackageJson);
    }
    match ext {
        Some("sh" | "bash" | "zsh" | "ksh" | "dash") => Some(Kind::Shell),
        _ => None,
    }
}

/// The kind a file is by its first bytes: a shell shebang, or the first
/// records of a JSONL file (a Claude Code transcript, a Codex rollout, or
/// command records).
pub fn sniff(path: &Path, head: &[u8]) -> Option<Kind> {
    if let Some(line) = head.strip_prefix(b"#!") {
        let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
        let line = String::from_utf8_lossy(line);
        let mut words = line.split_whitespace();
        let mut program = words.next().unwrap_or_default();
        if program.rsplit('/').next() == Some("env") {
            program = words.find(|w| !w.starts_with('-')).unwrap_or_default();
        }
        let program = program.rsplit('/').next().unwrap_or_default();
        return matches!(
            program,
            "sh" | "bash" | "dash" | "zsh" | "ksh" | "ash" | "mksh"
        )
        .then_some(Kind::Shell);
    }
    let jsonl = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
    if !jsonl {
        return None;
    }
    let text = String::from_utf8_lossy(head);
    for line in text.lines().take(50) {
        let Ok(serde_json::Value::Object(v)) = serde_json::from_str::<serde_json::Value>(line)
        else {
            // A record longer than the bytes read is cut: its keys tell.
            if line.contains("\"sessionId\"") {
                return Some(Kind::ClaudeCode);
            }
            if line.contains("\"payload\"") && line.contains("\"type\"") {
                return Some(Kind::Codex);
            }
            continue;
        };
        let kind = v.get("type").and_then(|t| t.as_str()).unwrap_or_default();
        if v.contains_key("payload")
            || matches!(
                kind,
                "session_meta" | "response_item" | "turn_context" | "event_msg"
            )
        {
            return Some(Kind::Codex);
        }
        if v.contains_key("sessionId") || (v.contains_key("message") && kind == "assistant") {
            return Some(Kind::ClaudeCode);
        }
        if v.contains_key("command") {
            return Some(Kind::Jsonl);
        }
    }
    Some(Kind::Jsonl)
}

/// One command found in an input, with where it is and what to label.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// The line of the file where the command starts, from 1.
    pub line: u64,
    /// The column, in characters, from 1.
    pub column: u64,
    /// The command as the file has it (continuations, here-documents and
    /// expressions another tool fills in kept as written).
    pub command: String,
    /// What the classifier reads: the command with each expression filled
    /// in by another tool replaced by an expansion of an unknown variable.
    pub classify: String,
    /// The working directory it ran in, when the input says (transcripts).
    pub cwd: Option<String>,
    /// Where in its file it is: `("job", "build")`, `("step", "Test")`,
    /// `("target", "clean")`, `("script", "postinstall")`.
    pub names: Vec<(&'static str, String)>,
    /// True when part of it is filled in by another tool before the shell
    /// reads it (`${{ … }}`, make's `$(VAR)`): never labelled safe.
    pub substituted: bool,
    /// Set when the text is not read as POSIX shell at all (a `pwsh` step,
    /// a `SHELL ["powershell"]` Dockerfile): why it is labelled unknown.
    pub not_shell: Option<String>,
}

/// Something in an input that could not be read, and where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct Problem {
    /// The line, from 1.
    pub line: u64,
    /// The column, from 1.
    pub column: u64,
    /// What is wrong, naming the field where one applies.
    pub message: String,
}

/// What a reader found in one input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extract {
    /// The commands, in the order they start in the file.
    pub found: Vec<Found>,
    /// What could not be read; the commands read around it are still in
    /// `found`.
    pub problems: Vec<Problem>,
}

/// Reads the commands of a whole input of a kind that is not line based
/// ([`Kind::is_line_based`]). Never panics; what it cannot read is a
/// [`Problem`].
pub fn extract(kind: Kind, text: &str) -> Extract {
    let mut out = Extract::default();
    match kind {
        Kind::Shell => shell::read(&Snippet::whole(text), &[], &mut out),
        Kind::GithubActions => github::read(text, &mut out),
        Kind::GitlabCi => gitlab::read(text, &mut out),
        Kind::Dockerfile => docker::read(text, &mut out),
        Kind::Makefile => make::read(text, &mut out),
        Kind::PackageJson => npm::read(text, &mut out),
        Kind::ClaudeCode => transcript::read_claude(text, &mut out),
        Kind::Codex => transcript::read_codex(text, &mut out),
        Kind::Lines | Kind::Jsonl => {
            // Streamed by the caller; read whole, each line is a command.
            for (n, line) in text.lines().enumerate() {
                if !line.trim().is_empty() {
                    out.found.push(Found {
                        line: n as u64 + 1,
                        column: 1,
                        command: line.to_string(),
                        classify: line.to_string(),
                        ..Found::default()
                    });
                }
            }
        }
    }
    out
}

/// The reason a command filled in by another tool is not safe.
pub const SUBSTITUTED_REASON: &str =
    "part of the command is filled in before the shell reads it (`${{ … }}` in a workflow, \
     `$(VAR)` in a recipe), so what runs is not known; inside quotes too (script injection)";

/// Labels a found command: as the classifier labels its text, except that
/// text another tool fills in is never safe, and text no POSIX shell reads
/// is unknown.
pub fn label(classifier: &Classifier, found: &Found, cwd: Option<&str>) -> Label {
    if let Some(why) = &found.not_shell {
        return Label::unknown(why.clone());
    }
    let ctx = toolgate_core::Context {
        cwd: found.cwd.as_deref().or(cwd),
    };
    let label = classifier.classify_terse_in(&found.classify, &ctx);
    adjust(label, found)
}

/// [`label`]'s rule applied to a label found already.
pub fn adjust(label: Label, found: &Found) -> Label {
    if let Some(why) = &found.not_shell {
        return Label::unknown(why.clone());
    }
    if found.substituted && label.class == Class::Safe {
        return Label::unknown(SUBSTITUTED_REASON);
    }
    label
}

/// Quotes argv words as a POSIX shell reads them back (an exec-form `RUN`,
/// a transcript's argv): plain words as they are, others in single quotes.
pub fn join_argv<S: AsRef<str>>(argv: &[S]) -> String {
    let mut out = String::new();
    for (i, w) in argv.iter().enumerate() {
        let w = w.as_ref();
        if i > 0 {
            out.push(' ');
        }
        let plain = !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_@%+=:,./-".contains(&b));
        if plain {
            out.push_str(w);
        } else {
            out.push('\'');
            out.push_str(&w.replace('\'', "'\\''"));
            out.push('\'');
        }
    }
    out
}

/// The (line, column) of byte `offset` of `text`, both from 1, the column
/// in characters.
pub(crate) fn line_column(text: &str, offset: usize) -> (u64, u64) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.bytes().filter(|&b| b == b'\n').count() as u64 + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(start..).unwrap_or("").chars().count() as u64 + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_by_name() {
        let k = |p: &str| kind_by_name(Path::new(p));
        assert_eq!(k(".github/workflows/ci.yaml"), Some(Kind::GithubActions));
        assert_eq!(k("action.yml"), Some(Kind::GithubActions));
        assert_eq!(k("workflows/ci.yml"), None);
        assert_eq!(k(".gitlab-ci.yml"), Some(Kind::GitlabCi));
        assert_eq!(k("ci/build.gitlab-ci.yml"), Some(Kind::GitlabCi));
        assert_eq!(k("Dockerfile"), Some(Kind::Dockerfile));
        assert_eq!(k("Dockerfile.dev"), Some(Kind::Dockerfile));
        assert_eq!(k("web.Dockerfile"), Some(Kind::Dockerfile));
        assert_eq!(k("Makefile"), Some(Kind::Makefile));
        assert_eq!(k("rules.mk"), Some(Kind::Makefile));
        assert_eq!(k("web/package.json"), Some(Kind::PackageJson));
        assert_eq!(k("deploy.sh"), Some(Kind::Shell));
        assert_eq!(k("commands.txt"), None);
        assert_eq!(k("package-lock.json"), None);
        assert_eq!(k("makefile.txt"), None);
    }

    #[test]
    fn kinds_by_content() {
        let s = |p: &str, head: &str| sniff(Path::new(p), head.as_bytes());
        assert_eq!(s("deploy", "#!/bin/sh\nls\n"), Some(Kind::Shell));
        assert_eq!(s("deploy", "#!/usr/bin/env bash\n"), Some(Kind::Shell));
        assert_eq!(
            s("deploy", "#!/usr/bin/env -S bash -e\n"),
            Some(Kind::Shell)
        );
        assert_eq!(s("tool", "#!/usr/bin/env python3\n"), None);
        assert_eq!(s("tool", "ls\n"), None);
        assert_eq!(
            s("a.jsonl", "{\"type\":\"session_meta\",\"payload\":{}}\n"),
            Some(Kind::Codex)
        );
        assert_eq!(
            s("a.jsonl", "{\"type\":\"summary\"}\n{\"type\":\"assistant\",\"sessionId\":\"x\",\"message\":{}}\n"),
            Some(Kind::ClaudeCode)
        );
        assert_eq!(s("a.jsonl", "{\"command\":\"ls\"}\n"), Some(Kind::Jsonl));
        // A first record cut short by the bytes read.
        assert_eq!(
            s(
                "a.jsonl",
                "{\"parentUuid\":null,\"sessionId\":\"x\",\"message\":{\"content\":\"abc"
            ),
            Some(Kind::ClaudeCode)
        );
        assert_eq!(s("a.json", "{\"command\":\"ls\"}\n"), None);
    }

    #[test]
    fn argv_is_quoted_back() {
        assert_eq!(
            join_argv(&["bash", "-lc", "rm -rf 'x'", ""]),
            "bash -lc 'rm -rf '\\''x'\\''' ''"
        );
        assert_eq!(join_argv(&["ls", "-la", "src/a.rs"]), "ls -la src/a.rs");
    }

    #[test]
    fn line_columns_count_characters() {
        assert_eq!(line_column("ab\nçd\n", 5), (2, 2));
        assert_eq!(line_column("ab", 0), (1, 1));
        assert_eq!(line_column("ab", 99), (1, 3));
    }
}
