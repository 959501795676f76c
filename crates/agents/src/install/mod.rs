//! `toolgate install`, `uninstall` and `doctor`: put toolgate's hook into an
//! agent client's settings, take it out again, and check that it answers.
//!
//! Each client keeps its hooks somewhere else and in another shape
//! (docs/clients.md, written from captures of the released clients, is the
//! reference): JSON settings with nested matcher
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
pub mod risk;
mod script;

use std::path::{Path, PathBuf};

pub use error::InstallError;
pub use file::{diff, Applied, Change};

pub use crate::place::{Env, Scope};

use crate::client::{by_name, Client, InstallShape, CLIENTS};

/// How long a client waits for the hook, in seconds. The first call of a
/// session also loads the taxonomy; a client that times out a hook mostly
/// *runs* the command (Codex, Copilot, Qwen Code), so the limit is generous.
pub const TIMEOUT_SECS: u64 = 30;

/// A client toolgate can install its hook into (one with an
/// [`InstallShape`]), by name.
pub fn client(name: &str) -> Option<&'static dyn Client> {
    by_name(name).filter(|c| c.install_shape().is_some())
}

/// The clients toolgate can install its hook into.
pub fn clients() -> impl Iterator<Item = &'static dyn Client> {
    CLIENTS
        .iter()
        .copied()
        .filter(|c| c.install_shape().is_some())
}

/// Where `client` reads toolgate's hook from.
pub fn settings_path(
    client: &dyn Client,
    scope: &Scope,
    env: &Env,
) -> Result<PathBuf, InstallError> {
    client.settings_path(scope, env).ok_or(InstallError::NoHome)
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
    pub fn command(&self, client: &dyn Client) -> String {
        let mut words = vec![
            self.binary.to_string_lossy().into_owned(),
            "hook".into(),
            "--protocol".into(),
            client.name().into(),
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
    client: &dyn Client,
    scope: &Scope,
    env: &Env,
    spec: &HookSpec,
) -> Result<Change, InstallError> {
    let shape = client.install_shape().ok_or_else(|| {
        InstallError::BadChoice(format!("toolgate does not install into {}", client.title()))
    })?;
    let path = settings_path(client, scope, env)?;
    let old = file::read(&path)?;
    let command = spec.command(client);
    let new = match shape {
        InstallShape::CodexToml => codex::install(&path, old.as_deref(), &command)?,
        InstallShape::Script => script::install_cline(&path, old.as_deref(), &command)?,
        InstallShape::OpenCodePlugin => script::install_opencode(&path, old.as_deref(), spec)?,
        InstallShape::Json(shape) => {
            json_hooks::install(json_hooks::Shape(shape), &path, old.as_deref(), &command)?
        }
    };
    Ok(Change::new(path, old, Some(new), is_script(shape)))
}

/// A hook that is itself an executable file (Cline's).
fn is_script(shape: InstallShape) -> bool {
    matches!(shape, InstallShape::Script)
}

/// Plans removing toolgate's hook for `client` from `scope`. A file that
/// held nothing but toolgate's hook is removed.
pub fn plan_uninstall(
    client: &dyn Client,
    scope: &Scope,
    env: &Env,
) -> Result<Change, InstallError> {
    let shape = client.install_shape().ok_or_else(|| {
        InstallError::BadChoice(format!("toolgate does not install into {}", client.title()))
    })?;
    let path = settings_path(client, scope, env)?;
    let old = file::read(&path)?;
    let new = match (&old, shape) {
        (None, _) => None,
        (Some(text), InstallShape::CodexToml) => codex::uninstall(&path, text)?,
        (Some(text), InstallShape::Script | InstallShape::OpenCodePlugin) => {
            script::uninstall(text)
        }
        (Some(text), InstallShape::Json(shape)) => {
            json_hooks::uninstall(json_hooks::Shape(shape), &path, text)?
        }
    };
    Ok(Change::new(path, old, new, is_script(shape)).restoring())
}

/// The toolgate hook commands `client`'s file at `path` holds (its text
/// `text`), for `doctor`.
pub fn installed_commands(
    client: &dyn Client,
    path: &Path,
    text: &str,
) -> Result<Vec<String>, InstallError> {
    match client.install_shape() {
        Some(InstallShape::CodexToml) => codex::commands(path, text),
        Some(InstallShape::Script | InstallShape::OpenCodePlugin) => {
            Ok(script::command(text).into_iter().collect())
        }
        Some(InstallShape::Json(shape)) => {
            json_hooks::commands(json_hooks::Shape(shape), path, text)
        }
        None => Ok(Vec::new()),
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
        let command = spec.command(crate::client::CLIENTS[0]);
        assert_eq!(
            command,
            "'/home/a b/toolgate' hook --protocol claude --mode balanced"
        );
        assert!(is_toolgate_command(&command));
    }
}
