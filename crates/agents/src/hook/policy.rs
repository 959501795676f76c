//! Project policy: a `.toolgate.toml` in the repository, which can only
//! tighten what the user's configuration decides.
//!
//! The file is found from the call's working directory upward, stopping at
//! the repository root (the first directory holding `.git`) or the
//! filesystem root ([`ProjectPolicy::find`]). It takes the user config's
//! keys, but a repository is not trusted the way the user is: whoever can
//! push to it could otherwise loosen the gate of everyone who clones it.
//! So every call is decided by both, and the more restrictive verdict wins
//! ([`ProjectGate::tighten`], the max of
//! [`Decision`](toolgate_core::gate::Decision)'s order).
//!
//! Within the project's own verdict, whatever could widen is dropped before
//! it is built, so that it cannot even undo the project's own strictness:
//! allow rules (they come before the mode), a `profile` (it decides
//! instead of the mode), `compound = "every-part-safe"`, `mode =
//! "autonomous"`, `read_only = true` and `destructive = false` hints, and
//! `log = false` (a repository does not silence the user's log).
//! [`ProjectPolicy::ignored`] lists them, for a `doctor` to report. What a
//! project can do: a stricter `mode`, `ask` and `deny` rules, more
//! `shell_tools`, `destructive = true` hints and `headless = true`.
//!
//! A file that cannot be read or parsed fails closed: the hook answers
//! with the client's block and names the file and line ([`PolicyError`]).
//!
//! ```
//! use toolgate_agents::hook::ProjectPolicy;
//! let p = ProjectPolicy::parse(".toolgate.toml", "mode = \"strict\"\n[rules]\nallow = [\"Bash\"]\n")?;
//! let ignored = p.ignored();
//! assert_eq!(ignored.len(), 1);
//! assert_eq!((ignored[0].key.as_str(), ignored[0].value.as_str()), ("rules.allow", "Bash"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::config::HookConfig;
use toolgate_core::classify::{Assessment, Classifier, Context};
use toolgate_core::gate::{CompoundPolicy, Gate, GateConfig, Mode, ModeSetting, Rules, Verdict};
use toolgate_core::tools::{Hints, DEFAULT_SHELL_TOOLS};

/// The project file's name.
pub const FILE_NAME: &str = ".toolgate.toml";

/// A project file that cannot be used; the hook fails closed on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyError {
    /// The file.
    pub file: String,
    /// The line (1-based) the problem is on, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for PolicyError {}

/// A setting of a project file that has no effect because it could only
/// widen what the user allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredSetting {
    /// The key, dotted (`rules.allow`, `tools.Read.read_only`, `mode`).
    pub key: String,
    /// The value as written.
    pub value: String,
    /// Why it is ignored.
    pub why: &'static str,
}

/// A parsed project file.
#[derive(Debug)]
pub struct ProjectPolicy {
    file: String,
    config: HookConfig,
    /// The ask and deny rules (allow rules are ignored).
    rules: Rules,
    ignored: Vec<IgnoredSetting>,
}

impl ProjectPolicy {
    /// The project file for a call made in `cwd`: `.toolgate.toml` in `cwd`
    /// or the nearest directory above it, looking no higher than the first
    /// directory that holds `.git` (the repository root), or `None`.
    pub fn find(cwd: &Path) -> Option<PathBuf> {
        for dir in cwd.ancestors() {
            let file = dir.join(FILE_NAME);
            if file.exists() {
                return Some(file);
            }
            if dir.join(".git").exists() {
                return None;
            }
        }
        None
    }

    /// Finds and reads the project file for a call made in `cwd` (none
    /// without a `cwd`).
    pub fn discover(cwd: Option<&str>) -> Result<Option<ProjectPolicy>, PolicyError> {
        match cwd.and_then(|c| ProjectPolicy::find(Path::new(c))) {
            Some(file) => ProjectPolicy::load(&file).map(Some),
            None => Ok(None),
        }
    }

