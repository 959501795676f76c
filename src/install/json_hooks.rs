//! The JSON settings files: Claude Code, Gemini CLI and Qwen Code nest
//! hooks in matcher groups (`hooks.EVENT[].hooks[]`); Copilot CLI, Cursor
//! and Windsurf list them flat (`hooks.EVENT[]`).

use std::path::Path;

use super::json::{indent_of, Json};
use super::{is_toolgate_command, Client, InstallError, TIMEOUT_SECS};

/// How one client's JSON file holds a hook.
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape {
    /// The key under `hooks`.
    event: &'static str,
    /// The matcher group's `matcher`; `None` for the flat lists.
    matcher: Option<&'static str>,
    /// The key holding the command.
    command_key: &'static str,
    /// The entry's other fields.
    fields: fn() -> Vec<(String, Json)>,
    /// Top-level keys a new file needs (`"version": 1`).
    top: fn() -> Vec<(String, Json)>,
}

fn num(n: u64) -> Json {
    Json::Number(n.into())
}

fn command_type() -> (String, Json) {
    ("type".into(), Json::String("command".into()))
}

fn version() -> Vec<(String, Json)> {
    vec![("version".into(), num(1))]
}

impl Shape {
    /// The shape `client` reads (a JSON client).
    pub(super) fn of(client: Client) -> Shape {
        match client {
            // Claude Code: `timeout` in seconds.
            Client::Claude => Shape {
                event: "PreToolUse",
                matcher: Some("Bash"),
                command_key: "command",
                fields: || vec![command_type(), ("timeout".into(), num(TIMEOUT_SECS))],
                top: Vec::new,
            },
            // Gemini CLI: `timeout` in milliseconds.
            Client::Gemini => Shape {
                event: "BeforeTool",
                matcher: Some("run_shell_command"),
                command_key: "command",
                fields: || vec![command_type(), ("timeout".into(), num(TIMEOUT_SECS * 1000))],
                top: Vec::new,
            },
            // Qwen Code: Claude's shape, Gemini's tool name, milliseconds.
            Client::Qwen => Shape {
                event: "PreToolUse",
                matcher: Some("run_shell_command"),
                command_key: "command",
                fields: || vec![command_type(), ("timeout".into(), num(TIMEOUT_SECS * 1000))],
                top: Vec::new,
            },
            // Copilot's own format: `bash`, `timeoutSec`.
            Client::Copilot => Shape {
                event: "preToolUse",
                matcher: None,
                command_key: "bash",
                fields: || vec![command_type(), ("timeoutSec".into(), num(TIMEOUT_SECS))],
                top: version,
            },
            // Cursor documents no timeout field that is known to be read.
            Client::Cursor => Shape {
                event: "beforeShellExecution",
                matcher: None,
                command_key: "command",
                fields: Vec::new,
                top: version,
            },
            // Windsurf: show the reason toolgate prints on a block.
            Client::Windsurf => Shape {
                event: "pre_run_command",
                matcher: None,
                command_key: "command",
                fields: || vec![("show_output".into(), Json::Bool(true))],
                top: Vec::new,
            },
            Client::Codex | Client::Cline | Client::OpenCode => Shape {
                event: "",
                matcher: None,
                command_key: "command",
                fields: Vec::new,
                top: Vec::new,
            },
        }
    }

    /// toolgate's entry for `command`.
    fn entry(&self, command: &str) -> Json {
        let mut fields = (self.fields)();
        let at = usize::from(fields.first().is_some_and(|(k, _)| k == "type"));
        fields.insert(at, (self.command_key.into(), Json::String(command.into())));
        Json::Object(fields)
    }

    fn is_ours(&self, entry: &Json) -> bool {
        entry
            .get(self.command_key)
            .and_then(Json::as_str)
            .is_some_and(is_toolgate_command)
    }
}

fn parse(path: &Path, text: &str) -> Result<Json, InstallError> {
    if text.trim().is_empty() {
        return Ok(Json::object());
    }
    let doc = Json::parse(text).map_err(|e| InstallError::Unreadable {
        path: path.to_path_buf(),
        message: format!("not plain JSON ({e}; comments and trailing commas cannot be kept)"),
    })?;
    match doc {
        Json::Object(_) => Ok(doc),
        _ => Err(unreadable(path, "the file is not a JSON object")),
    }
}

fn unreadable(path: &Path, message: &str) -> InstallError {
    InstallError::Unreadable {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// The event's list, created when missing.
fn event_list<'a>(
    shape: &Shape,
    path: &Path,
    doc: &'a mut Json,
) -> Result<&'a mut Vec<Json>, InstallError> {
    if doc.get("hooks").is_none() {
        doc.set("hooks", Json::object());
    }
    let hooks = doc
        .get_mut("hooks")
        .filter(|h| matches!(h, Json::Object(_)));
    let hooks = hooks.ok_or_else(|| unreadable(path, "`hooks` is not an object"))?;
    if hooks.get(shape.event).is_none() {
        hooks.set(shape.event, Json::Array(Vec::new()));
    }
    match hooks.get_mut(shape.event) {
        Some(Json::Array(list)) => Ok(list),
        _ => Err(unreadable(
            path,
            &format!("`hooks.{}` is not an array", shape.event),
        )),
    }
}

