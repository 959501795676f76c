//! Hook protocols: one payload in on stdin, one answer out, for Claude Code,
//! Codex, Gemini CLI and the seed runtime.
//!
//! Two of these clients let a call run when a hook crashes, stays silent or
//! prints something unexpected, so [`respond`] never fails: a payload that
//! cannot be read, is too large, is not JSON or has no command gets a
//! well-formed fail-closed answer (ask where the client honours ask, else
//! deny) with a reason.

mod claude;
mod codex;
pub mod config;
mod docker_agent;
mod gemini;
pub mod wire;

use std::io::Read;

use serde_json::Value;

use crate::gate::{Decision, Gate};
use crate::tools::shell_command_arg;

pub use config::{ConfigError, HookConfig};
pub use wire::{detect, parse_request, Request};

/// The largest payload read. Real payloads are a few kilobytes; a larger
/// one is answered fail-closed without being parsed.
pub const MAX_PAYLOAD: usize = 1 << 20;

/// Which agent is asking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// Claude Code `PreToolUse`.
    Claude,
    /// Codex `PreToolUse`.
    Codex,
    /// Gemini CLI `BeforeTool`.
    Gemini,
    /// The seed runtime's snake_case hook shape.
    DockerAgent,
}

impl Protocol {
    /// Parses `claude`, `codex`, `gemini` or `docker-agent`.
    pub fn parse(name: &str) -> Option<Protocol> {
        Some(match name.to_ascii_lowercase().as_str() {
            "claude" | "claude-code" => Protocol::Claude,
            "codex" => Protocol::Codex,
            "gemini" | "gemini-cli" => Protocol::Gemini,
            "docker-agent" | "docker_agent" | "seed" => Protocol::DockerAgent,
            _ => return None,
        })
    }

    /// The decision a fail-closed answer carries: ask where the client
    /// honours ask, else deny.
    pub fn fail_closed(self, headless: bool) -> Decision {
        match self {
            Protocol::Claude | Protocol::DockerAgent => Decision::Ask,
            Protocol::Gemini if !headless => Decision::Ask,
            Protocol::Gemini | Protocol::Codex => Decision::Deny,
        }
    }
}

/// How the hook answers.
#[derive(Clone, Copy, Debug, Default)]
pub struct HookOptions {
    /// The protocol, when not detected from the payload.
    pub protocol: Option<Protocol>,
    /// Turn ask into deny (headless runs where nobody can answer).
    pub headless: bool,
    /// Seed-runtime protocol only: attach the label, decide nothing.
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
    fn json(v: Value) -> Answer {
        Answer {
            stdout: format!("{v}\n"),
            stderr: String::new(),
            exit_code: 0,
        }
    }

    /// The answer every client reads as "blocked": exit 2 with the reason on
    /// stderr. Used when the protocol itself is unknown.
    pub fn blocked(reason: &str) -> Answer {
        Answer {
            stdout: String::new(),
            stderr: format!("{reason}\n"),
            exit_code: 2,
        }
    }
}

fn render(
    protocol: Protocol,
    decision: Decision,
    reason: &str,
    request: Option<&Request>,
    label: Option<&crate::Label>,
    opts: HookOptions,
) -> Answer {
    // Headless: nobody can answer an ask, so it is a deny, said so.
    let (decision, reason) = if opts.headless && decision == Decision::Ask {
        (
            Decision::Deny,
            format!(
                "{reason} (needs confirmation and nobody can answer in a headless run: denied)"
            ),
        )
    } else {
        (decision, reason.to_string())
    };
    match protocol {
        Protocol::Claude => claude::answer(decision, &reason),
        Protocol::Codex => codex::answer(decision, &reason),
        Protocol::Gemini => gemini::answer(decision, &reason),
        Protocol::DockerAgent => docker_agent::answer(
            (!opts.label_only).then_some(decision),
            &reason,
            label,
            request.and_then(|r| r.event.as_deref()),
        ),
    }
}

/// A fail-closed answer for a payload that could not be used.
pub fn fail_closed(protocol: Option<Protocol>, reason: &str, opts: HookOptions) -> Answer {
    let reason = format!("toolgate could not check this call: {reason}");
    match protocol {
        Some(p) => render(p, p.fail_closed(opts.headless), &reason, None, None, opts),
        None => Answer::blocked(&reason),
    }
}

/// Reads a payload of at most [`MAX_PAYLOAD`] bytes; a larger one is drained
/// (so the client's pipe does not break) and refused.
pub fn read_payload(mut input: impl Read) -> Result<Vec<u8>, String> {
    let mut buf = Vec::with_capacity(8192);
    let limit = u64::try_from(MAX_PAYLOAD).unwrap_or(u64::MAX) + 1;
    (&mut input)
        .take(limit)
        .read_to_end(&mut buf)
        .map_err(|e| format!("reading the payload failed: {e}"))?;
    if buf.len() > MAX_PAYLOAD {
        let _ = std::io::copy(&mut input.take(256 << 20), &mut std::io::sink());
        return Err(format!(
            "the payload is larger than {} MiB",
            MAX_PAYLOAD >> 20
        ));
    }
    Ok(buf)
}

/// Answers one payload. Never fails: every problem becomes a fail-closed
/// answer with a reason.
pub fn respond(gate: &Gate<'_>, payload: &[u8], opts: HookOptions) -> Answer {
    let value: Value = match serde_json::from_slice(payload) {
        Ok(v) => v,
        Err(e) => {
            let why = if payload.iter().all(u8::is_ascii_whitespace) {
                "the payload is empty".to_string()
            } else {
                format!("the payload is not valid JSON ({e})")
            };
            return fail_closed(opts.protocol, &why, opts);
        }
    };
    let protocol = opts.protocol.unwrap_or_else(|| detect(&value));
    if opts.label_only && protocol != Protocol::DockerAgent {
        return fail_closed(
            Some(protocol),
            "--label-only works with the docker-agent protocol only",
            opts,
        );
    }
    let request = match parse_request(&value) {
        Ok(r) => r,
        Err(why) => return fail_closed(Some(protocol), &why, opts),
    };
    if gate.is_shell_tool(&request.tool_name) && shell_command_arg(&request.tool_input).is_none() {
        return fail_closed(Some(protocol), "the shell call has no command", opts);
    }
    let ctx = crate::Context {
        cwd: request.cwd.as_deref(),
    };
    let verdict = gate.decide_in(&request.tool_name, &request.tool_input, None, &ctx);
    render(
        protocol,
        verdict.decision,
        &verdict.reason,
        Some(&request),
        Some(&verdict.label),
        opts,
    )
}
