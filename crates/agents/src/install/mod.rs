//! `toolgate install`, `uninstall` and `doctor`: put toolgate's hook into an
//! agent client's settings, take it out again, and check that it answers.
//!
//! Each client keeps its hooks somewhere else and in another shape (the
//! README's "Hooks for coding agents" section, written from captures of the
//! released clients, is the reference): JSON settings with nested matcher
//! groups (Claude Code, Gemini CLI, Qwen Code), flat JSON hook lists
//! (Copilot CLI, Cursor, Windsurf), TOML (Codex), an executable script
//! (Cline) and a plugin file (OpenCode). Installing *merges*: every other
//! key, comment and hook stays, toolgate's own entry is recognised by its
//! command (it names a `toolgate` binary and ` hook --protocol `) and
//! replaced in place, so installing twice is installing once, and
//! uninstalling removes that entry and nothing else.
//!
//! The library only plans: [`plan_install`] and [`plan_uninstall`] read the
//! file and return a [`Change`] (old and new text), which the caller shows
//! ([`Change::diff`]) or applies ([`Change::apply`]: a backup of the old
//! file, then a temporary file renamed over it, so that a client never reads
//! half a settings file).

mod codex;
pub mod doctor;
mod error;
mod file;
pub mod json;
mod json_hooks;
mod jsonc;
mod script;

use std::path::{Path, PathBuf};

pub use error::InstallError;
pub use file::{diff, Applied, Change};

use crate::hook::Protocol;

/// How long a client waits for the hook, in seconds. The first call of a
/// session also loads the taxonomy; a client that times out a hook mostly
/// *runs* the command (Codex, Copilot, Qwen Code), so the limit is generous.
pub const TIMEOUT_SECS: u64 = 30;

/// A client toolgate can install its hook into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// GitHub Copilot CLI.
    Copilot,
    /// Qwen Code.
    Qwen,
    /// Cline CLI.
    Cline,
    /// OpenCode (through toolgate's plugin).
    OpenCode,
    /// Cursor (from its documentation, unverified).
    Cursor,
    /// Windsurf (from its documentation, unverified).
    Windsurf,
}

impl Client {
    /// Every client, in the README's order.
    pub const ALL: &[Client] = &[
        Client::Claude,
        Client::Codex,
        Client::Gemini,
        Client::Copilot,
        Client::Qwen,
        Client::Cline,
        Client::OpenCode,
        Client::Cursor,
        Client::Windsurf,
    ];

    /// The hook protocol the client speaks.
    pub fn protocol(self) -> Protocol {
        match self {
            Client::Claude => Protocol::Claude,
            Client::Codex => Protocol::Codex,
            Client::Gemini => Protocol::Gemini,
            Client::Copilot => Protocol::Copilot,
            Client::Qwen => Protocol::Qwen,
            Client::Cline => Protocol::Cline,
            Client::OpenCode => Protocol::OpenCode,
            Client::Cursor => Protocol::Cursor,
            Client::Windsurf => Protocol::Windsurf,
        }
    }

