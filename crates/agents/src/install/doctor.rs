//! `toolgate doctor`: is toolgate's hook where each client looks, does its
//! binary run, and does it answer as its mode says?
//!
//! For every client whose settings file exists (the user's, and a
//! project's when one is given), each toolgate hook command found there is
//! run the way the client runs it (through `sh -c`, or Cline's script
//! itself) with two synthetic payloads in that client's protocol: a
//! destructive command (`rm -rf ~`) and a safe one (`git status`). What
//! the client would *do* with each answer (run, ask, block, or ignore it)
//! is compared with what the same mode, profile and config file give when
//! toolgate answers the payload in this process. A hook that does not
//! start, times out, or answers anything else is not live: most clients
//! run the command when a hook's answer is unreadable, so a broken hook is
//! a hole, not a nuisance.
//!
//! toolgate's own config file is checked too: parsed as the hook parses
//! it (unknown keys and bad values named with file and line), and a mode
//! or profile name the gate does not recognise (the hook would use strict)
//! reported with its line.

use std::fmt::{self, Write as _};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{installed_commands, Client, Env, Scope};
use crate::hook::{self, Answer, HookConfig, HookOptions};
use toolgate_core::gate::{CompoundPolicy, Gate};
use toolgate_core::Classifier;

/// How long a hook may take to answer one canary.
const CANARY_TIMEOUT: Duration = Duration::from_secs(10);

/// The canaries: a destructive command and a safe one.
pub const CANARIES: &[&str] = &["rm -rf ~", "git status"];

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
            Outcome::Failed(why) => write!(f, "failed: {why}"),
        }
    }
}

/// One canary through one hook.
#[derive(Clone, Debug)]
pub struct Canary {
    /// The shell command in the payload.
    pub command: &'static str,
    /// What the client would do with the hook's answer.
    pub got: Outcome,
    /// What it should do under the hook's mode.
    pub want: Outcome,
}

/// One toolgate hook command found in a client's file.
#[derive(Clone, Debug)]
pub struct HookCheck {
    /// The command.
    pub command: String,
    /// What is wrong with it, each with what to do.
    pub problems: Vec<String>,
    /// The canaries' results.
    pub canaries: Vec<Canary>,
}

impl HookCheck {
    /// Does the hook answer as its mode says?
    pub fn is_live(&self) -> bool {
        self.problems.is_empty() && self.canaries.iter().all(|c| c.got == c.want)
    }
}

/// A client's settings file that exists.
#[derive(Clone, Debug)]
pub struct ClientCheck {
    /// The client.
    pub client: Client,
    /// User or project.
    pub scope: Scope,
    /// The file.
    pub path: PathBuf,
    /// The file could not be read; why.
    pub error: Option<String>,
    /// toolgate's hooks in it (none: not installed there).
    pub hooks: Vec<HookCheck>,
}

/// toolgate's own config file.
#[derive(Clone, Debug)]
pub struct ConfigCheck {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it (file and line in each).
    pub problems: Vec<String>,
}

/// A project's `.toolgate.toml`, which can only tighten.
#[derive(Clone, Debug)]
pub struct PolicyCheck {
    /// The file.
    pub path: PathBuf,
    /// Why it cannot be read (every call in the project is then answered
    /// fail-closed).
    pub error: Option<String>,
    /// Settings it holds that would widen approval, and so have no effect.
    pub ignored: Vec<String>,
}

/// Everything `doctor` found.
#[derive(Clone, Debug)]
pub struct Report {
    /// One entry per settings file found.
    pub clients: Vec<ClientCheck>,
    /// The config file, when there is one.
    pub config: Option<ConfigCheck>,
    /// The project's policy file, when `--project` names a directory with
    /// one.
    pub policy: Option<PolicyCheck>,
}

impl Report {
    /// Is every installed hook live and the config file sound?
    pub fn is_healthy(&self) -> bool {
        self.clients
            .iter()
            .all(|c| c.error.is_none() && c.hooks.iter().all(HookCheck::is_live))
            && self.config.as_ref().is_none_or(|c| c.problems.is_empty())
            && self.policy.as_ref().is_none_or(|p| p.error.is_none())
    }

