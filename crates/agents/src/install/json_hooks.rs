//! The JSON settings files: Claude Code, Gemini CLI and Qwen Code nest
//! hooks in matcher groups (`hooks.EVENT[].hooks[]`); Copilot CLI, Cursor
//! and Windsurf list them flat (`hooks.EVENT[]`).
//!
//! A file may hold comments and trailing commas (JSONC). It is never
//! rewritten from a parsed value: each change is a text edit of the one
//! member it adds, replaces or removes ([`super::jsonc`]), parsed again
//! before the next, so whatever toolgate did not write stays byte for byte.

use std::path::Path;

use super::json::Json;
use super::jsonc::{Doc, EditError, Kind, Step};
use super::{is_toolgate_command, InstallError, TIMEOUT_SECS};
use crate::client::JsonShape;

const HOOKS: Step<'static> = Step::Key("hooks");

/// toolgate's hook in a client's JSON file, by the client's [`JsonShape`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Shape(pub(super) JsonShape);

fn num(n: u64) -> Json {
    Json::Number(n.into())
}

impl std::ops::Deref for Shape {
    type Target = JsonShape;

    fn deref(&self) -> &JsonShape {
        &self.0
    }
}

impl Shape {
    /// The entry's fields besides the command, in the order the clients'
    /// own examples write them: `type`, then the timeout, then flags.
    fn fields(&self) -> Vec<(String, Json)> {
        let mut fields = Vec::new();
        if self.typed {
            fields.push(("type".into(), Json::String("command".into())));
        }
        if let Some(t) = self.timeout {
            let value = if t.millis {
                TIMEOUT_SECS * 1000
            } else {
                TIMEOUT_SECS
            };
            fields.push((t.key.into(), num(value)));
        }
        for &(key, value) in self.flags {
            fields.push((key.into(), Json::Bool(value)));
        }
        fields
    }

    /// Top-level keys a new file needs (`"version": 1`).
    fn top(&self) -> Vec<(String, Json)> {
        if self.versioned {
            vec![("version".into(), num(1))]
        } else {
            Vec::new()
        }
    }

    /// toolgate's entry for `command`.
    fn entry(&self, command: &str) -> Json {
        let mut fields = self.fields();
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

fn parse<'t>(path: &Path, text: &'t str) -> Result<Doc<'t>, InstallError> {
    let doc = Doc::parse(text)
        .map_err(|e| unreadable(path, &format!("not valid JSON or JSONC ({e})")))?;
    match doc.kind(&[]) {
        None | Some(Kind::Object) => Ok(doc),
        Some(_) => Err(unreadable(path, "the file is not a JSON object")),
    }
}

