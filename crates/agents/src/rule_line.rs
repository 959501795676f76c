//! The `toolgate allow` command line that adds a rule: what an ask
//! reason, `explain`, `rules` and the decision log's suggestions print,
//! spelt in one place.

/// The `toolgate allow` line that allows exactly `command` (the shell
/// tool's rule: `shell:cmd=COMMAND`), quoted for a POSIX shell.
///
/// ```
/// assert_eq!(toolgate_agents::rule_line::allow_line("npm test"), "toolgate allow 'shell:cmd=npm test'");
/// ```
pub fn allow_line(command: &str) -> String {
    allow_rule_line(&shell_rule(command))
}

/// The rule that allows exactly `command`: the shell tool's `cmd` being
/// the command as written, trimmed.
pub fn shell_rule(command: &str) -> String {
    format!("shell:cmd={}", command.trim())
}

/// `toolgate allow RULE`, quoted for a POSIX shell.
pub fn allow_rule_line(rule: &str) -> String {
    format!("toolgate allow {}", shell_words::quote(rule))
}
