//! The hook looks before it allows: a shell call whose words only read is
//! allowed once a bounded look at what it would really read, from where it
//! really runs, finds no secret ([`toolgate_core::look`]).
//!
//! On by default. `TOOLGATE_LOOK=off` turns it off (the words alone then
//! decide, and a read only a look could clear is not allowed);
//! `TOOLGATE_LOOK_FILES`, `TOOLGATE_LOOK_MIB` and `TOOLGATE_LOOK_MS` set
//! its budget (files, MiB in all, milliseconds).

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use toolgate_core::classify::Assessment;
use toolgate_core::gate::{Gate, Verdict};
use toolgate_core::look::{self, Budget};

/// Whether the environment leaves the look on.
pub fn enabled() -> bool {
    !matches!(
        std::env::var("TOOLGATE_LOOK").as_deref(),
        Ok("off" | "0" | "false" | "no")
    )
}

/// The look's budget: the defaults, less or more where the environment
/// says so.
pub fn budget() -> Budget {
    let var = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    let mut b = Budget::default();
    if let Some(n) = var("TOOLGATE_LOOK_FILES") {
        b.files = usize::try_from(n).unwrap_or(usize::MAX);
    }
    if let Some(n) = var("TOOLGATE_LOOK_MIB") {
        b.bytes = n.saturating_mul(1 << 20);
    }
    if let Some(n) = var("TOOLGATE_LOOK_MS") {
        b.time = Duration::from_millis(n);
    }
    b
}

/// The directory a client names as the session's project, where it does.
fn project_dir() -> Option<PathBuf> {
    [
        "CLAUDE_PROJECT_DIR",
        "GEMINI_PROJECT_DIR",
        "QWEN_PROJECT_DIR",
    ]
    .iter()
    .find_map(|v| std::env::var_os(v).filter(|p| !p.is_empty()))
    .map(PathBuf::from)
}

/// Settles `verdict` by a look at what the call would read, when the gate
/// wants one ([`Gate::wants_look`]). `cwd` is the payload's working
/// directory; without one, the hook's own (clients start their hooks in
/// the session's directory).
pub fn before_allowing(
    gate: &Gate<'_>,
    verdict: Verdict,
    assessed: Option<&Assessment>,
    tool: &str,
    args: &Value,
    cwd: Option<&str>,
) -> Verdict {
    let Some(assessed) = assessed else {
        return verdict;
    };
    let cwd = match cwd {
        Some(c) => look::native_dir(c),
        None => std::env::current_dir().ok(),
    };
    look::settle(
        gate,
        verdict,
        assessed,
        tool,
        args,
        cwd.as_deref(),
        project_dir().as_deref(),
        &budget(),
    )
}
