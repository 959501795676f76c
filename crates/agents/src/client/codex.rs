//! Codex `PreToolUse` (0.171.0).
//!
//! Codex reads Claude Code's `hookSpecificOutput`. A deny with a non-empty
//! reason, or exit 2 with the reason on stderr, blocks; allow runs. Ask,
//! a deny without a reason, non-JSON output, exit 1 and a timeout all let
//! the command run, so ask is written as a deny that says so, and every
//! deny carries a reason. Hooks run only once trusted (`/hooks`).
//!
//! Besides its shell (`Bash`), Codex sends its file edits to `PreToolUse`
//! as `apply_patch`, with the whole patch in `tool_input.command` (the
//! files it writes are named by the patch's headers); `install` routes
//! both ([`MATCHER`]). Codex has no file-reading tool: it reads through
//! the shell.

use std::path::PathBuf;

use serde_json::{json, Value};
use toolgate_core::gate::Decision;

use super::claude::{hook_specific, specific};
use super::{Answer, Call, Client, InstallShape, Outcome};
use crate::place::{Env, Scope};

/// Codex CLI.
pub struct Codex;

/// The tools toolgate's hook is routed: the shell and `apply_patch` (a
/// matcher is a regular expression over the tool name, anchored here so
/// that no other tool whose name holds one of them is sent).
pub const MATCHER: &str = "^(Bash|apply_patch)$";

impl Client for Codex {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn title(&self) -> &'static str {
        "Codex CLI"
    }

    fn answer(&self, decision: Decision, reason: &str, _call: &Call<'_>) -> Answer {
        let reason = if reason.trim().is_empty() {
            "denied by toolgate"
        } else {
            reason
        };
        match decision {
            Decision::Ask => hook_specific(
                Decision::Deny,
                &format!("{reason} (needs confirmation, which Codex hooks cannot ask for: denied)"),
            ),
            other => hook_specific(other, reason),
        }
    }

    fn fail_closed(&self, _headless: bool) -> Decision {
        Decision::Deny
    }

    fn hooks_file_edits(&self) -> bool {
        true
    }

    fn outcome(&self, answer: &Answer) -> Outcome {
        if answer.exit_code == 2 {
            return Outcome::Blocked;
        }
        match specific(&answer.last_json()) {
            Some((Some(d), reason)) if d == "deny" => {
                if reason.is_some_and(|r| !r.trim().is_empty()) {
                    Outcome::Blocked
                } else {
                    Outcome::NoDecision
                }
            }
            Some((Some(d), _)) if d == "allow" => Outcome::Runs,
            _ => Outcome::NoDecision,
        }
    }

    fn sample_payload(&self, command: &str, cwd: &str) -> Value {
        json!({
            "session_id": "toolgate-doctor", "turn_id": "toolgate-doctor", "transcript_path": null,
            "cwd": cwd, "hook_event_name": "PreToolUse", "model": "toolgate-doctor",
            "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": command},
            "tool_use_id": "toolgate-doctor"})
    }

    fn settings_path(&self, scope: &Scope, env: &Env) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env.home.as_ref()?.join(".codex/config.toml"),
            Scope::Project(d) => d.join(".codex/config.toml"),
        })
    }

    fn install_shape(&self) -> Option<InstallShape> {
        Some(InstallShape::CodexToml)
    }

    fn after_install(&self, _scope: &Scope) -> Option<&'static str> {
        Some(
            "Codex runs a new or changed hook only once you trust it: start codex and review it \
             with /hooks. Do not use --dangerously-bypass-hook-trust to skip that.",
        )
    }
}