fn unreadable(path: &Path, message: &str) -> InstallError {
    InstallError::Unreadable {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// Parses `text` again and makes one edit: every edit finds its place in
/// the text as it now is.
fn edit(
    path: &Path,
    text: &str,
    change: impl FnOnce(&Doc) -> Result<String, EditError>,
) -> Result<String, InstallError> {
    let doc = parse(path, text)?;
    change(&doc).map_err(|e| unreadable(path, &e.to_string()))
}

impl Shape {
    /// `hooks.EVENT`.
    fn list_path(&self) -> [Step<'static>; 2] {
        [HOOKS, Step::Key(self.event)]
    }

    /// What toolgate adds to the event's list: its entry, in a matcher
    /// group for the nested shape.
    fn item(&self, entry: Json) -> Json {
        match self.matcher {
            None => entry,
            Some(m) => Json::Object(vec![
                ("matcher".into(), Json::String(m.into())),
                ("hooks".into(), Json::Array(vec![entry])),
            ]),
        }
    }

    /// Where the entry at (group, hook) is.
    fn entry_path(&self, (g, h): (usize, Option<usize>)) -> Vec<Step<'static>> {
        let mut p = self.list_path().to_vec();
        p.push(Step::Index(g));
        if let Some(h) = h {
            p.extend([HOOKS, Step::Index(h)]);
        }
        p
    }
}

/// The event's list; `None` when the file has none (or `hooks` or the
/// event is not an object and an array: nothing toolgate wrote).
fn read_list(shape: &Shape, path: &Path, doc: &Doc) -> Result<Option<Vec<Json>>, InstallError> {
    let at = shape.list_path();
    if doc.kind(&at) != Some(Kind::Array) {
        return Ok(None);
    }
    match doc.json(&at) {
        Some(Json::Array(list)) => Ok(Some(list)),
        _ => Err(unreadable(
            path,
            &format!(
                "`hooks.{}` holds a number toolgate cannot read",
                shape.event
            ),
        )),
    }
}

/// Every toolgate hook entry in `list`, as (group, hook) indexes: `hook`
/// is `None` for a flat list.
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

/// What to remove so that the entries at `at` (in file order) go, as
/// paths in `doc`: a matcher group they would leave with no hooks goes
/// whole, unless it holds a comment of someone's.
fn removals(
    shape: &Shape,
    doc: &Doc,
    list: &[Json],
    at: &[(usize, Option<usize>)],
) -> Vec<Vec<Step<'static>>> {
    let mut out: Vec<Vec<Step<'static>>> = Vec::new();
    for &(g, h) in at {
        let group = shape.entry_path((g, None));
        if h.is_none() {
            out.push(group);
            continue;
        }
        if out.last() == Some(&group) {
            continue;
        }
        let hooks = match list.get(g).and_then(|group| group.get("hooks")) {
            Some(Json::Array(hooks)) => hooks.len(),
            _ => 0,
        };
        let going: Vec<Vec<Step>> = at
            .iter()
            .filter(|&&(g2, h2)| g2 == g && h2.is_some())
            .map(|&e| shape.entry_path(e))
            .collect();
        if going.len() == hooks && !doc.has_comment_in(&group, &going) {
            out.push(group);
        } else {
            out.push(shape.entry_path((g, h)));
        }
    }
    out
}

/// The file's text with toolgate's hook for `command` in it: the first
/// toolgate entry is replaced where it stands (unless it already is what
/// toolgate would write), any other is removed, and with none a new one is
/// appended to the event's list, which is created (and `hooks`) when
/// missing.
pub(super) fn install(
    shape: Shape,
    path: &Path,
    old: Option<&str>,
    command: &str,
) -> Result<String, InstallError> {
    let mut text = old.unwrap_or("").to_string();
    let entry = shape.entry(command);
    let item = shape.item(entry.clone());
    let list_path = shape.list_path();
    let event_list = || Json::Object(vec![(shape.event.into(), Json::Array(vec![item.clone()]))]);

    let doc = parse(path, &text)?;
    if doc.kind(&[]).is_none() {
        let mut new = Json::Object(shape.top());
        new.set("hooks", event_list());
        return Ok(doc.with_root(&new));
    }
    for (key, value) in shape.top() {
        if parse(path, &text)?.kind(&[Step::Key(&key)]).is_none() {
            text = edit(path, &text, |d| d.append(&[], Some(&key), &value))?;
        }
    }

    let doc = parse(path, &text)?;
    match doc.kind(&[HOOKS]) {
        None => return edit(path, &text, |d| d.append(&[], Some("hooks"), &event_list())),
        Some(Kind::Object) => {}
        Some(_) => return Err(unreadable(path, "`hooks` is not an object")),
    }
    match doc.kind(&list_path) {
        None => {
            let list = Json::Array(vec![item]);
            return edit(path, &text, |d| {
                d.append(&[HOOKS], Some(shape.event), &list)
            });
        }
        Some(Kind::Array) => {}
        Some(_) => {
            return Err(unreadable(
                path,
                &format!("`hooks.{}` is not an array", shape.event),
            ))
        }
    }
    let list = read_list(&shape, path, &doc)?.unwrap_or_default();
    let found = find_ours(&shape, &list);
    let Some((&first, rest)) = found.split_first() else {
        return edit(path, &text, |d| d.append(&list_path, None, &item));
    };
    // From the end, so that the indexes before still hold.
    for at in removals(&shape, &doc, &list, rest).iter().rev() {
        text = edit(path, &text, |d| d.remove(at))?;
    }
    let at = shape.entry_path(first);
    if parse(path, &text)?.json(&at).as_ref() != Some(&entry) {
        text = edit(path, &text, |d| d.replace(&at, &entry))?;
    }
    // A group that holds toolgate's hook alone takes toolgate's matcher,
    // so that a reinstall routes the tools this version gates (an older
    // install's `Bash` grows to Claude Code's file tools).
    if let (Some(matcher), (g, Some(_))) = (shape.matcher, first) {
        let group = shape.entry_path((g, None));
        let doc = parse(path, &text)?;
        let alone = matches!(doc.json(&group), Some(Json::Object(_)))
            && matches!(
                doc.json(&[group.clone(), vec![HOOKS]].concat()),
                Some(Json::Array(hooks)) if hooks.len() == 1
            );
        let at = [group, vec![Step::Key("matcher")]].concat();
        let wanted = Json::String(matcher.into());
        if alone && doc.json(&at).is_some_and(|m| m != wanted) {
            text = edit(path, &text, |d| d.replace(&at, &wanted))?;
        }
    }
    Ok(text)
}

