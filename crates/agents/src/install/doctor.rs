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

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::{installed_commands, settings_path, Env, Scope};
use crate::client::{Answer, Client, InstallShape};
use crate::hook::{self, HookConfig, HookOptions, ProjectPolicy};

pub use crate::client::Outcome;
use toolgate_core::gate::{CompoundPolicy, Gate};
use toolgate_core::Classifier;

/// How long a hook may take to answer one canary.
const CANARY_TIMEOUT: Duration = Duration::from_secs(10);

/// The canaries: a destructive command, a safe one and one toolgate calls
/// unknown, so that each column of the hook's row is seen at work.
pub const CANARIES: &[&str] = &["rm -rf ~", "git status", "npm test"];

/// What a hook does with each class of shell call in one client: its
/// effective row, with the client's own handling of each answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// The client.
    pub client: &'static dyn Client,
    /// What happens to a safe call (`git status`).
    pub safe: Outcome,
    /// To a destructive one (`rm -rf ~`).
    pub destructive: Outcome,
    /// To one toolgate calls unknown (`npm test`).
    pub unknown: Outcome,
}

impl Row {
    /// One outcome in words, a no decision naming whose permissions then
    /// decide.
    fn word(&self, o: &Outcome) -> String {
        match o {
            Outcome::NoDecision => format!("left to {}'s own permissions", self.client.title()),
            Outcome::Asks => format!("{} asks you", self.client.title()),
            other => other.to_string(),
        }
    }
}

impl Row {
    /// Does an unknown command get what the client does with its hook's
    /// no-opinion answer (so the client's own permissions decide it)?
    pub fn leaves_unknown_to_client(&self) -> bool {
        self.client
            .no_opinion()
            .is_some_and(|a| self.client.outcome(&a) == self.unknown)
    }
}

impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "safe → {}; destructive → {}; unknown → {}",
            self.word(&self.safe),
            self.word(&self.destructive),
            self.word(&self.unknown)
        )
    }
}

/// The row a hook of `client` with `mode` and `profile` on its command
/// line has, under the environment and config file as the hook reads
/// them, for calls made in `cwd` (whose project policy counts too).
pub fn effective_row(
    classifier: &Classifier,
    env: &Env,
    client: &'static dyn Client,
    mode: Option<&str>,
    profile: Option<&str>,
    cwd: &Path,
) -> Row {
    let flags = HookFlags {
        mode: mode.map(String::from),
        profile: profile.map(String::from),
        ..HookFlags::default()
    };
    row_of(classifier, env, client, &flags, cwd)
}

fn row_of(
    classifier: &Classifier,
    env: &Env,
    client: &'static dyn Client,
    flags: &HookFlags,
    cwd: &Path,
) -> Row {
    let outcome = |command: &str| {
        let payload = client
            .sample_payload(command, &cwd.to_string_lossy())
            .to_string()
            .into_bytes();
        client.outcome(&expected(classifier, env, client, flags, &payload, cwd))
    };
    Row {
        client,
        destructive: outcome(CANARIES[0]),
        safe: outcome(CANARIES[1]),
        unknown: outcome(CANARIES[2]),
    }
}

