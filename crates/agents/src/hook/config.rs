//! The hook's configuration file (TOML): mode, permission rules, shell tool
//! names and MCP hints for other tools.
//!
//! ```toml
//! mode = "balanced"            # guard | strict | balanced | restricted | autonomous
//! # profile = "cautious"       # an automation profile decides instead
//! headless = false             # turn ask into deny (for `gemini -p`, CI)
//! compound = "refuse"          # or "every-part-safe": let a list or pipeline
//!                              # of safe commands through as safe
//! shell_tools = ["Bash", "run_shell_command", "shell"]
//! log = true                   # the decision log (see `crate::decision_log`)
//!
//! [rules]
//! allow = ["shell:cmd=cargo test*"]
//! ask   = ["shell:cmd=git push*"]
//! deny  = ["shell:cmd=terraform apply*", "mcp__github__delete_repository"]
//!
//! [tools.Read]
//! read_only = true
//! [tools.mcp__github__delete_repository]
//! destructive = true
//! ```

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Deserialize;

use toolgate_core::gate::{CompoundPolicy, GateConfig, ModeSetting, Rule, RuleError, Rules};
use toolgate_core::tools::Hints;

/// The file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookConfig {
    /// The safety mode, as written: a name that is none of the modes makes
    /// the gate strict rather than the file an error (see
    /// [`HookConfig::gate_config`]).
    pub mode: Option<String>,
    /// An automation profile (decides instead of the mode).
    pub profile: Option<String>,
    /// Turn every ask into a deny.
    #[serde(default)]
    pub headless: bool,
    /// What to do with compound shell whose every part is safe.
    pub compound: Option<CompoundPolicy>,
    /// Tool names treated as the shell tool.
    pub shell_tools: Option<Vec<String>>,
    /// Permission rules.
    #[serde(default)]
    pub rules: RuleLists,
    /// Hints for non-shell tools, by name.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolHints>,
    /// Write the decision log (default on; `TOOLGATE_LOG` overrides).
    pub log: Option<bool>,
    /// The first malformed rule and its line, found when the text was
    /// parsed.
    #[serde(skip)]
    bad_rule: Option<(Option<usize>, RuleError)>,
}

/// `[rules]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleLists {
    /// Allow rules.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Ask rules.
    #[serde(default)]
    pub ask: Vec<String>,
    /// Deny rules.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// `[tools.NAME]`.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolHints {
    /// The tool only reads.
    pub read_only: Option<bool>,
    /// The tool may destroy something.
    pub destructive: Option<bool>,
}

/// A configuration file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Not valid TOML for the schema (the message names line and key).
    #[error("{file}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// The parser's message.
        message: String,
    },
    /// A permission rule is malformed (another tool's syntax, a bare
    /// command, an unknown key): never ignored, since a rule that does not
    /// say what its author thinks could leave a call unguarded or a
    /// person nagged.
    #[error("{file}:{}[rules]: {source}", line.map(|l| format!("{l}: ")).unwrap_or_else(|| " ".into()))]
    Rule {
        /// The file.
        file: String,
        /// The line the rule is on, when it was read from text.
        line: Option<usize>,
        /// The rule error.
        source: RuleError,
    },
    /// The file could not be read.
    #[error("{file}: {source}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
}

