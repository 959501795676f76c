//! Permission rules: allow, ask and deny patterns over a tool's name and
//! arguments, evaluated before the mode (deny > allow > ask).
//!
//! A rule is `TOOL` (any call of that tool) or `TOOL:KEY=GLOB` (`*` matches
//! any run of characters), e.g. `shell:cmd=git push*` or
//! `mcp_github:repo=acme/*`. For the shell tool the keys `cmd` and `command`
//! are one key: both mean "the command", whichever field the call used, so a
//! rule cannot be sidestepped by sending the other spelling.
//!
//! Allow rules are careful with shell: a grant such as `shell:cmd=mkdir*`
//! covers one plain command only — never compound shell
//! (`mkdir x && rm -rf ~`), substitutions, or redirections that write.
//! Deny rules are eager: they match the raw command and every simple
//! command found inside it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::glob::glob_match;
use crate::shell::{self, RedirectKind};
use crate::tools::DEFAULT_SHELL_TOOLS;

/// One parsed rule.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rule {
    /// The tool name it applies to (`*` for any).
    pub tool: String,
    /// The argument it looks at, if any.
    pub key: Option<String>,
    /// The glob the argument must match.
    pub pattern: Option<String>,
    /// The rule as written.
    pub text: String,
}

/// A rule that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("permission rule `{rule}`: {message}")]
pub struct RuleError {
    /// The rule as written.
    pub rule: String,
    /// What is wrong.
    pub message: String,
}

impl Rule {
    /// Parses `TOOL` or `TOOL:KEY=GLOB`.
    ///
    /// ```
    /// let r = toolgate_core::gate::Rule::parse("shell:cmd=git push*")?;
    /// assert_eq!((r.tool.as_str(), r.key.as_deref(), r.pattern.as_deref()), ("shell", Some("cmd"), Some("git push*")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(text: &str) -> Result<Rule, RuleError> {
        let err = |m: &str| RuleError {
            rule: text.to_string(),
            message: m.to_string(),
        };
        let t = text.trim();
        if let Some(right) = other_tool_syntax(t) {
            return Err(err(&format!(
                "this is Claude Code's permission syntax, which toolgate does not read: write `{right}`"
            )));
        }
        if !t.contains(':') && t.contains(char::is_whitespace) {
            return Err(err(&format!(
                "a bare command is not a rule: write `shell:cmd={t}` (a shell command), or a tool name alone"
            )));
        }
        let (tool, rest) = match t.split_once(':') {
            Some((tool, rest)) => (tool.trim(), Some(rest)),
            None => (t, None),
        };
        if tool.is_empty() {
            return Err(err("name a tool before `:` (or `*` for any tool)"));
        }
        let (key, pattern) = match rest {
            None => (None, None),
            Some(rest) => match rest.split_once('=') {
                Some((k, p)) if !k.trim().is_empty() => {
                    (Some(k.trim().to_string()), Some(p.to_string()))
                }
                _ => return Err(err("write `TOOL:KEY=GLOB`, e.g. `shell:cmd=git push*`")),
            },
        };
        if let (Some(k), Some(p)) = (&key, &pattern) {
            let shell_tool = DEFAULT_SHELL_TOOLS.contains(&tool);
            if shell_tool && !matches!(k.as_str(), "cmd" | "command") {
                return Err(err(&format!(
                    "unknown key `{k}` for the shell tool: write `{tool}:cmd={p}`"
                )));
            }
        }
        Ok(Rule {
            tool: tool.to_string(),
            key,
            pattern,
            text: text.to_string(),
        })
    }

    fn tool_matches(&self, tool: &str, shell_tool: bool) -> bool {
        glob_match(&self.tool, tool) || (shell_tool && self.tool == "shell")
    }

    fn is_command_key(&self) -> bool {
        matches!(self.key.as_deref(), Some("cmd" | "command"))
    }

    /// The parts, as written, of a command rule whose pattern is a list or
    /// pipeline (`a && b`, `a || b`, `a; b`, `a | b`); `None` for any
    /// other rule. Used to allow, such a rule would never match: an allow
    /// rule covers one plain command ([`Rule::grants`]), so its parts are
    /// what to allow.
    ///
    /// ```
    /// use toolgate_core::gate::Rule;
    /// let r = Rule::parse("shell:cmd=cat a.txt && git status")?;
    /// assert_eq!(r.command_parts(), Some(vec!["cat a.txt".to_string(), "git status".to_string()]));
    /// let r = Rule::parse("shell:cmd=grep 'a|b' *")?;
    /// assert_eq!(r.command_parts(), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn command_parts(&self) -> Option<Vec<String>> {
        if !self.is_command_key() {
            return None;
        }
        let pattern = self.pattern.as_deref()?;
        let script = shell::parse(pattern);
        if script.error.is_some() || script.limit.is_some() || !script.compound {
            return None;
        }
        let parts: Vec<String> = script
            .commands
            .iter()
            .filter(|c| !c.in_substitution)
            .filter_map(|c| pattern.get(c.span.clone()))
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        (parts.len() > 1).then_some(parts)
    }

    /// Does this rule, used to deny, cover the call?
    pub fn denies(&self, tool: &str, args: &Value, shell_tool: bool) -> bool {
        if !self.tool_matches(tool, shell_tool) {
            return false;
        }
        let (Some(key), Some(pattern)) = (&self.key, &self.pattern) else {
            return true;
        };
        if shell_tool && self.is_command_key() {
            return command_values(args).iter().any(|cmd| {
                glob_match(pattern, cmd.trim())
                    || simple_commands(cmd).iter().any(|c| glob_match(pattern, c))
            });
        }
        arg_values(args, key).iter().any(|v| glob_match(pattern, v))
    }

    /// Does this rule, used to allow or ask, cover the call?
    pub fn grants(&self, tool: &str, args: &Value, shell_tool: bool) -> bool {
        if !self.tool_matches(tool, shell_tool) {
            return false;
        }
        let (Some(key), Some(pattern)) = (&self.key, &self.pattern) else {
            return true;
        };
        if shell_tool && self.is_command_key() {
            let values = command_values(args);
            return !values.is_empty()
                && values
                    .iter()
                    .all(|cmd| is_plain_command(cmd) && glob_match(pattern, cmd.trim()));
        }
        let values = arg_values(args, key);
        !values.is_empty() && values.iter().all(|v| glob_match(pattern, v))
    }
}