    /// Reads a project file.
    pub fn load(path: &Path) -> Result<ProjectPolicy, PolicyError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| PolicyError {
            file: file.clone(),
            line: None,
            message: format!("cannot read: {e}"),
        })?;
        ProjectPolicy::parse(&file, &text)
    }

    /// Parses a project file's text; `file` names it in errors. Every rule
    /// must parse, the ignored allow rules too: a broken rule means a file
    /// that does not say what its author thinks.
    pub fn parse(file: &str, text: &str) -> Result<ProjectPolicy, PolicyError> {
        let error = |line, message| PolicyError {
            file: file.to_string(),
            line,
            message,
        };
        let config: HookConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of(text, s.start));
            error(line, e.message().trim().to_string())
        })?;
        let r = &config.rules;
        let rules = Rules::parse(&r.allow, &r.ask, &r.deny).map_err(|e| {
            let line = text
                .lines()
                .position(|l| l.contains(&e.rule))
                .map(|n| n + 1);
            error(line, format!("[rules]: {e}"))
        })?;
        let rules = Rules {
            allow: Vec::new(),
            ..rules
        };
        let ignored = ignored_settings(&config);
        Ok(ProjectPolicy {
            file: file.to_string(),
            config,
            rules,
            ignored,
        })
    }

    /// The file it was read from.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The settings that have no effect because they could only widen.
    pub fn ignored(&self) -> &[IgnoredSetting] {
        &self.ignored
    }

    /// Whether the project asks for headless answers (ask becomes deny).
    pub fn headless(&self) -> bool {
        self.config.headless
    }

    /// The project's gate, next to the user's configuration `user`: the
    /// same shell tools (plus the project's) and hints (with the project's
    /// `destructive = true` ones on top), so that both label a call alike.
    pub fn gate<'c>(&self, classifier: &'c Classifier, user: &GateConfig) -> ProjectGate<'c> {
        let c = &self.config;
        let mut shell_tools = user
            .shell_tools
            .clone()
            .unwrap_or_else(|| DEFAULT_SHELL_TOOLS.iter().map(|s| s.to_string()).collect());
        for t in c.shell_tools.iter().flatten() {
            if !shell_tools.contains(t) {
                shell_tools.push(t.clone());
            }
        }
        let mut hints: HashMap<String, Hints> = user.hints.clone();
        for (tool, h) in &c.tools {
            if h.destructive == Some(true) {
                hints.entry(tool.clone()).or_default().destructive = Some(true);
            }
        }
        // No mode (or only a widening one): the project has no opinion on
        // labels, which `autonomous` (allow) expresses, since allow never
        // wins the max.
        // A name that is no mode is strict here too, and says so.
        let mode = match c.mode.as_deref() {
            Some(m) if !is_widest_mode(m) => ModeSetting::from_name(Some(m)),
            _ => Mode::Autonomous.into(),
        };
        let config = GateConfig {
            mode,
            rules: self.rules.clone(),
            shell_tools: Some(shell_tools),
            hints,
            policy: None,
            compound: CompoundPolicy::Refuse,
        };
        ProjectGate {
            gate: Gate::new(classifier, config),
            file: self.file.clone(),
        }
    }
}

/// A project's gate, built by [`ProjectPolicy::gate`].
#[derive(Debug)]
pub struct ProjectGate<'c> {
    gate: Gate<'c>,
    file: String,
}

impl ProjectGate<'_> {
    /// The more restrictive of the user's verdict and the project's for the
    /// same call; the user's on a tie. A project verdict that wins says so
    /// in its reason (naming the file) and its source (`project_…`).
    ///
    /// `assessed` is what the user's gate assessed the call as
    /// ([`Gate::assess_in`]), when it read the tool as a shell: a shell call
    /// is labelled alike by both gates (the same classifier, the same
    /// place), so it is not classified a second time.
    pub fn tighten(
        &self,
        user: Verdict,
        tool: &str,
        args: &Value,
        ctx: &Context<'_>,
        assessed: Option<&Assessment>,
    ) -> Verdict {
        let project = match assessed {
            Some(a) if self.gate.is_shell_tool(tool) => {
                self.gate.decide_assessed(tool, args, None, None, a.clone())
            }
            _ => self.gate.decide_in(tool, args, None, ctx),
        };
        if project.decision <= user.decision {
            return user;
        }
        Verdict {
            decision: project.decision,
            reason: format!("{} (project policy {})", project.reason, self.file),
            label: user.label,
            source: format!("project_{}", project.source),
        }
    }
}

/// `autonomous` and its alias allow everything: never tighter than any
/// mode the user has.
fn is_widest_mode(name: &str) -> bool {
    Mode::parse(Some(name)).mode == Mode::Autonomous
}