impl HookConfig {
    /// Reads and parses a configuration file; errors name it. (The hook,
    /// `doctor` and `scan --decide` read it so; with no file, the default
    /// is what they use.)
    pub fn load(path: &Path) -> Result<HookConfig, ConfigError> {
        let file = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => HookConfig::parse(&file, &text),
            Err(source) => Err(ConfigError::Read { file, source }),
        }
    }

    /// Parses a configuration file's text; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<HookConfig, ConfigError> {
        let mut config: HookConfig = toml::from_str(text).map_err(|e| ConfigError::Syntax {
            file: file.to_string(),
            message: e.to_string(),
        })?;
        // A bad rule is named with its line when the gate is built
        // ([`HookConfig::gate_config`]), not here: the file's `headless`
        // and `log` must still hold for the fail-closed answer it gets.
        let r = &config.rules;
        config.bad_rule = r
            .allow
            .iter()
            .chain(&r.ask)
            .chain(&r.deny)
            .find_map(|rule| Rule::parse(rule).err().map(|e| (rule_line(text, rule), e)));
        Ok(config)
    }

    /// The first rule of the file that does not parse, with its line: the
    /// error the hook, `doctor` and `scan --decide` report.
    pub fn rule_error(&self, file: &str) -> Option<ConfigError> {
        self.bad_rule
            .as_ref()
            .map(|(line, source)| ConfigError::Rule {
                file: file.to_string(),
                line: *line,
                source: source.clone(),
            })
    }

    /// The gate configuration this file describes. `mode`, `profile` and
    /// `compound` override the file's (the flag and environment come
    /// first).
    ///
    /// Mode and profile names are read fail-closed, here where they come in
    /// as text: an unrecognised mode becomes [`ModeSetting::Unrecognised`]
    /// and an unknown profile becomes [`ModeSetting::UnrecognisedProfile`],
    /// so the gate is strict and its verdicts name the bad name. The hook must answer every call, and a
    /// typo must never widen approval; `scan --decide` and `install`, which
    /// can report an error, refuse such a gate
    /// ([`Gate::unrecognised`](toolgate_core::gate::Gate::unrecognised)).
    ///
    /// ```
    /// use toolgate_core::gate::{Gate, Mode, ModeSetting};
    /// use toolgate_agents::hook::HookConfig;
    /// let file = HookConfig::parse("config.toml", "mode = \"balanced\"\n")?;
    /// let config = file.gate_config("config.toml", None, None, None)?;
    /// assert_eq!(config.mode, ModeSetting::Known(Mode::Balanced));
    /// // `TOOLGATE_MODE=balancd`: strict, and the verdicts say why.
    /// let config = file.gate_config("config.toml", Some("balancd".into()), None, None)?;
    /// assert_eq!(config.mode, ModeSetting::Unrecognised("balancd".into()));
    /// let gate = Gate::new(toolgate_core::Classifier::embedded()?, config);
    /// assert_eq!((gate.mode(), gate.unrecognised()), (Mode::Strict, Some("mode `balancd`")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn gate_config(
        &self,
        file: &str,
        mode: Option<String>,
        profile: Option<String>,
        compound: Option<CompoundPolicy>,
    ) -> Result<GateConfig, ConfigError> {
        if let Some(e) = self.rule_error(file) {
            return Err(e);
        }
        let rules = Rules::parse(&self.rules.allow, &self.rules.ask, &self.rules.deny).map_err(
            |source| ConfigError::Rule {
                file: file.to_string(),
                line: None,
                source,
            },
        )?;
        let hints: HashMap<String, Hints> = self
            .tools
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    Hints {
                        read_only: v.read_only,
                        destructive: v.destructive,
                    },
                )
            })
            .collect();
        let config = GateConfig {
            mode: ModeSetting::from_name(mode.as_deref().or(self.mode.as_deref())),
            policy: None,
            rules,
            shell_tools: self.shell_tools.clone(),
            hints,
            compound: compound.or(self.compound).unwrap_or_default(),
        };
        let profile = profile.or_else(|| self.profile.clone());
        Ok(toolgate_policy::apply_profile(config, profile.as_deref()))
    }
}

/// A config file's text with `rule` appended to its `[rules] KEY` list
/// (`allow`, `ask`, `deny`), every other byte kept; `Ok(None)` when the
/// rule is there already. For `toolgate allow|ask|deny`.
///
/// ```
/// use toolgate_agents::hook::add_rule;
/// let text = "mode = \"guard\" # mine\n";
/// assert_eq!(
///     add_rule(text, "allow", "shell:cmd=npm test"),
///     Ok(Some("mode = \"guard\" # mine\n\n[rules]\nallow = [\"shell:cmd=npm test\"]\n".to_string()))
/// );
/// ```
pub fn add_rule(text: &str, key: &str, rule: &str) -> Result<Option<String>, String> {
    use toml_edit::{Array, DocumentMut, Item, Table, Value};
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e: toml_edit::TomlError| format!("not valid TOML ({})", e.message().trim()))?;
    let rules = doc
        .entry("rules")
        .or_insert_with(|| Item::Table(Table::new()));
    let Some(rules) = rules.as_table_like_mut() else {
        return Err("`rules` is not a table".into());
    };
    let list = rules
        .entry(key)
        .or_insert(Item::Value(Value::Array(Array::new())));
    let Some(array) = list.as_array_mut() else {
        return Err(format!("`rules.{key}` is not an array"));
    };
    if array.iter().any(|v| v.as_str() == Some(rule)) {
        return Ok(None);
    }
    array.push(rule);
    Ok(Some(doc.to_string()))
}