    /// The report as text for people.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if self.clients.is_empty() {
            out.push_str("no client settings found (run `toolgate install CLIENT`)\n");
        }
        for c in &self.clients {
            let scope = match c.scope {
                Scope::User => "user",
                Scope::Project(_) => "project",
            };
            let state = if let Some(e) = &c.error {
                format!("UNREADABLE: {e}")
            } else if c.hooks.is_empty() {
                format!(
                    "no toolgate hook (`toolgate install {}` adds one)",
                    c.client.name()
                )
            } else if c.hooks.iter().all(HookCheck::is_live) {
                "live".to_string()
            } else {
                "BROKEN".to_string()
            };
            let _ = writeln!(
                out,
                "{:<9}{:<8}{}  {state}",
                c.client.name(),
                scope,
                c.path.display()
            );
            for h in &c.hooks {
                let _ = writeln!(out, "    hook: {}", h.command);
                for k in &h.canaries {
                    let verdict = if k.got == k.want {
                        "ok".to_string()
                    } else {
                        format!("WRONG, should be: {}", k.want)
                    };
                    let _ = writeln!(
                        out,
                        "    {:<12}{:<32}{verdict}",
                        k.command,
                        k.got.to_string()
                    );
                }
                for p in &h.problems {
                    let _ = writeln!(out, "    problem: {p}");
                }
                if !h.is_live() && h.problems.is_empty() {
                    let _ = writeln!(
                        out,
                        "    fix: run `toolgate install {}` again so the hook is toolgate's, or correct the command",
                        c.client.name()
                    );
                }
            }
        }
        match &self.config {
            None => out.push_str("config   none (the hook uses its flags and environment)\n"),
            Some(c) if c.problems.is_empty() => {
                let _ = writeln!(out, "config   {}  ok", c.path.display());
            }
            Some(c) => {
                let _ = writeln!(
                    out,
                    "config   {}  BROKEN (every hook call is answered fail-closed)",
                    c.path.display()
                );
                for p in &c.problems {
                    let _ = writeln!(out, "    problem: {}", p.replace('\n', "\n      "));
                }
            }
        }
        if let Some(p) = &self.policy {
            match &p.error {
                Some(e) => {
                    let _ = writeln!(
                        out,
                        "policy   {}  BROKEN (every call in the project is answered fail-closed)\n    problem: {e}",
                        p.path.display()
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "policy   {}  ok (it can only tighten)",
                        p.path.display()
                    );
                }
            }
            for i in &p.ignored {
                let _ = writeln!(out, "    ignored: {i}");
            }
        }
        out.push_str(if self.is_healthy() {
            "all installed hooks are live\n"
        } else {
            "not healthy: fix the problems above and run `toolgate doctor` again\n"
        });
        out
    }
}

/// Checks every client's user settings and, with `project`, the
/// project's.
pub fn run(classifier: &Classifier, env: &Env, project: Option<&Path>) -> Report {
    let mut scopes = vec![Scope::User];
    scopes.extend(project.map(|p| Scope::Project(p.to_path_buf())));
    let mut clients = Vec::new();
    for scope in &scopes {
        for &client in Client::ALL {
            let Ok(path) = client.settings_path(scope, env) else {
                continue;
            };
            if !path.is_file() {
                continue;
            }
            let cwd = match scope {
                Scope::Project(d) => d.clone(),
                Scope::User => env.home.clone().unwrap_or_else(|| PathBuf::from("/")),
            };
            clients.push(check_client(classifier, env, client, scope, &path, &cwd));
        }
    }
    let config = env
        .toolgate_config_path()
        .map(|p| check_config(classifier, &p));
    let policy = project
        .map(|d| d.join(crate::hook::policy::FILE_NAME))
        .filter(|p| p.is_file())
        .map(|path| match crate::hook::policy::ignored_in(&path) {
            Ok(ignored) => PolicyCheck {
                path,
                error: None,
                ignored: ignored
                    .iter()
                    .map(|i| format!("{} = {} ({})", i.key, i.value, i.why))
                    .collect(),
            },
            Err(e) => PolicyCheck {
                path,
                error: Some(e.to_string()),
                ignored: Vec::new(),
            },
        });
    Report {
        clients,
        config,
        policy,
    }
}