/// The 1-based line of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// The settings of a project file that could only widen, in file order of
/// keys.
fn ignored_settings(c: &HookConfig) -> Vec<IgnoredSetting> {
    let mut out = Vec::new();
    let mut push = |key: String, value: String, why| out.push(IgnoredSetting { key, value, why });
    if let Some(mode) = c.mode.as_deref().filter(|m| is_widest_mode(m)) {
        push(
            "mode".into(),
            mode.into(),
            "allows every call, which is never tighter than the user's mode",
        );
    }
    if let Some(profile) = &c.profile {
        push(
            "profile".into(),
            profile.clone(),
            "a profile decides instead of the mode and can allow more; use mode and rules",
        );
    }
    if c.compound == Some(CompoundPolicy::EveryPartSafe) {
        push(
            "compound".into(),
            CompoundPolicy::EveryPartSafe.as_str().into(),
            "lets compound shell through as safe, which only widens",
        );
    }
    for rule in &c.rules.allow {
        push(
            "rules.allow".into(),
            rule.clone(),
            "an allow rule can only widen what the user allows",
        );
    }
    for (tool, h) in &c.tools {
        if h.read_only == Some(true) {
            push(
                format!("tools.{tool}.read_only"),
                "true".into(),
                "a read-only hint can only make a call look safer",
            );
        }
        if h.destructive == Some(false) {
            push(
                format!("tools.{tool}.destructive"),
                "false".into(),
                "a not-destructive hint can only make a call look safer",
            );
        }
    }
    if c.log == Some(false) {
        push(
            "log".into(),
            "false".into(),
            "a repository does not turn off the user's decision log",
        );
    }
    out
}

/// The settings of a project file (by path) that have no effect because
/// they could only widen: for `toolgate doctor`.
pub fn ignored_in(path: &Path) -> Result<Vec<IgnoredSetting>, PolicyError> {
    ProjectPolicy::load(path).map(|p| p.ignored)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_settings_are_listed() {
        let text = "mode = \"unsafe\"\nprofile = \"full-auto\"\ncompound = \"every-part-safe\"\nlog = false\n\
                    [rules]\nallow = [\"Bash\"]\ndeny = [\"shell:cmd=rm *\"]\n\
                    [tools.Read]\nread_only = true\n[tools.Drop]\ndestructive = true\n";
        let p = ProjectPolicy::parse("p.toml", text).unwrap_or_else(|e| panic!("{e}"));
        let keys: Vec<&str> = p.ignored().iter().map(|s| s.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "mode",
                "profile",
                "compound",
                "rules.allow",
                "tools.Read.read_only",
                "log"
            ]
        );
        let strict =
            ProjectPolicy::parse("p.toml", "mode = \"strict\"\n").unwrap_or_else(|e| panic!("{e}"));
        assert!(strict.ignored().is_empty());
    }

    #[test]
    fn errors_name_the_line() {
        for (text, line) in [
            ("mode = \"strict\"\nbogus = 1\n", Some(2)),
            (
                "mode = \"strict\"\n\n[rules]\ndeny = [\"shell:cmd\"]\n",
                Some(4),
            ),
            ("mode = \n", Some(1)),
        ] {
            let e = ProjectPolicy::parse("p.toml", text).map(|_| ()).err();
            assert_eq!(e.as_ref().map(|e| e.line), Some(line), "{text:?}: {e:?}");
        }
    }

    /// The user's assessment handed over gives the verdict the project
    /// gate reaches classifying the call itself.
    #[test]
    fn a_shared_assessment_tightens_as_a_fresh_one() {
        let classifier = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
        let text = "mode = \"strict\"\nshell_tools = [\"run\"]\n[rules]\ndeny = [\"shell:cmd=terraform destroy *\"]\nask = [\"shell:cmd=git push *\"]\n";
        let policy = ProjectPolicy::parse("p.toml", text).unwrap_or_else(|e| panic!("{e}"));
        let ctx = Context { cwd: Some("/app") };
        for user_mode in [Mode::Autonomous, Mode::Balanced, Mode::Strict] {
            let user = GateConfig {
                mode: user_mode.into(),
                ..GateConfig::default()
            };
            let project = policy.gate(classifier, &user);
            let gate = Gate::new(classifier, user);
            for command in [
                "ls",
                "cat /app/src/main.rs",
                "rm -rf build",
                "terraform destroy -auto-approve",
                "git push origin main",
                "git status && ls",
                "cd ~/.claude && rm settings.json",
            ] {
                let args = serde_json::json!({ "command": command });
                let assessed = gate.assess_in("Bash", &args, None, &ctx);
                let verdict = gate.decide_assessed("Bash", &args, None, None, assessed.clone());
                assert_eq!(
                    verdict,
                    gate.decide_in("Bash", &args, None, &ctx),
                    "{command:?}"
                );
                let shared = project.tighten(verdict.clone(), "Bash", &args, &ctx, Some(&assessed));
                let fresh = project.tighten(verdict, "Bash", &args, &ctx, None);
                assert_eq!(shared, fresh, "{user_mode:?} {command:?}");
            }
        }
    }
}
