//! The agent clients toolgate answers, one file each.
//!
//! Everything toolgate knows about a client sits in that client's file, as
//! one implementation of [`Client`]: how to read its hook payload, how to
//! write each decision so that the client honours it, which answer it
//! treats as a block when toolgate cannot check a call, which answer leaves
//! the call to the client's own permissions ("no opinion"), what it does
//! with an answer (for `doctor`), where its settings file is and what
//! shape toolgate's hook takes there (for `install`). [`CLIENTS`] lists
//! them all; the hook, `install`, `doctor` and the decision log read that
//! list and nothing else.
//!
//! The facts come from captures of the released clients driving a fake
//! model API (`../shared/protocols/`); Cursor and Windsurf are from their
//! documentation and marked so.

mod claude;
mod cline;
mod codex;
mod copilot;
mod cursor;
mod docker_agent;
mod gemini;
mod opencode;
pub mod payload;
mod qwen;
mod windsurf;

use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use serde_json::Value;
use toolgate_core::gate::Decision;
use toolgate_core::label::Label;

pub use claude::MATCHER as CLAUDE_MATCHER;
pub use codex::MATCHER as CODEX_MATCHER;
pub use gemini::MATCHER as GEMINI_MATCHER;
pub use opencode::PLUGIN as OPENCODE_PLUGIN;
pub use payload::{detect, session_id, Request};
pub use qwen::MATCHER as QWEN_MATCHER;

use crate::place::{Env, Scope};

/// One agent client: everything toolgate needs to answer its hook and to
/// install it.
pub trait Client: Sync + std::panic::RefUnwindSafe {
    /// The name `--protocol` and `install` take (`claude`).
    fn name(&self) -> &'static str;

    /// The client's own name, for people (`Claude Code`).
    fn title(&self) -> &'static str;

    /// Other names it goes by (`claude-code`), in lower case.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// Reads a payload as this client sends it; the error is a reason for
    /// a fail-closed answer.
    fn parse(&self, payload: &Value) -> Result<Request, String> {
        payload::parse_common(payload)
    }

    /// Writes a decision (allow, ask or deny) the way this client honours
    /// it. A client that cannot ask turns ask into its block, saying so.
    /// [`Decision::NoOpinion`] never reaches here: [`Client::render`]
    /// answers it.
    fn answer(&self, decision: Decision, reason: &str, call: &Call<'_>) -> Answer;

    /// The answer that leaves the call to the client's own permission
    /// flow, as if no hook had run; `None` where the client has none.
    fn no_opinion(&self) -> Option<Answer> {
        Some(Answer::silent())
    }

    /// What the client does with a call its hook leaves to it, where
    /// that is not a permission flow of its own that the user tuned (a
    /// client that runs such calls unasked), with the stricter choice;
    /// `install` and `doctor` say it next to a no-opinion row.
    fn no_opinion_note(&self) -> Option<&'static str> {
        None
    }

    /// The decision a fail-closed answer carries: ask where the client is
    /// known to hold an ask for a person, else deny, which the client's
    /// [`Client::answer`] turns into its own block.
    fn fail_closed(&self, headless: bool) -> Decision;

    /// The hook sees every tool call and the client cannot be told to send
    /// the shell tool alone (no matcher): a call to a tool toolgate knows
    /// nothing about then gets the no-opinion answer.
    fn sees_every_tool(&self) -> bool {
        false
    }

    /// The client's file-editing tools can be routed to the hook, which
    /// then answers for them only when they touch the guard's own files.
    fn hooks_file_edits(&self) -> bool {
        false
    }

    /// What the client does with `answer`, as the captures (or its
    /// documentation) say.
    fn outcome(&self, answer: &Answer) -> Outcome;

    /// A payload this client would send for a shell call of `command` in
    /// `cwd`, shaped like the captured ones (`doctor`'s canaries).
    fn sample_payload(&self, command: &str, cwd: &str) -> Value;