fn check_client(
    classifier: &Classifier,
    env: &Env,
    client: Client,
    scope: &Scope,
    path: &Path,
    cwd: &Path,
) -> ClientCheck {
    let mut check = ClientCheck {
        client,
        scope: scope.clone(),
        path: path.to_path_buf(),
        error: None,
        hooks: Vec::new(),
    };
    let commands = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| installed_commands(client, path, &text).map_err(|e| e.to_string()));
    match commands {
        Err(e) => check.error = Some(e),
        Ok(commands) => {
            check.hooks = commands
                .into_iter()
                .map(|c| check_hook(classifier, env, client, path, &c, cwd))
                .collect();
        }
    }
    check
}

/// The hook's own flags, read from its command line.
#[derive(Debug, Default)]
struct HookFlags {
    mode: Option<String>,
    profile: Option<String>,
    config: Option<PathBuf>,
    headless: bool,
    compound: Option<String>,
}

fn hook_flags(words: &[String]) -> HookFlags {
    let mut flags = HookFlags::default();
    let start = words
        .iter()
        .position(|w| w == "hook")
        .map_or(words.len(), |i| i + 1);
    let mut it = words[start..].iter();
    while let Some(w) = it.next() {
        let (name, inline) = match w.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (w.as_str(), None),
        };
        let mut val = || inline.clone().or_else(|| it.next().cloned());
        match name {
            "--mode" => flags.mode = val(),
            "--profile" => flags.profile = val(),
            "--config" => flags.config = val().map(PathBuf::from),
            "--compound" => flags.compound = val(),
            "--headless" => flags.headless = true,
            _ => {}
        }
    }
    flags
}

fn check_hook(
    classifier: &Classifier,
    env: &Env,
    client: Client,
    path: &Path,
    command: &str,
    cwd: &Path,
) -> HookCheck {
    let mut check = HookCheck {
        command: command.to_string(),
        problems: Vec::new(),
        canaries: Vec::new(),
    };
    let words = match shell_words::split(command) {
        Ok(w) if !w.is_empty() => w,
        _ => {
            check.problems.push(format!(
                "the command is not a shell command line: run `toolgate install {}` again",
                client.name()
            ));
            return check;
        }
    };
    if !is_executable(&words[0], env) {
        check.problems.push(format!(
            "`{}` does not exist or is not executable: run `toolgate install {}` again with the toolgate you want the hook to run",
            words[0],
            client.name()
        ));
        return check;
    }
    // Cline runs the script itself, so that is what is run here too.
    let (program, args): (PathBuf, Vec<String>) = match client {
        Client::Cline => (path.to_path_buf(), Vec::new()),
        _ => (PathBuf::from("sh"), vec!["-c".into(), command.to_string()]),
    };
    if client == Client::Cline && !is_executable(&path.to_string_lossy(), env) {
        check.problems.push(format!(
            "{} is not executable, so Cline cannot run it: `chmod +x` it",
            path.display()
        ));
        return check;
    }
    let flags = hook_flags(&words);
    for &canary in CANARIES {
        let payload = payload(client, canary, cwd);
        let got = match run_hook(&program, &args, &payload, cwd) {
            Ok(answer) => outcome(client, &answer),
            Err(why) => Outcome::Failed(why),
        };
        let want = outcome(client, &expected(classifier, env, client, &flags, &payload));
        check.canaries.push(Canary {
            command: canary,
            got,
            want,
        });
    }
    check
}

/// Is `program` an executable file (searched on `PATH` when it has no
/// slash)?
fn is_executable(program: &str, env: &Env) -> bool {
    let ok = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                m.is_file() && m.permissions().mode() & 0o111 != 0
            }
            #[cfg(not(unix))]
            {
                m.is_file()
            }
        })
    };
    if program.contains('/') {
        return ok(Path::new(program));
    }
    let _ = env;
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| ok(&d.join(program))))
}

/// Runs the hook with `payload` on stdin, waiting at most
/// [`CANARY_TIMEOUT`].
fn run_hook(program: &Path, args: &[String], payload: &[u8], cwd: &Path) -> Result<Answer, String> {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not start it ({e})"))?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(payload);
    }
    let deadline = Instant::now() + CANARY_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer within {} s", CANARY_TIMEOUT.as_secs()));
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    Ok(Answer {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        exit_code: out
            .status
            .code()
            .and_then(|c| u8::try_from(c).ok())
            .unwrap_or(255),
    })
}