/// Is the mode in force for a hook with these flags the legacy row (no
/// mode or profile on its command line, in the environment or in the
/// config file)?
fn is_legacy(env: &Env, flags: &HookFlags) -> bool {
    if flags.mode.is_some()
        || flags.profile.is_some()
        || env.toolgate_mode.is_some()
        || env.toolgate_profile.is_some()
    {
        return false;
    }
    let path = flags.config.clone().or_else(|| env.toolgate_config_path());
    match path.as_deref().map(HookConfig::load) {
        None => true,
        Some(Ok(file)) => file.mode.is_none() && file.profile.is_none(),
        // A broken file is reported on its own.
        Some(Err(_)) => false,
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
    /// The hook's effective row (when its command could be read).
    pub row: Option<Row>,
    /// For a hook with no mode (the legacy row, which asks for every
    /// call): the row `toolgate install` again would give it.
    pub legacy: Option<Row>,
    /// The destructive categories its mode or profile lets run unasked.
    pub unasked: Vec<super::risk::Unasked>,
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
    pub client: &'static dyn Client,
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
                if !h.unasked.is_empty() {
                    let list: Vec<String> = h.unasked.iter().map(ToString::to_string).collect();
                    let _ = writeln!(out, "    runs unasked (destructive): {}", list.join(", "));
                }
                if let Some(row) = &h.row {
                    let _ = writeln!(out, "    row: {row}");
                    if let Some(note) = c.client.no_opinion_note() {
                        if row.leaves_unknown_to_client() {
                            let _ = writeln!(out, "    note: {note}");
                        }
                    }
                }
                if let (Some(now), Some(then)) = (&h.row, &h.legacy) {
                    // The legacy row asks; a client that cannot ask blocks.
                    let every = if now.safe == Outcome::Blocked {
                        format!("blocks every call ({} cannot ask)", c.client.title())
                    } else {
                        "asks for every call".to_string()
                    };
                    let _ = writeln!(
                        out,
                        "    legacy: this hook has no mode, so it {every} and overrides {}'s own permission rules",
                        c.client.title()
                    );
                    let _ = writeln!(
                        out,
                        "    `toolgate install {}{}` again would install mode guard: {}",
                        c.client.name(),
                        match &c.scope {
                            Scope::User => String::new(),
                            Scope::Project(d) => format!(" --project {}", d.display()),
                        },
                        changes(now, then)
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

/// What changes from row `now` to row `then`, column by column.
fn changes(now: &Row, then: &Row) -> String {
    let mut out = Vec::new();
    for (class, a, b) in [
        ("safe", &now.safe, &then.safe),
        ("destructive", &now.destructive, &then.destructive),
        ("unknown", &now.unknown, &then.unknown),
    ] {
        if a != b {
            out.push(format!("{class}: {} → {}", now.word(a), then.word(b)));
        }
    }
    if out.is_empty() {
        "no change to what runs".into()
    } else {
        out.join("; ")
    }
}

/// Checks every client's user settings and, with `project`, the
/// project's.
pub fn run(classifier: &Classifier, env: &Env, project: Option<&Path>) -> Report {
    let mut scopes = vec![Scope::User];
    scopes.extend(project.map(|p| Scope::Project(p.to_path_buf())));
    let mut clients = Vec::new();
    for scope in &scopes {
        for client in super::clients() {
            let Ok(path) = settings_path(client, scope, env) else {
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
    client: &'static dyn Client,
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
    client: &'static dyn Client,
    path: &Path,
    command: &str,
    cwd: &Path,
) -> HookCheck {
    let mut check = HookCheck {
        command: command.to_string(),
        problems: Vec::new(),
        canaries: Vec::new(),
        row: None,
        legacy: None,
        unasked: Vec::new(),
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
    // A script hook (Cline's) is run itself, as the client runs it.
    let script = matches!(client.install_shape(), Some(InstallShape::Script));
    let (program, args): (PathBuf, Vec<String>) = if script {
        (path.to_path_buf(), Vec::new())
    } else {
        (PathBuf::from("sh"), vec!["-c".into(), command.to_string()])
    };
    if script && !is_executable(&path.to_string_lossy(), env) {
        check.problems.push(format!(
            "{} is not executable, so Cline cannot run it: `chmod +x` it",
            path.display()
        ));
        return check;
    }
    let flags = hook_flags(&words);
    check.row = Some(row_of(classifier, env, client, &flags, cwd));
    let chosen = flags
        .profile
        .clone()
        .or_else(|| flags.mode.clone())
        .or_else(|| env.toolgate_profile.clone())
        .or_else(|| env.toolgate_mode.clone());
    if let Some(name) = chosen {
        check.unasked = super::risk::unasked_destructive(&name);
    }
    if is_legacy(env, &flags) {
        let guard = HookFlags {
            mode: Some("guard".into()),
            ..HookFlags::default()
        };
        check.legacy = Some(row_of(classifier, env, client, &guard, cwd));
    }
    for &canary in CANARIES {
        let payload = client
            .sample_payload(canary, &cwd.to_string_lossy())
            .to_string()
            .into_bytes();
        let got = match run_hook(&program, &args, &payload, cwd) {
            Ok(answer) => client.outcome(&answer),
            Err(why) => Outcome::Failed(why),
        };
        let want = client.outcome(&expected(classifier, env, client, &flags, &payload, cwd));
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
/// environment, the config file and the policy of the project that holds
/// `cwd`, as `toolgate hook` would: a valid strict project policy is what
/// the hook must obey, not a fault.
fn expected(
    classifier: &Classifier,
    env: &Env,
    client: &'static dyn Client,
    flags: &HookFlags,
    payload: &[u8],
    cwd: &Path,
) -> Answer {
    let mut opts = HookOptions {
        client: Some(client),
        headless: flags.headless || env.toolgate_headless,
        label_only: false,
    };
    let compound = match flags.compound.as_deref().map(str::parse::<CompoundPolicy>) {
        None => None,
        Some(Ok(c)) => Some(c),
        Some(Err(e)) => return hook::fail_closed(Some(client), &format!("--compound: {e}"), opts),
    };
    let mode = flags.mode.clone().or_else(|| env.toolgate_mode.clone());
    let profile = flags
        .profile
        .clone()
        .or_else(|| env.toolgate_profile.clone());
    let path = flags.config.clone().or_else(|| env.toolgate_config_path());
    let file = match path.as_deref().map(HookConfig::load).transpose() {
        Ok(file) => file.unwrap_or_default(),
        Err(e) => return hook::fail_closed(Some(client), &format!("bad configuration: {e}"), opts),
    };
    opts.headless |= file.headless;
    let name = path.map(|p| p.display().to_string()).unwrap_or_default();
    let gate_config = match file.gate_config(&name, mode, profile, compound) {
        Ok(g) => g,
        Err(e) => return hook::fail_closed(Some(client), &format!("bad configuration: {e}"), opts),
    };
    let project = match ProjectPolicy::discover(Some(&cwd.to_string_lossy())) {
        Ok(p) => p,
        Err(e) => {
            return hook::fail_closed(Some(client), &format!("bad project policy: {e}"), opts)
        }
    };
    opts.headless |= project.as_ref().is_some_and(ProjectPolicy::headless);
    let project_gate = project.map(|p| p.gate(classifier, &gate_config));
    let gate = Gate::new(classifier, gate_config);
    hook::respond_traced(&gate, project_gate.as_ref(), payload, opts).0
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
