//! `toolgate hook`: one payload in, one answer out, and never a crash.
//!
//! Mode precedence: `--mode`, then `TOOLGATE_MODE`, then the config file's
//! `mode`, else the legacy default. A profile (`--profile`,
//! `TOOLGATE_PROFILE`, `profile` in the file, same precedence) decides
//! instead of the mode when one is given. Config file: `--config`, then
//! `TOOLGATE_CONFIG`, then `$XDG_CONFIG_HOME/toolgate/config.toml` (or
//! `~/.config/toolgate/config.toml`) when it exists. Headless: `--headless`,
//! `TOOLGATE_HEADLESS=1`, or `headless = true` in the file (or in the
//! project's `.toolgate.toml`, which can only tighten:
//! [`toolgate::hook::policy`]).
//!
//! After the answer is written, it is appended to the decision log
//! ([`toolgate::decision_log`]) unless `TOOLGATE_LOG=0` or `log = false`;
//! nothing the log does can change the answer or the exit status.

use std::io::{self, IsTerminal, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::SystemTime;

use clap::Args as ClapArgs;
use toolgate::client::{self, Client, CLIENTS};
use toolgate::decision_log::{state_dir, DecisionLog, Entry, Trace};
use toolgate::gate::{CompoundPolicy, Gate};
use toolgate::hook::{self, fail_closed_traced, Answer, HookConfig, HookOptions, ProjectPolicy};
use toolgate::install::Env;
use toolgate::Classifier;

/// Options of `toolgate hook`.
#[derive(Debug, ClapArgs)]
pub struct HookArgs {
    /// claude, codex, gemini, copilot, qwen, cline, opencode, cursor,
    /// windsurf or docker-agent (default: detected from the payload).
    #[arg(long)]
    pub protocol: Option<String>,
    /// guard, strict, balanced, restricted or autonomous (an unrecognised
    /// name is strict; none is the legacy row, which asks for everything).
    #[arg(long)]
    pub mode: Option<String>,
    /// manual, review, supervised, cautious, trusted, auto, ci or full-auto:
    /// an automation profile decides instead of the mode (an unknown name
    /// is strict).
    #[arg(long)]
    pub profile: Option<String>,
    /// A TOML configuration file (mode, rules, tool hints).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Turn every ask into a deny, for runs with nobody to answer.
    #[arg(long)]
    pub headless: bool,
    /// refuse (default) or every-part-safe: let a list or pipeline whose
    /// every command is safe through as a safe call (its label stays
    /// unknown).
    #[arg(long)]
    pub compound: Option<String>,
    /// docker-agent protocol: attach the label's metadata, decide nothing.
    #[arg(long)]
    pub label_only: bool,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Runs the hook; returns the exit status. Every path prints an answer.
pub fn run(load: impl FnOnce() -> Result<&'static Classifier, String>, args: HookArgs) -> u8 {
    let protocol_flag = args.protocol.as_deref().map(client::by_name);
    let bad_protocol = matches!(protocol_flag, Some(None));
    // `TOOLGATE_CONFIG`, `TOOLGATE_MODE`, …, read as `doctor` reads them.
    let env = Env::from_process();
    let mut opts = HookOptions {
        client: protocol_flag.flatten(),
        headless: args.headless || env.toolgate_headless,
        label_only: args.label_only,
    };
    if io::stdin().is_terminal() {
        // A person who ran `toolgate hook` by hand would otherwise wait at
        // a silent prompt.
        eprintln!(
            "toolgate hook: waiting for one JSON hook payload on stdin (agents pipe it in; \
             end typed input with Ctrl-D)"
        );
    }
    let payload = hook::read_payload(io::stdin().lock());
    // The config file's `log`, once it is read.
    let mut log_setting: Option<bool> = None;
    // What the pre-check learnt of the call, for fail-closed entries.
    let mut known = Trace::default();
    let (answer, mut trace) = panic::catch_unwind(AssertUnwindSafe(|| {
        let fail_closed = |client: Option<&'static dyn Client>, why: &str, opts: HookOptions| {
            fail_closed_traced(client, why, opts)
        };
        if bad_protocol {
            let names: Vec<&str> = CLIENTS.iter().map(|p| p.name()).collect();
            return fail_closed(
                None,
                &format!(
                    "unknown --protocol `{}` (use one of {})",
                    args.protocol.as_deref().unwrap_or_default(),
                    names.join(", ")
                ),
                opts,
            );
        }
        let payload = match &payload {
            Ok(p) => p,
            Err(why) => return fail_closed(opts.client, why, opts),
        };
        // Know the client before anything else can fail, so that a broken
        // config or taxonomy is still answered in its protocol.
        if opts.client.is_none() {
            opts.client = serde_json::from_slice::<serde_json::Value>(payload)
                .ok()
                .map(|v| client::detect(&v));
        }
        // Load the taxonomy only for a payload worth classifying: a bad
        // payload is answered before any of that work.
        let mut cwd = None;
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(payload) {
            let client = opts.client.unwrap_or_else(|| client::detect(&v));
            known.session = client::session_id(&v);
            match client.parse(&v) {
                Ok(request) => {
                    known.tool = Some(request.tool_name);
                    known.cwd.clone_from(&request.cwd);
                    cwd = request.cwd;
                }
                Err(why) => return fail_closed(opts.client, &why, opts),
            }
        }
        let classifier = match load() {
            Ok(c) => c,
            Err(e) => {
                return fail_closed(
                    opts.client,
                    &format!("the taxonomy did not load: {e}"),
                    opts,
                )
            }
        };
        // A bad name here is answered fail-closed, like every other
        // problem: the hook never exits without an answer.
        let compound = match args.compound.as_deref().map(str::parse::<CompoundPolicy>) {
            None => None,
            Some(Ok(c)) => Some(c),
            Some(Err(e)) => return fail_closed(opts.client, &format!("--compound: {e}"), opts),
        };
        let mode = args.mode.clone().or_else(|| env.toolgate_mode.clone());
        let profile = args
            .profile
            .clone()
            .or_else(|| env.toolgate_profile.clone());
        let path = args.config.clone().or_else(|| env.toolgate_config_path());
        let file = match path.as_deref().map(HookConfig::load).transpose() {
            Ok(file) => file.unwrap_or_default(),
            Err(e) => return fail_closed(opts.client, &format!("bad configuration: {e}"), opts),
        };
        // Headless and the log setting hold even when a rule in the file is
        // bad: its fail-closed answer is then still the headless one.
        opts.headless |= file.headless;
        log_setting = file.log;
        let name = path.map(|p| p.display().to_string()).unwrap_or_default();
        let gate_config = match file.gate_config(&name, mode, profile, compound) {
            Ok(g) => g,
            Err(e) => return fail_closed(opts.client, &format!("bad configuration: {e}"), opts),
        };
        // The project's policy, from the call's directory: a file that
        // cannot be used is a block, not a silent fall back to the user's
        // configuration alone.
        let project = match ProjectPolicy::discover(cwd.as_deref()) {
            Ok(p) => p,
            Err(e) => return fail_closed(opts.client, &format!("bad project policy: {e}"), opts),
        };
        opts.headless |= project.as_ref().is_some_and(ProjectPolicy::headless);
        let project_gate = project.map(|p| p.gate(classifier, &gate_config));
        // The hook looks before it allows (unless TOOLGATE_LOOK=off).
        let gate = Gate::new(classifier, gate_config).reaching(hook::look::enabled());
        hook::respond_traced(&gate, project_gate.as_ref(), payload, opts)
    }))
    .unwrap_or_else(|_| fail_closed_traced(opts.client, "internal error", opts));
    let code = emit(&answer);
    // A fail-closed answer before the payload was read says nothing of the
    // call; fill in what the pre-check saw.
    trace.session = trace.session.or(known.session);
    trace.cwd = trace.cwd.or(known.cwd);
    trace.tool = trace.tool.or(known.tool);
    log(&trace, log_setting);
    code
}

/// Is the log on? `TOOLGATE_LOG` (`0`, `false`, `off`, `no`: off; anything
/// else: on) comes before the config file's `log`; on by default.
fn log_enabled(setting: Option<bool>) -> bool {
    match env("TOOLGATE_LOG") {
        Some(v) => !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "off" | "no"
        ),
        None => setting.unwrap_or(true),
    }
}

/// Appends the answer to the decision log, after it was written. Every
/// failure is dropped, a panic included, and silenced: the client may read
/// stderr as the reason, and the answer is already out.
fn log(trace: &Trace, setting: Option<bool>) {
    if !log_enabled(setting) {
        return;
    }
    let Some(dir) = state_dir(|k| std::env::var(k).ok()) else {
        return;
    };
    panic::set_hook(Box::new(|_| {}));
    let _ =
        panic::catch_unwind(|| DecisionLog::new(dir).append(&Entry::new(SystemTime::now(), trace)));
}

fn emit(answer: &Answer) -> u8 {
    let mut out = io::stdout().lock();
    let _ = out.write_all(answer.stdout.as_bytes());
    let _ = out.flush();
    if !answer.stderr.is_empty() {
        let _ = io::stderr().write_all(answer.stderr.as_bytes());
    }
    answer.exit_code
}