/// What toolgate answers `payload` with under the hook's flags, the
/// environment and the config file, as `toolgate hook` would.
fn expected(
    classifier: &Classifier,
    env: &Env,
    client: Client,
    flags: &HookFlags,
    payload: &[u8],
) -> Answer {
    let protocol = client.protocol();
    let mut opts = HookOptions {
        protocol: Some(protocol),
        headless: flags.headless || env.toolgate_headless,
        label_only: false,
    };
    let compound = match flags.compound.as_deref().map(str::parse::<CompoundPolicy>) {
        None => None,
        Some(Ok(c)) => Some(c),
        Some(Err(e)) => {
            return hook::fail_closed(Some(protocol), &format!("--compound: {e}"), opts)
        }
    };
    let mode = flags.mode.clone().or_else(|| env.toolgate_mode.clone());
    let profile = flags
        .profile
        .clone()
        .or_else(|| env.toolgate_profile.clone());
    let path = flags.config.clone().or_else(|| env.toolgate_config_path());
    let file = match path.as_deref().map(HookConfig::load).transpose() {
        Ok(file) => file.unwrap_or_default(),
        Err(e) => {
            return hook::fail_closed(Some(protocol), &format!("bad configuration: {e}"), opts)
        }
    };
    opts.headless |= file.headless;
    let name = path.map(|p| p.display().to_string()).unwrap_or_default();
    let gate_config = match file.gate_config(&name, mode, profile, compound) {
        Ok(g) => g,
        Err(e) => {
            return hook::fail_closed(Some(protocol), &format!("bad configuration: {e}"), opts)
        }
    };
    let gate = Gate::new(classifier, gate_config);
    hook::respond(&gate, payload, opts)
}

/// A payload in `client`'s protocol, shaped like the captured ones.
fn payload(client: Client, command: &str, cwd: &Path) -> Vec<u8> {
    let cwd = cwd.to_string_lossy();
    let v = match client {
        Client::Claude => json!({
            "session_id": "toolgate-doctor", "transcript_path": "/dev/null", "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command, "description": "toolgate doctor canary"},
            "tool_use_id": "toolgate-doctor"}),
        Client::Codex => json!({
            "session_id": "toolgate-doctor", "turn_id": "toolgate-doctor", "transcript_path": null,
            "cwd": cwd, "hook_event_name": "PreToolUse", "model": "toolgate-doctor",
            "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": command},
            "tool_use_id": "toolgate-doctor"}),
        Client::Gemini => json!({
            "session_id": "toolgate-doctor", "transcript_path": "/dev/null", "cwd": cwd,
            "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00.000Z",
            "tool_name": "run_shell_command", "tool_input": {"command": command}}),
        Client::Copilot => json!({
            "sessionId": "toolgate-doctor", "timestamp": 0, "cwd": cwd,
            "toolName": "bash", "toolArgs": {"command": command}}),
        Client::Qwen => json!({
            "session_id": "toolgate-doctor", "transcript_path": "/dev/null", "cwd": cwd,
            "hook_event_name": "PreToolUse", "timestamp": "2026-01-01T00:00:00.000Z",
            "permission_mode": "default", "tool_name": "run_shell_command",
            "tool_input": {"command": command}, "tool_use_id": "toolgate-doctor"}),
        Client::Cline => json!({
            "clineVersion": "", "taskId": "toolgate-doctor", "workspaceRoots": [cwd],
            "workspaceInfo": {"rootPath": cwd}, "hookName": "tool_call",
            "preToolUse": {"toolName": "run_commands",
                           "parameters": {"commands": Value::from(vec![command]).to_string()}}}),
        Client::OpenCode => json!({
            "input": {"tool": "bash", "sessionID": "toolgate-doctor", "callID": "toolgate-doctor"},
            "output": {"args": {"command": command}}, "directory": cwd}),
        Client::Cursor => json!({
            "hook_event_name": "beforeShellExecution", "conversation_id": "toolgate-doctor",
            "workspace_roots": [cwd], "command": command, "cwd": cwd}),
        Client::Windsurf => json!({
            "agent_action_name": "pre_run_command", "trajectory_id": "toolgate-doctor",
            "tool_info": {"command_line": command, "cwd": cwd}}),
    };
    v.to_string().into_bytes()
}