    /// The name the commands take (the protocol's).
    pub fn name(self) -> &'static str {
        self.protocol().name()
    }

    /// Parses a client name (any name [`Protocol::parse`] takes).
    pub fn parse(name: &str) -> Option<Client> {
        Client::ALL
            .iter()
            .copied()
            .find(|c| Protocol::parse(name) == Some(c.protocol()))
    }

    /// Where the client reads toolgate's hook from.
    pub fn settings_path(self, scope: &Scope, env: &Env) -> Result<PathBuf, InstallError> {
        let home = || env.home.clone().ok_or(InstallError::NoHome);
        Ok(match (self, scope) {
            (Client::Claude, Scope::User) => home()?.join(".claude/settings.json"),
            (Client::Claude, Scope::Project(d)) => d.join(".claude/settings.json"),
            (Client::Codex, Scope::User) => home()?.join(".codex/config.toml"),
            (Client::Codex, Scope::Project(d)) => d.join(".codex/config.toml"),
            (Client::Gemini, Scope::User) => home()?.join(".gemini/settings.json"),
            (Client::Gemini, Scope::Project(d)) => d.join(".gemini/settings.json"),
            (Client::Copilot, Scope::User) => home()?.join(".copilot/hooks/toolgate.json"),
            (Client::Copilot, Scope::Project(d)) => d.join(".github/hooks/toolgate.json"),
            (Client::Qwen, Scope::User) => home()?.join(".qwen/settings.json"),
            (Client::Qwen, Scope::Project(d)) => d.join(".qwen/settings.json"),
            (Client::Cline, Scope::User) => home()?.join(".cline/hooks/PreToolUse"),
            (Client::Cline, Scope::Project(d)) => d.join(".clinerules/hooks/PreToolUse"),
            (Client::OpenCode, Scope::User) => {
                env.config_home()?.join("opencode/plugins/toolgate.js")
            }
            (Client::OpenCode, Scope::Project(d)) => d.join(".opencode/plugins/toolgate.js"),
            (Client::Cursor, Scope::User) => home()?.join(".cursor/hooks.json"),
            (Client::Cursor, Scope::Project(d)) => d.join(".cursor/hooks.json"),
            (Client::Windsurf, Scope::User) => home()?.join(".codeium/windsurf/hooks.json"),
            (Client::Windsurf, Scope::Project(d)) => d.join(".windsurf/hooks.json"),
        })
    }

    /// What to tell the user after installing: how the client picks the
    /// hook up.
    pub fn after_install(self, scope: &Scope) -> Option<&'static str> {
        match (self, scope) {
            (Client::Codex, _) => Some(
                "Codex runs a new or changed hook only once you trust it: start codex and review it \
                 with /hooks. Do not use --dangerously-bypass-hook-trust to skip that.",
            ),
            (Client::Copilot, Scope::Project(_)) => Some(
                "Copilot loads repository hooks in `copilot -p` only when the folder is trusted.",
            ),
            (Client::OpenCode, _) => Some(
                "Restart OpenCode to load the plugin; it needs the toolgate binary named in it.",
            ),
            (Client::Cursor | Client::Windsurf, _) => Some(
                "This client's hook format is taken from its documentation and was not checked \
                 against a running client: run `toolgate doctor` and try one command.",
            ),
            _ => None,
        }
    }
}

/// Whose settings: the user's, or one project's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The user's settings, under `$HOME` (or `$XDG_CONFIG_HOME`).
    User,
    /// A project's settings, under this directory.
    Project(PathBuf),
}