    /// Where the client reads toolgate's hook from; `None` when the
    /// environment names no home for it.
    fn settings_path(&self, scope: &Scope, env: &Env) -> Option<PathBuf>;

    /// The shape toolgate's hook takes in that file; `None` for a client
    /// toolgate does not install itself into.
    fn install_shape(&self) -> Option<InstallShape>;

    /// What to tell the user after installing: how the client picks the
    /// hook up.
    fn after_install(&self, _scope: &Scope) -> Option<&'static str> {
        None
    }

    /// Writes `decision` for this client: a no-opinion decision as the
    /// client's no-opinion answer (ask where it has none, the cautious
    /// side), anything else by [`Client::answer`].
    fn render(&self, decision: Decision, reason: &str, call: &Call<'_>) -> Answer {
        match decision {
            Decision::NoOpinion => match self.no_opinion() {
                Some(answer) => answer,
                None => self.answer(Decision::Ask, reason, call),
            },
            _ => self.answer(decision, reason, call),
        }
    }
}

/// Every client, in the order the documentation lists them.
pub static CLIENTS: &[&dyn Client] = &[
    &claude::ClaudeCode,
    &codex::Codex,
    &gemini::GeminiCli,
    &copilot::CopilotCli,
    &qwen::QwenCode,
    &cline::Cline,
    &opencode::OpenCode,
    &cursor::Cursor,
    &windsurf::Windsurf,
    &docker_agent::DockerAgent,
];

/// The client a name stands for: its [`Client::name`] or one of its
/// aliases, in any case.
///
/// ```
/// use toolgate_agents::client;
/// assert_eq!(client::by_name("Qwen-Code").map(|c| c.name()), Some("qwen"));
/// assert_eq!(client::by_name("copilot").map(|c| c.title()), Some("GitHub Copilot CLI"));
/// assert!(client::by_name("vim").is_none());
/// ```
pub fn by_name(name: &str) -> Option<&'static dyn Client> {
    let name = name.to_ascii_lowercase();
    CLIENTS
        .iter()
        .copied()
        .find(|c| c.name() == name || c.aliases().contains(&name.as_str()))
}

impl fmt::Debug for dyn Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Clients are the same when their names are.
impl PartialEq for dyn Client {
    fn eq(&self, other: &dyn Client) -> bool {
        self.name() == other.name()
    }
}

impl Eq for dyn Client {}

impl Hash for dyn Client {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

/// What an answer is about, for the clients whose answer carries more than
/// the decision.
#[derive(Clone, Copy, Debug, Default)]
pub struct Call<'a> {
    /// The call, when it was read.
    pub request: Option<&'a Request>,
    /// Its label, when it was labelled.
    pub label: Option<&'a Label>,
    /// docker-agent's `--label-only`: attach the label, decide nothing.
    pub label_only: bool,
}

/// An answer: what to print and how to exit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// Standard output (one JSON line), if any.
    pub stdout: String,
    /// Standard error, if any.
    pub stderr: String,
    /// The exit status.
    pub exit_code: u8,
}

impl Answer {
    /// One JSON line on stdout, exit 0.
    pub fn json(v: Value) -> Answer {
        Answer {
            stdout: format!("{v}\n"),
            stderr: String::new(),
            exit_code: 0,
        }
    }

    /// Nothing on stdout, exit 0: for most clients, no decision at all.
    pub fn silent() -> Answer {
        Answer {
            stdout: String::new(),
            stderr: String::new(),
            exit_code: 0,
        }
    }

    /// Exit 2 with the reason on stderr: the block of Windsurf, and the
    /// answer that blocks in every command-hook client but Cline (which
    /// ignores exit codes) when the client itself is unknown.
    pub fn blocked(reason: &str) -> Answer {
        Answer {
            stdout: String::new(),
            stderr: format!("{reason}\n"),
            exit_code: 2,
        }
    }