/// What `client` does with `answer`, as the captures (and, for Cursor and
/// Windsurf, the documentation) say.
pub fn outcome(client: Client, answer: &Answer) -> Outcome {
    let last_line = answer
        .stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    let last_line = last_line
        .strip_prefix("HOOK_CONTROL\t")
        .unwrap_or(last_line);
    let v: Value = serde_json::from_str(last_line.trim()).unwrap_or(Value::Null);
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(String::from);
    let specific = v
        .get("hookSpecificOutput")
        .map(|h| (s(h, "permissionDecision"), s(h, "permissionDecisionReason")));
    let by_word = |d: Option<&str>| match d {
        Some("allow") => Outcome::Runs,
        Some("ask") => Outcome::Asks,
        Some("deny" | "block") => Outcome::Blocked,
        _ => Outcome::NoDecision,
    };
    let code = answer.exit_code;
    match client {
        Client::Claude if code == 2 => Outcome::Blocked,
        Client::Claude => by_word(specific.and_then(|s| s.0).as_deref()),
        Client::Codex if code == 2 => Outcome::Blocked,
        Client::Codex => match specific {
            Some((Some(d), reason)) if d == "deny" => {
                if reason.is_some_and(|r| !r.trim().is_empty()) {
                    Outcome::Blocked
                } else {
                    Outcome::NoDecision
                }
            }
            Some((Some(d), _)) if d == "allow" => Outcome::Runs,
            _ => Outcome::NoDecision,
        },
        Client::Gemini if code == 2 => Outcome::Blocked,
        Client::Gemini => by_word(s(&v, "decision").as_deref()),
        Client::Copilot if code == 1 || code == 2 => Outcome::Blocked,
        Client::Copilot => by_word(s(&v, "permissionDecision").as_deref()),
        Client::Qwen if code == 2 || v.get("continue") == Some(&Value::Bool(false)) => {
            Outcome::Blocked
        }
        Client::Qwen => by_word(
            specific
                .and_then(|s| s.0)
                .or_else(|| s(&v, "decision"))
                .as_deref(),
        ),
        Client::Cline => match v.get("cancel") {
            Some(Value::Bool(true)) => Outcome::Blocked,
            Some(Value::Bool(false)) => Outcome::Runs,
            _ => Outcome::NoDecision,
        },
        Client::OpenCode => match (code, s(&v, "decision").as_deref()) {
            (0, Some("allow")) => Outcome::Runs,
            _ => Outcome::Blocked,
        },
        Client::Cursor => by_word(s(&v, "permission").as_deref()),
        Client::Windsurf => match code {
            0 => Outcome::Runs,
            2 => Outcome::Blocked,
            _ => Outcome::NoDecision,
        },
    }
}

/// Parses toolgate's config file as the hook does, and checks its mode
/// and profile names.
pub fn check_config(classifier: &Classifier, path: &Path) -> ConfigCheck {
    let name = path.display().to_string();
    let mut check = ConfigCheck {
        path: path.to_path_buf(),
        problems: Vec::new(),
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            check.problems.push(format!("{name}: cannot read it ({e})"));
            return check;
        }
    };
    let config = match HookConfig::parse(&name, &text) {
        Ok(c) => c,
        Err(e) => {
            check.problems.push(e.to_string());
            return check;
        }
    };
    match config.gate_config(&name, None, None, None) {
        Err(e) => check.problems.push(e.to_string()),
        Ok(gc) => {
            let gate = Gate::new(classifier, gc);
            if let Some(bad) = gate.unrecognised() {
                let key = if bad.starts_with("profile") {
                    "profile"
                } else {
                    "mode"
                };
                let line = line_of(&text, key)
                    .map(|l| format!(" line {l}:"))
                    .unwrap_or_default();
                check.problems.push(format!(
                    "{name}:{line} {bad} is not one toolgate knows, so the hook uses strict: \
                     use strict, balanced, restricted or autonomous (or a profile `toolgate profile list` shows)"
                ));
            }
        }
    }
    check
}

/// The line a top-level key is on.
fn line_of(text: &str, key: &str) -> Option<usize> {
    let doc = toml_edit::ImDocument::parse(text).ok()?;
    let span = doc.get(key)?.span()?;
    Some(text[..span.start].matches('\n').count() + 1)
}
