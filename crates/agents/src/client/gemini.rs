//! Gemini CLI `BeforeTool` (0.61).
//!
//! Answer `{"decision": "allow"|"deny"|"ask", "reason": "…"}` with exit 0
//! (exit 2 also denies; exit 1 lets the call run). In headless `gemini -p` an
//! ask waits for a person who is not there until the CLI times out, so
//! `--headless` (or `TOOLGATE_HEADLESS=1`) turns ask into deny before the
//! answer is rendered here. Its file tools (`read_file`, `read_many_files`,
//! `glob`, `grep_search`, `list_directory`, `write_file`, `replace`) are
//! routed to the hook by the matcher `install` writes ([`MATCHER`]): a read
//! of a secret gets the destructive answer, an edit of a guard file is
//! denied, everything else no opinion.

use std::path::PathBuf;

use serde_json::{json, Value};
use toolgate_core::gate::Decision;

use super::{by_word, field, Answer, Call, Client, InstallShape, JsonShape, Outcome, Timeout};
use crate::place::{Env, Scope};

/// Gemini CLI.
pub struct GeminiCli;

/// The tools toolgate's hook is routed: the shell and Gemini CLI's file
/// tools (`search_file_content` is `grep_search`'s older name). A matcher
/// is a regular expression over the tool name, anchored here so that no
/// MCP tool whose name holds one of them is sent.
pub const MATCHER: &str = "^(run_shell_command|read_file|read_many_files|glob|grep_search|\
                           search_file_content|list_directory|write_file|replace)$";

impl Client for GeminiCli {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn title(&self) -> &'static str {
        "Gemini CLI"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["gemini-cli"]
    }

    fn answer(&self, decision: Decision, reason: &str, _call: &Call<'_>) -> Answer {
        Answer::json(json!({ "decision": decision.as_str(), "reason": reason }))
    }

    fn fail_closed(&self, headless: bool) -> Decision {
        if headless {
            Decision::Deny
        } else {
            Decision::Ask
        }
    }

    fn hooks_file_edits(&self) -> bool {
        true
    }

    fn outcome(&self, answer: &Answer) -> Outcome {
        if answer.exit_code == 2 {
            return Outcome::Blocked;
        }
        by_word(field(&answer.last_json(), "decision").as_deref())
    }

    fn sample_payload(&self, command: &str, cwd: &str) -> Value {
        json!({
            "session_id": "toolgate-doctor", "transcript_path": "/dev/null", "cwd": cwd,
            "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00.000Z",
            "tool_name": "run_shell_command", "tool_input": {"command": command}})
    }

    fn settings_path(&self, scope: &Scope, env: &Env) -> Option<PathBuf> {
        Some(match scope {
            Scope::User => env.home.as_ref()?.join(".gemini/settings.json"),
            Scope::Project(d) => d.join(".gemini/settings.json"),
        })
    }

    fn install_shape(&self) -> Option<InstallShape> {
        // `timeout` in milliseconds.
        Some(InstallShape::Json(JsonShape {
            event: "BeforeTool",
            matcher: Some(MATCHER),
            command_key: "command",
            timeout: Some(Timeout {
                key: "timeout",
                millis: true,
            }),
            typed: true,
            flags: &[],
            versioned: false,
        }))
    }
}