    /// The JSON of the answer's last non-blank stdout line (Cline's
    /// `HOOK_CONTROL<TAB>` prefix taken off), or null.
    pub fn last_json(&self) -> Value {
        let last = self
            .stdout
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        let last = last.strip_prefix("HOOK_CONTROL\t").unwrap_or(last);
        serde_json::from_str(last.trim()).unwrap_or(Value::Null)
    }
}

/// What a client does with a hook's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The command runs.
    Runs,
    /// The client asks its user.
    Asks,
    /// The call is blocked (for Cline: the run is cancelled).
    Blocked,
    /// The client does not read a decision from the answer and goes on
    /// by its own permissions (for most of them: the command runs).
    NoDecision,
    /// The hook could not be run or did not finish; why.
    Failed(String),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Runs => f.write_str("runs"),
            Outcome::Asks => f.write_str("asks"),
            Outcome::Blocked => f.write_str("blocked"),
            Outcome::NoDecision => f.write_str("no decision the client reads"),
            Outcome::Failed(why) => write!(f, "the hook failed: {why}"),
        }
    }
}

/// An outcome by the decision word a client reads (`allow`, `ask`,
/// `deny`/`block`).
fn by_word(word: Option<&str>) -> Outcome {
    match word {
        Some("allow") => Outcome::Runs,
        Some("ask") => Outcome::Asks,
        Some("deny" | "block") => Outcome::Blocked,
        _ => Outcome::NoDecision,
    }
}

/// A string field of a JSON value.
fn field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(String::from)
}

/// The shape toolgate's hook takes in a client's settings.
#[derive(Clone, Copy, Debug)]
pub enum InstallShape {
    /// An entry in a JSON settings file.
    Json(JsonShape),
    /// A `[[hooks.PreToolUse]]` table in Codex's `config.toml`.
    CodexToml,
    /// An executable script (Cline's `PreToolUse`).
    Script,
    /// toolgate's OpenCode plugin.
    OpenCodePlugin,
}

/// How one client's JSON file holds a hook: nested in matcher groups
/// (`hooks.EVENT[].hooks[]`, when `matcher` is set) or listed flat
/// (`hooks.EVENT[]`).
#[derive(Clone, Copy, Debug)]
pub struct JsonShape {
    /// The key under `hooks`.
    pub event: &'static str,
    /// The matcher group's `matcher`; `None` for the flat lists.
    pub matcher: Option<&'static str>,
    /// The key holding the command.
    pub command_key: &'static str,
    /// The timeout field and its unit, if the client reads one.
    pub timeout: Option<Timeout>,
    /// The entry carries `"type": "command"`.
    pub typed: bool,
    /// Other fields of the entry (Windsurf's `show_output`).
    pub flags: &'static [(&'static str, bool)],
    /// A new file starts with `"version": 1`.
    pub versioned: bool,
}

/// A hook timeout field: its key and whether it counts milliseconds.
#[derive(Clone, Copy, Debug)]
pub struct Timeout {
    /// The key (`timeout`, `timeoutSec`).
    pub key: &'static str,
    /// The value is in milliseconds, not seconds.
    pub millis: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_client_has_one_entry_and_names_nobody_else() {
        let mut names: Vec<&str> = Vec::new();
        for c in CLIENTS {
            for n in std::iter::once(c.name()).chain(c.aliases().iter().copied()) {
                assert!(!names.contains(&n), "{n} names two clients");
                assert_eq!(n, n.to_ascii_lowercase(), "{n}");
                names.push(n);
            }
            assert_eq!(by_name(c.name()).map(|b| b.name()), Some(c.name()));
        }
    }

    #[test]
    fn no_opinion_renders_as_the_clients_own_no_opinion_or_asks() {
        for c in CLIENTS {
            let rendered = c.render(Decision::NoOpinion, "why", &Call::default());
            match c.no_opinion() {
                Some(answer) => assert_eq!(rendered, answer, "{}", c.name()),
                None => assert_eq!(
                    rendered,
                    c.answer(Decision::Ask, "why", &Call::default()),
                    "{}",
                    c.name()
                ),
            }
        }
    }
}