/// The file's text without toolgate's hook; `None` when nothing but
/// toolgate's hook (and the keys a new file gets) was left, so the file
/// goes. A list toolgate's removal leaves empty goes, and so does `hooks`
/// when that was all it held, so that a file toolgate added `hooks` to is
/// as it was.
pub(super) fn uninstall(
    shape: Shape,
    path: &Path,
    text: &str,
) -> Result<Option<String>, InstallError> {
    let doc = parse(path, text)?;
    let Some(list) = read_list(&shape, path, &doc)? else {
        return Ok(Some(text.to_string()));
    };
    let found = find_ours(&shape, &list);
    if found.is_empty() {
        return Ok(Some(text.to_string()));
    }
    let list_path = shape.list_path().to_vec();
    let items = removals(&shape, &doc, &list, &found);
    // Every item goes, and no comment of someone's is left in the list (or
    // in `hooks`): the container goes too.
    let whole_list = items.len() == list.len()
        && items.iter().all(|p| p.len() == list_path.len() + 1)
        && !doc.has_comment_in(&list_path, &items);
    let paths = if !whole_list {
        items
    } else if doc
        .keys(&[HOOKS])
        .is_some_and(|keys| keys.iter().all(|k| *k == shape.event))
        && !doc.has_comment_in(&[HOOKS], std::slice::from_ref(&list_path))
    {
        vec![vec![HOOKS]]
    } else {
        vec![list_path]
    };
    let mut text = text.to_string();
    for at in paths.iter().rev() {
        text = edit(path, &text, |d| d.remove(at))?;
    }
    let doc = parse(path, &text)?;
    if !doc.has_comments() && doc.json(&[]) == Some(Json::Object(shape.top())) {
        return Ok(None);
    }
    Ok(Some(text))
}