/// The toolgate spelling of a rule written in Claude Code's syntax
/// (`Bash(git push)`, `Bash(npm run test:*)`, `Read(./.env)`), if it is
/// one: a word, then the argument in parentheses.
fn other_tool_syntax(rule: &str) -> Option<String> {
    let (tool, rest) = rule.split_once('(')?;
    let arg = rest.strip_suffix(')')?;
    if tool.is_empty() || !tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    // Claude's `:*` suffix and a trailing `*` both mean "and anything after".
    let arg = arg.trim();
    let glob = match arg.strip_suffix(":*") {
        Some(prefix) => format!("{prefix}*"),
        None => arg.to_string(),
    };
    Some(match tool {
        "Bash" => format!("shell:cmd={glob}"),
        "Read" | "Edit" | "Write" => format!("{tool}:file_path={glob}"),
        "WebFetch" => format!("{tool}:url={glob}"),
        _ if glob.is_empty() => tool.to_string(),
        _ => format!("{tool}:KEY={glob}"),
    })
}

/// Every non-blank command the call carries, under either spelling.
fn command_values(args: &Value) -> Vec<String> {
    ["cmd", "command"]
        .iter()
        .filter_map(|k| args.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
        .map(String::from)
        .collect()
}

fn arg_values(args: &Value, key: &str) -> Vec<String> {
    match args.get(key) {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![other.to_string()],
    }
}

/// One simple command, literal words, nothing that writes or runs more.
fn is_plain_command(cmd: &str) -> bool {
    let script = shell::parse(cmd);
    script.error.is_none()
        && script.limit.is_none()
        && !script.compound
        && script.commands.len() == 1
        && script.commands.iter().all(|c| {
            c.words.iter().all(|w| w.literal)
                && c.redirects.iter().all(|r| match r.kind {
                    RedirectKind::Duplicate => true,
                    k if k.writes() => r.target_is_sink(),
                    _ => false,
                })
        })
}

/// The simple commands inside a command line, words joined by spaces.
fn simple_commands(cmd: &str) -> Vec<String> {
    shell::parse(cmd)
        .commands
        .iter()
        .map(|c| {
            c.words
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// The three rule lists.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    /// Rules that allow.
    pub allow: Vec<Rule>,
    /// Rules that ask.
    pub ask: Vec<Rule>,
    /// Rules that deny.
    pub deny: Vec<Rule>,
}

impl Rules {
    /// Parses the three lists of rule texts.
    pub fn parse(allow: &[String], ask: &[String], deny: &[String]) -> Result<Rules, RuleError> {
        let parse_all = |v: &[String]| {
            v.iter()
                .map(|r| Rule::parse(r))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Rules {
            allow: parse_all(allow)?,
            ask: parse_all(ask)?,
            deny: parse_all(deny)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn globs() {
        for (p, t, want) in [
            ("git push*", "git push origin main", true),
            ("git push*", "git pull", false),
            ("*", "", true),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "aXbY", false),
            ("exact", "exact", true),
            ("exact", "exact ", false),
        ] {
            assert_eq!(glob_match(p, t), want, "{p} {t}");
        }
    }

    #[test]
    fn command_alias_cannot_sidestep_a_rule() {
        let deny = Rule::parse("shell:cmd=rm *").map_err(|e| e.to_string());
        let deny = deny.unwrap_or_else(|e| panic!("{e}"));
        assert!(deny.denies("shell", &json!({"command": "rm -rf /"}), true));
        assert!(deny.denies("shell", &json!({"cmd": "ls", "command": "rm -rf /"}), true));
        assert!(deny.denies("Bash", &json!({"command": "ls && rm -rf /"}), true));
        let allow = Rule::parse("shell:command=ls*").unwrap_or_else(|e| panic!("{e}"));
        assert!(allow.grants("shell", &json!({"cmd": "ls -la"}), true));
        assert!(!allow.grants("shell", &json!({"cmd": "ls", "command": "rm -rf /"}), true));
    }

    #[test]
    fn prefix_grants_never_cover_compound_shell() {
        let allow = Rule::parse("shell:cmd=mkdir*").unwrap_or_else(|e| panic!("{e}"));
        for cmd in [
            "mkdir x && rm -rf ~",
            "mkdir x; rm -rf ~",
            "mkdir $(rm -rf ~)",
            "mkdir x > /etc/passwd",
            "mkdir x | sh",
            "mkdir `id`",
        ] {
            assert!(
                !allow.grants("shell", &json!({ "cmd": cmd }), true),
                "{cmd}"
            );
        }
        assert!(allow.grants("shell", &json!({"cmd": "mkdir -p build/out"}), true));
        assert!(allow.grants("shell", &json!({"cmd": "mkdir x 2>/dev/null"}), true));
    }

    #[test]
    fn bad_rules_say_how_to_write_them() {
        let e = Rule::parse("shell:cmd")
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(
            e,
            Err(
                "permission rule `shell:cmd`: write `TOOL:KEY=GLOB`, e.g. `shell:cmd=git push*`"
                    .to_string()
            )
        );
        assert!(Rule::parse(":x=y").is_err());
    }

    #[test]
    fn rules_in_another_syntax_name_the_right_spelling() {
        for (rule, message) in [
            (
                "Bash(git push)",
                "this is Claude Code's permission syntax, which toolgate does not read: write `shell:cmd=git push`",
            ),
            (
                "Bash(npm run test:*)",
                "this is Claude Code's permission syntax, which toolgate does not read: write `shell:cmd=npm run test*`",
            ),
            (
                "Read(./.env)",
                "this is Claude Code's permission syntax, which toolgate does not read: write `Read:file_path=./.env`",
            ),
            (
                "git push*",
                "a bare command is not a rule: write `shell:cmd=git push*` (a shell command), or a tool name alone",
            ),
            (
                "shell:cmnd=git push*",
                "unknown key `cmnd` for the shell tool: write `shell:cmd=git push*`",
            ),
            (
                "Bash:args=rm *",
                "unknown key `args` for the shell tool: write `Bash:cmd=rm *`",
            ),
        ] {
            let got = Rule::parse(rule).map(|_| ()).map_err(|e| e.message);
            assert_eq!(got, Err(message.to_string()), "{rule}");
        }
        // Near misses: a tool glob, a tool alone, another tool's key.
        for rule in [
            "mcp__github__*",
            "Bash",
            "mcp_github:repo=acme/*",
            "shell:command=ls*",
        ] {
            assert!(Rule::parse(rule).is_ok(), "{rule}");
        }
    }
}
