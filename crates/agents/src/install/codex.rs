//! Codex's `config.toml`: hooks in Claude Code's nested shape, as TOML
//! arrays of tables, edited with `toml_edit` so that every comment, blank
//! line and key order stays as the user wrote it.
//!
//! ```toml
//! [[hooks.PreToolUse]]
//! matcher = "^(Bash|apply_patch)$"
//! [[hooks.PreToolUse.hooks]]
//! type = "command"
//! command = "/usr/local/bin/toolgate hook --protocol codex --mode balanced"
//! timeout = 30
//! ```

use std::path::Path;

use toml_edit::{value, ArrayOfTables, DocumentMut, Item, Table};

use super::{is_toolgate_command, InstallError, TIMEOUT_SECS};
use crate::client::CODEX_MATCHER as MATCHER;

const EVENT: &str = "PreToolUse";

fn parse(path: &Path, text: &str) -> Result<DocumentMut, InstallError> {
    text.parse::<DocumentMut>()
        .map_err(|e| InstallError::Unreadable {
            path: path.to_path_buf(),
            message: format!("not valid TOML ({})", e.to_string().trim_end()),
        })
}

fn unreadable(path: &Path, message: &str) -> InstallError {
    InstallError::Unreadable {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

fn is_ours(hook: &Table) -> bool {
    hook.get("command")
        .and_then(Item::as_str)
        .is_some_and(is_toolgate_command)
}

/// (group, hook) indexes of toolgate's hooks.
fn find_ours(groups: &ArrayOfTables) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        if let Some(hooks) = group.get("hooks").and_then(Item::as_array_of_tables) {
            for (h, hook) in hooks.iter().enumerate() {
                if is_ours(hook) {
                    found.push((g, h));
                }
            }
        }
    }
    found
}

/// Removes the hooks at `at` (from the end), and a group left empty.
fn remove(groups: &mut ArrayOfTables, at: &[(usize, usize)]) {
    for &(g, h) in at.iter().rev() {
        let emptied = match groups
            .get_mut(g)
            .and_then(|t| t.get_mut("hooks"))
            .and_then(Item::as_array_of_tables_mut)
        {
            Some(hooks) => {
                hooks.remove(h);
                hooks.is_empty()
            }
            None => false,
        };
        if emptied {
            groups.remove(g);
        }
    }
}

/// The `[[hooks.PreToolUse]]` groups, if the file has them in the form
/// toolgate edits; an error when `hooks` or the event is something else
/// (an inline table toolgate would have to rewrite).
fn groups_mut<'a>(
    path: &Path,
    doc: &'a mut DocumentMut,
    create: bool,
) -> Result<Option<&'a mut ArrayOfTables>, InstallError> {
    let root = doc.as_table_mut();
    if !root.contains_key("hooks") {
        if !create {
            return Ok(None);
        }
        let mut hooks = Table::new();
        hooks.set_implicit(true);
        root.insert("hooks", Item::Table(hooks));
    }
    let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_mut) else {
        return Err(unreadable(
            path,
            "`hooks` is not a [hooks] table (an inline table is not edited)",
        ));
    };
    if !hooks.contains_key(EVENT) {
        if !create {
            return Ok(None);
        }
        hooks.insert(EVENT, Item::ArrayOfTables(ArrayOfTables::new()));
    }
    match hooks.get_mut(EVENT).and_then(Item::as_array_of_tables_mut) {
        Some(groups) => Ok(Some(groups)),
        None => Err(unreadable(
            path,
            "`hooks.PreToolUse` is not written as [[hooks.PreToolUse]] tables",
        )),
    }
}

/// The file's text with toolgate's hook: the first toolgate hook gets the
/// new command and timeout in place (other keys and comments kept), any
/// other goes, and with none a group is appended.
pub(super) fn install(
    path: &Path,
    old: Option<&str>,
    command: &str,
) -> Result<String, InstallError> {
    let mut doc = parse(path, old.unwrap_or(""))?;
    let Some(groups) = groups_mut(path, &mut doc, true)? else {
        return Err(unreadable(path, "internal: no [[hooks.PreToolUse]]"));
    };
    let found = find_ours(groups);
    let timeout = i64::try_from(TIMEOUT_SECS).unwrap_or(30);
    match found.first() {
        Some(&(g, h)) => {
            remove(groups, &found[1..]);
            // A group that holds toolgate's hook alone takes toolgate's
            // matcher, so that a reinstall routes the tools this version
            // gates (an older install's `Bash` grows to `apply_patch`).
            if let Some(group) = groups.get_mut(g) {
                let alone = group
                    .get("hooks")
                    .and_then(Item::as_array_of_tables)
                    .is_some_and(|hooks| hooks.len() == 1);
                let matcher = group.get("matcher").and_then(Item::as_str);
                if alone && matcher.is_some_and(|m| m != MATCHER) {
                    group["matcher"] = value(MATCHER);
                }
            }
            if let Some(hook) = groups
                .get_mut(g)
                .and_then(|t| t.get_mut("hooks"))
                .and_then(Item::as_array_of_tables_mut)
                .and_then(|hooks| hooks.get_mut(h))
            {
                if hook.get("type").and_then(Item::as_str) != Some("command") {
                    hook["type"] = value("command");
                }
                if hook.get("command").and_then(Item::as_str) != Some(command) {
                    hook["command"] = value(command);
                }
                if hook.get("timeout").and_then(Item::as_integer) != Some(timeout) {
                    hook["timeout"] = value(timeout);
                }
            }
        }
        None => {
            let mut hook = Table::new();
            hook["type"] = value("command");
            hook["command"] = value(command);
            hook["timeout"] = value(timeout);
            let mut hooks = ArrayOfTables::new();
            hooks.push(hook);
            let mut group = Table::new();
            group["matcher"] = value(MATCHER);
            group.insert("hooks", Item::ArrayOfTables(hooks));
            groups.push(group);
        }
    }
    Ok(doc.to_string())
}

/// The file's text without toolgate's hook (`None`: nothing else was in it).
pub(super) fn uninstall(path: &Path, text: &str) -> Result<Option<String>, InstallError> {
    let mut doc = parse(path, text)?;
    let Some(groups) = groups_mut(path, &mut doc, false)? else {
        return Ok(Some(text.to_string()));
    };
    let found = find_ours(groups);
    if found.is_empty() {
        return Ok(Some(text.to_string()));
    }
    remove(groups, &found);
    let emptied = groups.is_empty();
    let root = doc.as_table_mut();
    if emptied {
        if let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_mut) {
            hooks.remove(EVENT);
        }
    }
    // An implicit `hooks` table (no `[hooks]` line of its own) left empty
    // is one toolgate's group brought in.
    if root
        .get("hooks")
        .and_then(Item::as_table)
        .is_some_and(|h| h.is_empty() && h.is_implicit())
    {
        root.remove("hooks");
    }
    let rendered = doc.to_string();
    Ok((!rendered.trim().is_empty()).then_some(rendered))
}

/// The toolgate commands in the file.
pub(super) fn commands(path: &Path, text: &str) -> Result<Vec<String>, InstallError> {
    let mut doc = parse(path, text)?;
    let Some(groups) = groups_mut(path, &mut doc, false)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (g, h) in find_ours(groups) {
        let command = groups
            .get(g)
            .and_then(|t| t.get("hooks"))
            .and_then(Item::as_array_of_tables)
            .and_then(|hooks| hooks.get(h))
            .and_then(|hook| hook.get("command"))
            .and_then(Item::as_str);
        out.extend(command.map(String::from));
    }
    Ok(out)
}