/// The 1-based line of `text` that holds `rule` as a TOML string.
pub(crate) fn rule_line(text: &str, rule: &str) -> Option<usize> {
    let quoted = [format!("\"{rule}\""), format!("'{rule}'")];
    text.lines()
        .position(|l| quoted.iter().any(|q| l.contains(q.as_str())))
        .or_else(|| text.lines().position(|l| l.contains(rule)))
        .map(|n| n + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_core::gate::Mode;

    #[test]
    fn mode_names_are_read_fail_closed_flag_first() {
        let file = |text: &str| HookConfig::parse("c.toml", text).unwrap_or_else(|e| panic!("{e}"));
        let mode = |config: &HookConfig, flag: Option<&str>| {
            config
                .gate_config("c.toml", flag.map(String::from), None, None)
                .map(|g| g.mode)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let bad = file("mode = \" Yolo \"\n");
        assert_eq!(mode(&bad, None), ModeSetting::Unrecognised("Yolo".into()));
        assert_eq!(mode(&bad, Some("balanced")), Mode::Balanced.into());
        assert_eq!(
            mode(&file("mode = \"restricted\"\n"), Some("nope")),
            ModeSetting::Unrecognised("nope".into())
        );
        assert_eq!(
            mode(&file("mode = \"safer\"\n"), None),
            Mode::Balanced.into()
        );
        assert_eq!(mode(&HookConfig::default(), None), ModeSetting::default());
    }

    #[test]
    fn a_rule_is_appended_keeping_everything_else() {
        let text = "# mine\nmode = \"guard\"\n\n[rules]\nask = [\"shell:cmd=git push*\"] # push\n";
        assert_eq!(
            add_rule(text, "allow", "shell:cmd=npm test"),
            Ok(Some(
                "# mine\nmode = \"guard\"\n\n[rules]\nask = [\"shell:cmd=git push*\"] # push\nallow = [\"shell:cmd=npm test\"]\n"
                    .to_string()
            ))
        );
        assert_eq!(add_rule(text, "ask", "shell:cmd=git push*"), Ok(None));
        assert_eq!(
            add_rule("", "deny", "Bash"),
            Ok(Some("[rules]\ndeny = [\"Bash\"]\n".to_string()))
        );
        assert_eq!(
            add_rule("rules = 1\n", "deny", "Bash"),
            Err("`rules` is not a table".to_string())
        );
        assert_eq!(
            add_rule("[rules]\ndeny = \"x\"\n", "deny", "Bash"),
            Err("`rules.deny` is not an array".to_string())
        );
    }

    #[test]
    fn a_bad_rule_is_an_error_with_file_line_and_spelling() {
        for (text, message) in [
            (
                "mode = \"guard\"\n[rules]\nallow = [\"Bash(npm test)\"]\n",
                "c.toml:3: [rules]: permission rule `Bash(npm test)`: this is Claude Code's permission syntax, which toolgate does not read: write `shell:cmd=npm test`",
            ),
            (
                "[rules]\nask = [\n  \"shell:cmd=ls*\",\n  \"git push*\",\n]\n",
                "c.toml:4: [rules]: permission rule `git push*`: a bare command is not a rule: write `shell:cmd=git push*` (a shell command), or a tool name alone",
            ),
            (
                "[rules]\ndeny = ['Bash:cmnd=rm *']\n",
                "c.toml:2: [rules]: permission rule `Bash:cmnd=rm *`: unknown key `cmnd` for the shell tool: write `Bash:cmd=rm *`",
            ),
        ] {
            let got = HookConfig::parse("c.toml", text)
                .and_then(|c| c.gate_config("c.toml", None, None, None))
                .map(|_| ())
                .map_err(|e| e.to_string());
            assert_eq!(got, Err(message.to_string()), "{text}");
        }
        let unknown = HookConfig::parse("c.toml", "[rules]\nalow = []\n").map(|_| ());
        let unknown = unknown.map_err(|e| e.to_string()).err().unwrap_or_default();
        assert!(unknown.contains("unknown field `alow`"), "{unknown}");
        assert!(
            unknown.starts_with("c.toml: TOML parse error at line 2"),
            "{unknown}"
        );
    }
}
