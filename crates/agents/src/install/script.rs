//! The clients whose hook is a file of toolgate's own: Cline's executable
//! `PreToolUse` script and OpenCode's plugin. Each carries a marker line
//! with the hook command, which is how toolgate knows the file is its own
//! (and never overwrites or removes one that is not) and what `doctor` runs.

use std::path::Path;

use super::{is_toolgate_command, HookSpec, InstallError};
use crate::client::{by_name, OPENCODE_PLUGIN};

/// The marker line's start, after the comment sign.
const MARKER: &str = "toolgate hook, written by `toolgate install`: ";

/// The command a marker line in `text` names, if the file is toolgate's.
pub(super) fn command(text: &str) -> Option<String> {
    text.lines()
        .take(3)
        .find_map(|l| {
            l.strip_prefix("# ")
                .or_else(|| l.strip_prefix("// "))
                .and_then(|l| l.strip_prefix(MARKER))
        })
        .filter(|c| is_toolgate_command(c))
        .map(String::from)
}

fn refuse_foreign(path: &Path, old: Option<&str>, command_line: &str) -> Result<(), InstallError> {
    match old {
        Some(text) if !text.trim().is_empty() && command(text).is_none() => {
            Err(InstallError::Foreign {
                path: path.to_path_buf(),
                command: command_line.to_string(),
            })
        }
        _ => Ok(()),
    }
}

/// Cline's hook script: `exec`s toolgate, so that toolgate's answer and
/// exit status are the script's.
pub(super) fn install_cline(
    path: &Path,
    old: Option<&str>,
    command_line: &str,
) -> Result<String, InstallError> {
    refuse_foreign(path, old, command_line)?;
    Ok(format!(
        "#!/bin/sh\n# {MARKER}{command_line}\nexec {command_line}\n"
    ))
}

/// OpenCode's plugin, pointed at this binary and given the mode: the
/// shipped plugin reads the binary from `TOOLGATE_BIN` (else `toolgate` on
/// `PATH`), which OpenCode's environment may not set, so the installed copy
/// names it, and passes `--mode`/`--profile` on its command line.
pub(super) fn install_opencode(
    path: &Path,
    old: Option<&str>,
    spec: &HookSpec,
) -> Result<String, InstallError> {
    let opencode = by_name("opencode").ok_or(InstallError::BadChoice("opencode".into()))?;
    let command_line = spec.command(opencode);
    refuse_foreign(path, old, &command_line)?;
    let (bin, args) = opencode_patch(spec);
    let plugin = OPENCODE_PLUGIN
        .replacen(BIN_DEFAULT, &bin, 1)
        .replacen(ARGS_DEFAULT, &args, 1);
    Ok(format!("// {MARKER}{command_line}\n{plugin}"))
}

/// The shipped plugin's default binary and arguments, which the installed
/// copy replaces (a unit test checks they are in the plugin).
const BIN_DEFAULT: &str = r#"bin: env.TOOLGATE_BIN || "toolgate","#;
const ARGS_DEFAULT: &str = r#"["hook", "--protocol", "opencode"]"#;

fn opencode_patch(spec: &HookSpec) -> (String, String) {
    let js = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    let bin = format!(
        "bin: env.TOOLGATE_BIN || {},",
        js(&spec.binary.to_string_lossy())
    );
    let mut args = vec![js("hook"), js("--protocol"), js("opencode")];
    for (flag, v) in [("--mode", &spec.mode), ("--profile", &spec.profile)] {
        if let Some(v) = v {
            args.extend([js(flag), js(v)]);
        }
    }
    (bin, format!("[{}]", args.join(", ")))
}

/// Removes the file when it is toolgate's (`None`), else leaves it as it is.
pub(super) fn uninstall(text: &str) -> Option<String> {
    match command(text) {
        Some(_) => None,
        None => Some(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn the_installed_plugin_names_the_binary_and_mode() {
        assert!(OPENCODE_PLUGIN.contains(BIN_DEFAULT));
        assert!(OPENCODE_PLUGIN.contains(ARGS_DEFAULT));
        let spec = HookSpec {
            binary: PathBuf::from("/opt/bin/toolgate"),
            mode: Some("balanced".into()),
            profile: None,
        };
        let text = install_opencode(Path::new("p.js"), None, &spec).unwrap_or_default();
        assert!(text.contains(r#"bin: env.TOOLGATE_BIN || "/opt/bin/toolgate","#));
        assert!(text.contains(r#"["hook", "--protocol", "opencode", "--mode", "balanced"]"#));
        assert_eq!(
            command(&text).as_deref(),
            Some("/opt/bin/toolgate hook --protocol opencode --mode balanced")
        );
    }
}