/// The toolgate commands in the file.
pub(super) fn commands(shape: Shape, path: &Path, text: &str) -> Result<Vec<String>, InstallError> {
    let doc = parse(path, text)?;
    let Some(list) = read_list(&shape, path, &doc)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (g, h) in find_ours(&shape, &list) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{by_name, InstallShape};

    fn shape_of(name: &str) -> Shape {
        match by_name(name).and_then(|c| c.install_shape()) {
            Some(InstallShape::Json(shape)) => Shape(shape),
            other => panic!("{name}: {other:?}"),
        }
    }

    const OLD: &str = "/old/toolgate hook --protocol claude";
    const NEW: &str = "/new/toolgate hook --protocol claude";

    fn install_claude(text: &str) -> String {
        let shape = shape_of("claude");
        install(shape, Path::new("s.json"), Some(text), NEW).unwrap_or_else(|e| panic!("{e}"))
    }

    fn uninstall_claude(text: &str) -> Option<String> {
        let shape = shape_of("claude");
        uninstall(shape, Path::new("s.json"), text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn an_entry_on_one_line_is_replaced_on_its_line() {
        let before = format!(
            "{{\n  \"hooks\": {{\n    \"PreToolUse\": [\n      // ours\n      {{\"matcher\": \"Bash\", \"hooks\": [{{\"type\": \"command\", \"command\": \"{OLD}\", \"timeout\": 30}}]}}, // one line\n    ],\n  }},\n}}\n"
        );
        let after = install_claude(&before);
        // The group holds toolgate's hook alone, so it takes toolgate's
        // matcher too (Claude Code's file tools), on the same line.
        assert_eq!(
            after,
            before.replace(OLD, NEW).replace(
                "\"Bash\"",
                &format!("\"{}\"", crate::client::CLAUDE_MATCHER)
            )
        );
        assert_eq!(install_claude(&after), after);
        // The comments in the list are someone's: the list stays, and so
        // do they.
        assert_eq!(
            uninstall_claude(&after).as_deref(),
            Some("{\n  \"hooks\": {\n    \"PreToolUse\": [\n      // ours\n      // one line\n    ],\n  },\n}\n")
        );
    }

    #[test]
    fn a_second_entry_goes_and_a_shared_group_keeps_its_other_hooks() {
        let ours =
            |c: &str| format!("{{\"type\": \"command\", \"command\": \"{c}\", \"timeout\": 30}}");
        let before = format!(
            "{{\n  \"hooks\": {{\n    \"PreToolUse\": [\n      {{\"matcher\": \"Bash\", \"hooks\": [{{\"command\": \"lint\"}}, {}]}},\n      {{\"matcher\": \"Bash\", \"hooks\": [{}]}}\n    ]\n  }}\n}}\n",
            ours(OLD),
            ours(OLD)
        );
        let after = install_claude(&before);
        assert_eq!(
            after,
            format!(
                "{{\n  \"hooks\": {{\n    \"PreToolUse\": [\n      {{\"matcher\": \"Bash\", \"hooks\": [{{\"command\": \"lint\"}}, {}]}}\n    ]\n  }}\n}}\n",
                ours(NEW)
            )
        );
        assert_eq!(
            uninstall_claude(&after).as_deref(),
            Some("{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"command\": \"lint\"}]}\n    ]\n  }\n}\n")
        );
    }

    #[test]
    fn a_file_of_only_comments_keeps_them_above_the_new_object() {
        let after = install_claude("// settings\n");
        assert!(
            after.starts_with("// settings\n{\n  \"hooks\": {\n    \"PreToolUse\": [\n"),
            "{after}"
        );
        assert_eq!(
            uninstall_claude(&after).as_deref(),
            Some("// settings\n{}\n")
        );
        // Without the comment the file would be toolgate's alone: it goes.
        assert_eq!(uninstall_claude(&install_claude("")), None);
    }

    #[test]
    fn keys_of_the_wrong_type_are_refused_by_name() {
        let shape = shape_of("gemini");
        for (text, want) in [
            ("{\"hooks\": [] // c\n}", "`hooks` is not an object"),
            (
                "{\"hooks\": {\"BeforeTool\": {}}}",
                "`hooks.BeforeTool` is not an array",
            ),
            ("[1, 2] // c", "the file is not a JSON object"),
        ] {
            match install(shape, Path::new("s.json"), Some(text), NEW) {
                Ok(t) => panic!("{text:?} gave {t:?}"),
                Err(e) => assert!(e.to_string().contains(want), "{text:?}: {e}"),
            }
        }
    }
}