/// The environment the paths and the hook's own settings come from, read
/// once ([`Env::from_process`]) so that tests can give their own.
#[derive(Clone, Debug, Default)]
pub struct Env {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`.
    pub xdg_config_home: Option<PathBuf>,
    /// `$TOOLGATE_CONFIG`.
    pub toolgate_config: Option<PathBuf>,
    /// `$TOOLGATE_MODE`.
    pub toolgate_mode: Option<String>,
    /// `$TOOLGATE_PROFILE`.
    pub toolgate_profile: Option<String>,
    /// `$TOOLGATE_HEADLESS` is set and not `0` or `false`.
    pub toolgate_headless: bool,
}

impl Env {
    /// Reads the process environment (blank values count as unset, as in
    /// the hook).
    pub fn from_process() -> Env {
        let var = |n: &str| std::env::var(n).ok().filter(|v| !v.trim().is_empty());
        Env {
            home: var("HOME").map(PathBuf::from),
            xdg_config_home: var("XDG_CONFIG_HOME").map(PathBuf::from),
            toolgate_config: var("TOOLGATE_CONFIG").map(PathBuf::from),
            toolgate_mode: var("TOOLGATE_MODE"),
            toolgate_profile: var("TOOLGATE_PROFILE"),
            toolgate_headless: var("TOOLGATE_HEADLESS").is_some_and(|v| v != "0" && v != "false"),
        }
    }

    /// `$XDG_CONFIG_HOME`, else `~/.config`.
    pub fn config_home(&self) -> Result<PathBuf, InstallError> {
        match (&self.xdg_config_home, &self.home) {
            (Some(x), _) => Ok(x.clone()),
            (None, Some(h)) => Ok(h.join(".config")),
            (None, None) => Err(InstallError::NoHome),
        }
    }

    /// The config file the hook reads when its command gives none:
    /// `$TOOLGATE_CONFIG`, else `toolgate/config.toml` in
    /// [`config_home`](Env::config_home) when it exists.
    pub fn toolgate_config_path(&self) -> Option<PathBuf> {
        if let Some(p) = &self.toolgate_config {
            return Some(p.clone());
        }
        let p = self.config_home().ok()?.join("toolgate/config.toml");
        p.is_file().then_some(p)
    }
}

/// The hook to install: which binary, and the mode or profile it is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HookSpec {
    /// The toolgate binary, by absolute path.
    pub binary: PathBuf,
    /// `--mode`.
    pub mode: Option<String>,
    /// `--profile`.
    pub profile: Option<String>,
}

impl HookSpec {
    /// The command line the client runs, shell-quoted: clients run hook
    /// commands through a shell.
    pub fn command(&self, protocol: Protocol) -> String {
        let mut words = vec![
            self.binary.to_string_lossy().into_owned(),
            "hook".into(),
            "--protocol".into(),
            protocol.name().into(),
        ];
        if let Some(m) = &self.mode {
            words.extend(["--mode".into(), m.clone()]);
        }
        if let Some(p) = &self.profile {
            words.extend(["--profile".into(), p.clone()]);
        }
        shell_words::join(words)
    }
}

/// Is `command` toolgate's hook? It runs a binary whose name contains
/// `toolgate` with ` hook --protocol `: the shape every command
/// [`HookSpec::command`] writes, whichever binary path or mode it has.
pub fn is_toolgate_command(command: &str) -> bool {
    let Some((program, _)) = command.split_once(" hook --protocol ") else {
        return false;
    };
    let program = program.trim().trim_matches(['\'', '"']);
    Path::new(program)
        .file_name()
        .is_some_and(|n| n.to_string_lossy().contains("toolgate"))
}

/// Plans installing `spec` for `client` in `scope`.
pub fn plan_install(
    client: Client,
    scope: &Scope,
    env: &Env,
    spec: &HookSpec,
) -> Result<Change, InstallError> {
    let path = client.settings_path(scope, env)?;
    let old = file::read(&path)?;
    let command = spec.command(client.protocol());
    let new = match client {
        Client::Codex => Some(codex::install(&path, old.as_deref(), &command)?),
        Client::Cline => Some(script::install_cline(&path, old.as_deref(), &command)?),
        Client::OpenCode => Some(script::install_opencode(&path, old.as_deref(), spec)?),
        _ => Some(json_hooks::install(
            json_hooks::Shape::of(client),
            &path,
            old.as_deref(),
            &command,
        )?),
    };
    Ok(Change::new(path, old, new, client == Client::Cline))
}

/// Plans removing toolgate's hook for `client` from `scope`. A file that
/// held nothing but toolgate's hook is removed.
pub fn plan_uninstall(client: Client, scope: &Scope, env: &Env) -> Result<Change, InstallError> {
    let path = client.settings_path(scope, env)?;
    let old = file::read(&path)?;
    let new = match (&old, client) {
        (None, _) => None,
        (Some(text), Client::Codex) => codex::uninstall(&path, text)?,
        (Some(text), Client::Cline | Client::OpenCode) => script::uninstall(text),
        (Some(text), _) => json_hooks::uninstall(json_hooks::Shape::of(client), &path, text)?,
    };
    Ok(Change::new(path, old, new, client == Client::Cline))
}

/// The toolgate hook commands `client`'s file at `path` holds (its text
/// `text`), for `doctor`.
pub fn installed_commands(
    client: Client,
    path: &Path,
    text: &str,
) -> Result<Vec<String>, InstallError> {
    match client {
        Client::Codex => codex::commands(path, text),
        Client::Cline | Client::OpenCode => Ok(script::command(text).into_iter().collect()),
        _ => json_hooks::commands(json_hooks::Shape::of(client), path, text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolgate_commands_are_recognised_by_binary_and_subcommand() {
        for (command, ours) in [
            ("/usr/local/bin/toolgate hook --protocol claude", true),
            (
                "'/home/a b/toolgate' hook --protocol codex --mode balanced",
                true,
            ),
            ("toolgate hook --protocol gemini", true),
            (
                "/opt/toolgate-0.2/bin/toolgate.exe hook --protocol qwen",
                true,
            ),
            ("/usr/bin/other hook --protocol claude", false),
            ("toolgate classify x", false),
            ("my-linter --protocol toolgate", false),
        ] {
            assert_eq!(is_toolgate_command(command), ours, "{command:?}");
        }
    }

    #[test]
    fn the_command_quotes_the_binary_path() {
        let spec = HookSpec {
            binary: PathBuf::from("/home/a b/toolgate"),
            mode: Some("balanced".into()),
            profile: None,
        };
        let command = spec.command(Protocol::Claude);
        assert_eq!(
            command,
            "'/home/a b/toolgate' hook --protocol claude --mode balanced"
        );
        assert!(is_toolgate_command(&command));
    }
}