/// Every toolgate hook entry in `list`, mutably, as (group, hook) indexes:
/// `hook` is `None` for a flat list.
fn find_ours(shape: &Shape, list: &[Json]) -> Vec<(usize, Option<usize>)> {
    let mut found = Vec::new();
    for (g, group) in list.iter().enumerate() {
        if shape.matcher.is_none() {
            if shape.is_ours(group) {
                found.push((g, None));
            }
            continue;
        }
        if let Some(Json::Array(hooks)) = group.get("hooks") {
            for (h, hook) in hooks.iter().enumerate() {
                if shape.is_ours(hook) {
                    found.push((g, Some(h)));
                }
            }
        }
    }
    found
}

/// The file's text with toolgate's hook for `command` in it: the first
/// toolgate entry is replaced where it stands, any other is removed, and
/// with none a new one is appended.
pub(super) fn install(
    shape: Shape,
    path: &Path,
    old: Option<&str>,
    command: &str,
) -> Result<String, InstallError> {
    let text = old.unwrap_or("");
    let mut doc = parse(path, text)?;
    for (k, v) in (shape.top)() {
        if doc.get(&k).is_none() {
            doc.set(&k, v);
        }
    }
    let list = event_list(&shape, path, &mut doc)?;
    let entry = shape.entry(command);
    let found = find_ours(&shape, list);
    match found.first() {
        Some(&(g, h)) => {
            remove(list, &found[1..]);
            match h {
                None => list[g] = entry,
                Some(h) => {
                    if let Some(Json::Array(hooks)) = list[g].get_mut("hooks") {
                        hooks[h] = entry;
                    }
                }
            }
        }
        None => list.push(match shape.matcher {
            None => entry,
            Some(m) => Json::Object(vec![
                ("matcher".into(), Json::String(m.into())),
                ("hooks".into(), Json::Array(vec![entry])),
            ]),
        }),
    }
    Ok(render(&doc, text))
}

/// Removes the entries at `at` (from the end, so the indexes hold), and a
/// matcher group left with no hooks.
fn remove(list: &mut Vec<Json>, at: &[(usize, Option<usize>)]) {
    for &(g, h) in at.iter().rev() {
        match h {
            None => {
                list.remove(g);
            }
            Some(h) => {
                let emptied = match list[g].get_mut("hooks") {
                    Some(Json::Array(hooks)) => {
                        hooks.remove(h);
                        hooks.is_empty()
                    }
                    _ => false,
                };
                if emptied {
                    list.remove(g);
                }
            }
        }
    }
}

fn render(doc: &Json, old: &str) -> String {
    doc.render(&indent_of(old), old.is_empty() || old.ends_with('\n'))
}

/// The file's text without toolgate's hook; `None` when nothing but
/// toolgate's hook (and the keys a new file gets) was left, so the file
/// goes.
pub(super) fn uninstall(
    shape: Shape,
    path: &Path,
    text: &str,
) -> Result<Option<String>, InstallError> {
    let mut doc = parse(path, text)?;
    let Some(Json::Array(list)) = doc.get_mut("hooks").and_then(|h| h.get_mut(shape.event)) else {
        return Ok(Some(text.to_string()));
    };
    let found = find_ours(&shape, list);
    if found.is_empty() {
        return Ok(Some(text.to_string()));
    }
    remove(list, &found);
    // Containers left empty by the removal go too, so that a file toolgate
    // added `hooks` to is as it was.
    if list.is_empty() {
        if let Some(hooks) = doc.get_mut("hooks") {
            hooks.remove(shape.event);
        }
    }
    if doc.get("hooks").is_some_and(Json::is_empty_container) {
        doc.remove("hooks");
    }
    let skeleton = Json::Object((shape.top)());
    if doc == skeleton {
        return Ok(None);
    }
    Ok(Some(render(&doc, text)))
}

/// The toolgate commands in the file.
pub(super) fn commands(shape: Shape, path: &Path, text: &str) -> Result<Vec<String>, InstallError> {
    let mut doc = parse(path, text)?;
    let Some(Json::Array(list)) = doc.get_mut("hooks").and_then(|h| h.get_mut(shape.event)) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (g, h) in find_ours(&shape, list) {
        let entry = match h {
            None => Some(&list[g]),
            Some(h) => match list[g].get("hooks") {
                Some(Json::Array(hooks)) => hooks.get(h),
                _ => None,
            },
        };
        if let Some(c) = entry
            .and_then(|e| e.get(shape.command_key))
            .and_then(Json::as_str)
        {
            out.push(c.to_string());
        }
    }
    Ok(out)
}
