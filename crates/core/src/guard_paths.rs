//! Self-protection: the files that make toolgate a guard, and the file
//! edits that would disable or weaken it.
//!
//! An agent that can rewrite its client's hook settings, delete toolgate's
//! plugin or loosen toolgate's own configuration can switch the guard off
//! and then do anything. Such a call is labelled destructive with the
//! category [`GUARD_TAMPER`] (blast radius high), and the gate denies it in
//! every mode but autonomous, whatever the permission rules say.
//!
//! Shell commands reach these paths through the taxonomy
//! (`taxonomy/rules/guard.toml`, shape `guard-path` in `commands.toml`).
//! File-editing tools (`Write`, `Edit`, `write_file`, …) carry the path as a
//! field, which [`tampered_path`] reads and [`GuardPaths::protects`] checks.
//! The two are kept in step by a test that runs the same paths through both.
//!
//! Paths are matched by their last components, wherever they sit: a
//! project's `.claude/settings.json` is a hook setting as much as the one in
//! the home directory, and a directory holding one (`~/.claude`, `.github`)
//! counts too, since deleting or moving it removes the file. A glob in a
//! component (`~/.claude/*`) counts when it could match the protected name.
//! A shell word is also judged as the shell reaches it ([`as_reached`]):
//! after `.`, `..` and doubled slashes are resolved, and from the directory
//! an earlier `cd` of the same command line moved to. What is not seen: a
//! path built at run time (`$DIR/settings.json`, `cd "$X"`); that stays with
//! its ordinary label, which no mode but autonomous allows without asking
//! when it is destructive.

use serde_json::Value;
use smallvec::SmallVec;

/// The category of a call that would disable or weaken the guard.
pub const GUARD_TAMPER: &str = "guard-tamper";

/// One protected path: its last components (`*` inside a component is any
/// run of characters; a final `**` is anything below, or nothing), and what
/// it holds, for the reason.
struct Protected {
    parts: &'static [&'static str],
    what: &'static str,
}

/// Every protected path. `.config` stands for `$XDG_CONFIG_HOME` and
/// `.local/state` for `$XDG_STATE_HOME` (see [`GuardPaths::protects`]).
#[rustfmt::skip]
const PROTECTED: &[Protected] = &[
    Protected { parts: &[".claude", "settings*.json"], what: "Claude Code's hook settings" },
    Protected { parts: &[".codex", "config.toml"], what: "Codex's hook settings" },
    Protected { parts: &[".codex", "hooks.json"], what: "Codex's hook settings" },
    Protected { parts: &[".gemini", "settings.json"], what: "Gemini CLI's hook settings" },
    Protected { parts: &[".qwen", "settings.json"], what: "Qwen Code's hook settings" },
    Protected { parts: &[".copilot", "hooks", "*"], what: "GitHub Copilot CLI's hooks" },
    Protected { parts: &[".copilot", "settings.json"], what: "GitHub Copilot CLI's hook settings" },
    Protected { parts: &[".github", "hooks", "*"], what: "GitHub Copilot CLI's repository hooks" },
    Protected { parts: &[".cline", "hooks", "**"], what: "Cline's hooks" },
    Protected { parts: &[".clinerules", "hooks", "**"], what: "Cline's workspace hooks" },
    Protected { parts: &[".config", "opencode", "plugin", "**"], what: "OpenCode's plugins" },
    Protected { parts: &[".config", "opencode", "plugins", "**"], what: "OpenCode's plugins" },
    Protected { parts: &[".opencode", "plugin", "**"], what: "OpenCode's plugins" },
    Protected { parts: &[".opencode", "plugins", "**"], what: "OpenCode's plugins" },
    Protected { parts: &[".cursor", "hooks.json"], what: "Cursor's hooks" },
    Protected { parts: &[".windsurf", "hooks.json"], what: "Windsurf's hooks" },
    Protected { parts: &[".codeium", "windsurf", "hooks.json"], what: "Windsurf's hooks" },
    Protected { parts: &["etc", "windsurf", "hooks.json"], what: "Windsurf's hooks" },
    Protected { parts: &[".config", "toolgate", "**"], what: "toolgate's configuration" },
    Protected { parts: &[".toolgate.toml"], what: "toolgate's project policy" },
    Protected { parts: &[".local", "state", "toolgate", "**"], what: "toolgate's decision log" },
];

/// The file-editing tools whose path field is checked, by client: Claude
/// Code (and Copilot's Claude-style hooks); Gemini CLI (`write_file`,
/// `replace`); Qwen Code (`write_file`, and `edit`, which it renamed from
/// Gemini's `replace`); Codex's [`PATCH_TOOL`], whose paths are in the
/// patch text rather than a field. Copilot CLI's own edit tools are not
/// listed: no captured payload names them yet.
pub const FILE_EDIT_TOOLS: &[(&str, &[&str])] = &[
    ("Write", &["file_path"]),
    ("Edit", &["file_path"]),
    ("MultiEdit", &["file_path"]),
    ("NotebookEdit", &["notebook_path"]),
    ("write_file", &["file_path", "absolute_path", "path"]),
    ("replace", &["file_path", "absolute_path", "path"]),
    ("edit", &["file_path", "absolute_path", "path"]),
    (PATCH_TOOL, &[]),
];

/// Codex's file-editing tool. Its hook payload carries the whole patch in
/// `tool_input.command`; the files it writes are named by the patch's
/// headers ([`patch_paths`]).
pub const PATCH_TOOL: &str = "apply_patch";

/// The files a Codex patch adds, deletes, updates or moves to: the rest of
/// each `*** Add File: `, `*** Delete File: `, `*** Update File: ` and
/// `*** Move to: ` line, trimmed.
///
/// ```
/// use toolgate_core::guard_paths::patch_paths;
/// let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n\
///              *** Update File: old.rs\n*** Move to: .codex/config.toml\n*** End Patch";
/// let paths: Vec<&str> = patch_paths(patch).collect();
/// assert_eq!(paths, ["src/a.rs", "old.rs", ".codex/config.toml"]);
/// assert_eq!(patch_paths("+*** Add File: x").count(), 0);
/// ```
pub fn patch_paths(patch: &str) -> impl Iterator<Item = &str> {
    const HEADERS: &[&str] = &[
        "*** Add File: ",
        "*** Delete File: ",
        "*** Update File: ",
        "*** Move to: ",
    ];
    patch.lines().filter_map(|line| {
        let line = line.trim_start();
        HEADERS
            .iter()
            .find_map(|h| line.strip_prefix(h))
            .map(str::trim)
            .filter(|p| !p.is_empty())
    })
}

/// Is `tool` one of the [`FILE_EDIT_TOOLS`]?
pub fn is_file_edit_tool(tool: &str) -> bool {
    FILE_EDIT_TOOLS.iter().any(|(name, _)| *name == tool)
}

/// Where the guard's own files may live besides their usual places: the
/// XDG base directories, which move `~/.config` and `~/.local/state`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GuardPaths {
    /// `$XDG_CONFIG_HOME`, when set.
    pub xdg_config_home: Option<String>,
    /// `$XDG_STATE_HOME`, when set.
    pub xdg_state_home: Option<String>,
}

impl GuardPaths {
    /// The XDG directories of this process's environment (blank or
    /// relative values are ignored, as the XDG spec says).
    pub fn from_env() -> GuardPaths {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .filter(|v| v.starts_with('/') && v.trim_end_matches('/').len() > 1)
        };
        GuardPaths {
            xdg_config_home: var("XDG_CONFIG_HOME"),
            xdg_state_home: var("XDG_STATE_HOME"),
        }
    }

    /// What `path` holds, if writing, moving or deleting it would disable
    /// or weaken the guard. `path` is as written: absolute, relative,
    /// `~/…`, `$HOME/…`, `$XDG_CONFIG_HOME/…`, with `\` or `/`.
    ///
    /// ```
    /// use toolgate_core::guard_paths::GuardPaths;
    /// let g = GuardPaths::default();
    /// assert_eq!(g.protects("/home/me/.claude/settings.json"), Some("Claude Code's hook settings"));
    /// assert_eq!(g.protects("project/.claude/settings.local.json"), Some("Claude Code's hook settings"));
    /// assert_eq!(g.protects("~/.claude"), Some("Claude Code's hook settings"));
    /// assert_eq!(g.protects("$XDG_CONFIG_HOME/toolgate/config.toml"), Some("toolgate's configuration"));
    /// assert_eq!(g.protects("src/main.rs"), None);
    /// assert_eq!(g.protects("/home/me/.claude/agents/reviewer.md"), None);
    /// ```
    pub fn protects(&self, path: &str) -> Option<&'static str> {
        let parts = self.components(path);
        // A path reaches a protected one only through a component that is,
        // or a glob that could be, its first: most paths have none, and are
        // let go before the table is walked.
        if !parts.iter().copied().any(could_start_protected) {
            return None;
        }
        // Only the entries whose first component one of the path's
        // matches can be reached (a glob's component, only those it
        // matches: a corpus scan's `./*.txt` walked the whole table).
        // (A first component has no wildcard: a plain component matches
        // it by being equal, a glob by matching it.)
        let globs: SmallVec<[bool; 8]> = parts.iter().map(|c| is_glob(c)).collect();
        PROTECTED
            .iter()
            .filter(|p| {
                p.parts.first().is_some_and(|first| {
                    parts.iter().zip(&globs).any(|(c, &glob)| {
                        if glob {
                            wildcard(c.as_bytes(), first.as_bytes())
                        } else {
                            c == first
                        }
                    })
                })
            })
            .find(|p| reaches(&parts, p.parts))
            .map(|p| p.what)
    }

    /// The path's components after lexical clean-up (`.` and empty ones
    /// dropped, `..` applied), with an XDG base directory (named or, when
    /// known, spelled out) replaced by its default location.
    fn components<'p>(&self, path: &'p str) -> Vec<&'p str> {
        let mut out: Vec<&str> = Vec::new();
        let rest = self.strip_xdg(path, &mut out);
        push_components(rest.split(['/', '\\']), &mut out, false);
        out
    }

    /// Strips a leading XDG base directory from `path`, pushing the
    /// components of its default location in its place.
    fn strip_xdg<'p>(&self, path: &'p str, out: &mut Vec<&'p str>) -> &'p str {
        let named: [(&str, &[&'static str]); 4] = [
            ("${XDG_CONFIG_HOME}", &[".config"]),
            ("$XDG_CONFIG_HOME", &[".config"]),
            ("${XDG_STATE_HOME}", &[".local", "state"]),
            ("$XDG_STATE_HOME", &[".local", "state"]),
        ];
        let known = [
            (self.xdg_config_home.as_deref(), &[".config"][..]),
            (self.xdg_state_home.as_deref(), &[".local", "state"][..]),
        ];
        let candidates = named.iter().map(|(p, d)| (Some(*p), *d)).chain(
            known
                .iter()
                .map(|(p, d)| (p.map(|s| s.trim_end_matches('/')), *d)),
        );
        for (prefix, default) in candidates {
            let Some(prefix) = prefix else { continue };
            if let Some(rest) = path.strip_prefix(prefix) {
                if rest.is_empty() || rest.starts_with(['/', '\\']) {
                    out.extend(default.iter().copied());
                    return rest;
                }
            }
        }
        path
    }
}

/// Does a path (its components) reach a protected one: end with it, or
/// end with a directory on the way to it?
fn reaches(path: &[&str], protected: &[&str]) -> bool {
    // Below a protected tree: the tree's components appear in order, and
    // whatever follows is inside.
    if let Some((&"**", tree)) = protected.split_last() {
        let inside = (0..path.len()).any(|end| ends_with(&path[..=end], tree));
        if inside {
            return true;
        }
    }
    let protected = match protected.split_last() {
        Some((&"**", tree)) => tree,
        _ => protected,
    };
    // The path itself, or a directory holding it (a proper prefix). A
    // lone first component counts only when it is a dot directory: `/etc`
    // holds Windsurf's system hooks, but is not toolgate's to guard.
    let first = usize::from(!protected.first().is_some_and(|p| p.starts_with('.')));
    (1 + first..=protected.len()).any(|n| ends_with(path, &protected[..n]))
}

/// A shell word naming a guard path as the shell will reach it, spelled
/// the way the taxonomy's `guard-path` shape reads: `.` and empty
/// components dropped, `..` applied lexically, and a relative path put
/// under `cd`, the directory an earlier `cd` of the same command line moved
/// to. `None` when that is the word as written (most words) or no guard
/// path, so the caller looks again only at words a spelling hid a guard
/// path in (`rm .claude//settings.json`, `cd ~/.claude && rm settings.json`).
///
/// ```
/// use toolgate_core::guard_paths::as_reached;
/// assert_eq!(as_reached(None, ".claude/agents/../settings.json").as_deref(), Some(".claude/settings.json"));
/// assert_eq!(as_reached(Some("~/.claude"), "settings.json").as_deref(), Some("~/.claude/settings.json"));
/// assert_eq!(as_reached(Some("~/.claude"), "/etc/hosts"), None);
/// assert_eq!(as_reached(None, "src/main.rs"), None);
/// assert_eq!(as_reached(None, "src/../main.rs"), None); // no guard path
/// ```
pub fn as_reached(cd: Option<&str>, word: &str) -> Option<String> {
    let moved = cd.is_some() && !is_rooted(word);
    if !moved && !needs_cleaning(word) {
        return None;
    }
    // Cleaning only drops components: a path none of whose components
    // could start a protected one stays unprotected, and is let go here
    // before anything is allocated.
    let from = cd.filter(|_| moved).unwrap_or("");
    if !(may_start_protected(from) || may_start_protected(word))
        || !from
            .split('/')
            .chain(word.split('/'))
            .any(could_start_protected)
    {
        return None;
    }
    let joined;
    let path = match cd {
        Some(dir) if !is_rooted(word) => {
            joined = format!("{dir}/{word}");
            joined.as_str()
        }
        _ => word,
    };
    let clean = lexically_clean(path);
    (clean != word && GuardPaths::default().protects(&clean).is_some()).then_some(clean)
}

/// Could a path component be the first of a protected path: that very
/// name, an XDG variable (which stands for one), or a glob that matches
/// one? (No protected path's first component has a wildcard, so a plain
/// component matches one only by being equal: a test keeps it so.) Every
/// way [`reaches`] matches goes through a component matching the first of
/// a protected path, so a path with none is let go.
fn could_start_protected(part: &str) -> bool {
    // (`.` and `..`, left by a path not yet cleaned, start none.)
    if matches!(part, "" | "." | "..") {
        return false;
    }
    if part.starts_with('$') {
        return true;
    }
    if is_glob(part) {
        // `*.txt` cannot match `.claude`: a glob reaches a dot file only
        // through a leading dot of its own, as in the shell.
        return PROTECTED.iter().any(|p| {
            p.parts
                .first()
                .is_some_and(|first| wildcard(part.as_bytes(), first.as_bytes()))
        });
    }
    (part.starts_with('.') || part == "etc")
        && PROTECTED.iter().any(|p| p.parts.first() == Some(&part))
}

/// Could some component of `path` pass [`could_start_protected`]? One
/// pass over the bytes, no split: a component that starts with none of
/// `.`, `$` and `e` (of `etc`), in a path with no glob byte, starts no
/// protected path (most words with a `/`, `src/main.rs`, stop here).
fn may_start_protected(path: &str) -> bool {
    let b = path.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        matches!(c, b'*' | b'?' | b'[')
            || ((i == 0 || b[i - 1] == b'/') && matches!(c, b'.' | b'$' | b'e'))
    })
}

/// Is a path component a shell glob?
fn is_glob(part: &str) -> bool {
    part.bytes().any(|b| matches!(b, b'*' | b'?' | b'['))
}

/// Could [`lexically_clean`] change `path`? (Asked of every argument of a
/// command with destructive entries, so it allocates nothing.)
fn needs_cleaning(path: &str) -> bool {
    let b = path.as_bytes();
    // A word without a slash is one component: `.` and `..` stay as they are.
    if !b.contains(&b'/') {
        return false;
    }
    // A component after a slash that is empty, `.` or `..`: read at each
    // slash, with no split.
    let ends_at = |i: usize| b.get(i).is_none_or(|&c| c == b'/');
    b.starts_with(b"./")
        || b.iter().enumerate().any(|(i, &c)| {
            c == b'/'
                && (ends_at(i + 1)
                    || (b[i + 1] == b'.'
                        && (ends_at(i + 2) || (b[i + 2] == b'.' && ends_at(i + 3)))))
        })
}

/// Does `path` start from a fixed place (`/`, the home directory, an XDG
/// base directory), not from where the shell is?
pub(crate) fn is_rooted(path: &str) -> bool {
    path.starts_with(['/', '~', '$'])
}

/// `path` with `.` and empty components dropped and `..` applied, keeping
/// its root (`/`, `~/`, `$HOME/`, `${XDG_…}/`). A `..` that climbs above a
/// relative start is kept; above a root it stays at the root, as the
/// kernel does.
fn lexically_clean(path: &str) -> String {
    let (root, rest) = match path.split_once('/') {
        Some(("", rest)) => ("/", rest),
        Some((first, rest)) if first == "~" || first.starts_with('$') => (first, rest),
        _ if path == "~" || path.starts_with('$') && !path.contains('/') => return path.into(),
        _ => ("", path),
    };
    let mut parts: Vec<&str> = Vec::new();
    push_components(rest.split('/'), &mut parts, !root.is_empty());
    let mut out = String::with_capacity(path.len());
    out.push_str(root);
    if !root.is_empty() && root != "/" && !parts.is_empty() {
        out.push('/');
    }
    out.push_str(&parts.join("/"));
    if out.is_empty() {
        out.push('.');
    }
    out
}

/// Pushes path components onto `out` with `.` and empty ones dropped and
/// `..` applied to what is there. A `..` with nothing left to climb out of
/// is kept, unless the path starts `at_root`, where it stays, as the kernel
/// does.
fn push_components<'p>(
    parts: impl Iterator<Item = &'p str>,
    out: &mut Vec<&'p str>,
    at_root: bool,
) {
    for part in parts {
        match part {
            "" | "." => {}
            ".." if out.last().is_some_and(|l| *l != "..") => {
                out.pop();
            }
            ".." if at_root => {}
            part => out.push(part),
        }
    }
}

/// Do `path`'s last components match `tail`, one for one?
fn ends_with(path: &[&str], tail: &[&str]) -> bool {
    path.len() >= tail.len()
        && path[path.len() - tail.len()..]
            .iter()
            .zip(tail)
            .all(|(p, t)| component_matches(p, t))
}

/// Does a path component (which may be a shell glob) match a protected
/// one (which may hold `*`)?
fn component_matches(component: &str, protected: &str) -> bool {
    match (is_glob(component), protected.as_bytes().contains(&b'*')) {
        (false, _) => wildcard(protected.as_bytes(), component.as_bytes()),
        (true, false) => wildcard(component.as_bytes(), protected.as_bytes()),
        // Both wild: a glob reaches a dot file only when it starts with
        // a dot itself, as in the shell; otherwise assume it can.
        (true, true) => component.starts_with('.') == protected.starts_with('.'),
    }
}

/// Matches `text` against `pattern`, where `*` is any run and `?` (and a
/// `[…]` class, loosely) any one character. A leading dot must be matched
/// literally, as a shell glob requires.
fn wildcard(pattern: &[u8], text: &[u8]) -> bool {
    if text.first() == Some(&b'.') && pattern.first() != Some(&b'.') {
        return false;
    }
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(b'[') => {
                // A class: one character, whatever the class holds.
                let close = pattern[p..].iter().position(|&c| c == b']');
                p += close.map_or(1, |c| c + 1);
                t += 1;
            }
            Some(&c) if c == b'?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// The protected path a file-editing tool call would write, and what it
/// holds; `None` for any other tool, or a path that is not protected.
///
/// ```
/// use serde_json::json;
/// use toolgate_core::guard_paths::{tampered_path, GuardPaths};
/// let g = GuardPaths::default();
/// let call = json!({"file_path": "/home/me/.claude/settings.json", "content": "{}"});
/// assert!(tampered_path("Write", &call, &g).is_some());
/// assert!(tampered_path("Write", &json!({"file_path": "/app/src/lib.rs"}), &g).is_none());
/// assert!(tampered_path("Read", &call, &g).is_none());
/// let patch = json!({"command": "*** Begin Patch\n*** Add File: .toolgate.toml\n+x\n*** End Patch"});
/// assert!(tampered_path("apply_patch", &patch, &g).is_some());
/// assert!(tampered_path("apply_patch", &json!({"command": "*** Update File: a.rs"}), &g).is_none());
/// ```
pub fn tampered_path<'a>(
    tool: &str,
    args: &'a Value,
    guard: &GuardPaths,
) -> Option<(&'a str, &'static str)> {
    let (_, fields) = FILE_EDIT_TOOLS.iter().find(|(name, _)| *name == tool)?;
    let patch = (tool == PATCH_TOOL)
        .then(|| args.get("command").and_then(Value::as_str))
        .flatten()
        .map(patch_paths)
        .into_iter()
        .flatten();
    fields
        .iter()
        .filter_map(|f| args.get(*f).and_then(Value::as_str))
        .chain(patch)
        .find_map(|path| guard.protects(path).map(|what| (path, what)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_as_the_shell_reaches_them() {
        let cases: &[(Option<&str>, &str, Option<&str>)] = &[
            // Unchanged words: nothing to look at again.
            (None, "settings.json", None),
            (None, "~/.claude/settings.json", None),
            (None, "/etc/hosts", None),
            (Some("/tmp"), "/etc/hosts", None),
            (Some("x"), "~/notes", None),
            (Some("x"), "$HOME/notes", None),
            (None, "https://example.com/x", None),
            (None, "s/a/b/", None),
            // Spellings resolved as text, kept when they reach a guard path.
            (
                None,
                ".claude//settings.json",
                Some(".claude/settings.json"),
            ),
            (None, "./a/./.toolgate.toml", Some("a/.toolgate.toml")),
            (
                None,
                "a/../../.codex/config.toml",
                Some("../.codex/config.toml"),
            ),
            (None, "/../home/me/.claude/", Some("/home/me/.claude")),
            (None, "~/./.claude", Some("~/.claude")),
            (None, "$HOME/x/../.claude", Some("$HOME/.claude")),
            (None, "a//b", None),
            (None, ".claude/agents/../notes.md", None),
            // From where a `cd` moved.
            (
                Some("~/.claude"),
                "settings.json",
                Some("~/.claude/settings.json"),
            ),
            (
                Some(".claude/agents"),
                "../settings.json",
                Some(".claude/settings.json"),
            ),
            (Some("~/.claude"), "*", Some("~/.claude/*")),
            (Some("~/.claude"), "agents/old.md", None),
            (Some("/srv"), "settings.json", None),
        ];
        for &(cd, word, want) in cases {
            assert_eq!(as_reached(cd, word).as_deref(), want, "{cd:?} {word:?}");
        }
    }

    #[test]
    fn every_protected_path_starts_where_the_quick_check_looks() {
        for p in PROTECTED {
            let first = p.parts.first().copied().unwrap_or_default();
            assert!(
                !first.is_empty() && !first.contains(['*', '?', '[']),
                "{:?}",
                p.parts
            );
        }
        assert!(could_start_protected(".claude") && could_start_protected("etc"));
        assert!(could_start_protected("*") && could_start_protected("$XDG_CONFIG_HOME"));
        assert!(!could_start_protected(".git") && !could_start_protected("src"));
        // The slash-by-slash reading of `needs_cleaning` is the split one.
        let split_form = |p: &str| {
            let b = p.as_bytes();
            b.contains(&b'/')
                && (b
                    .split(|&c| c == b'/')
                    .skip(1)
                    .any(|c| matches!(c, b"" | b"." | b".."))
                    || b.starts_with(b"./"))
        };
        let parts = ["", ".", "..", "...", "a", ".a", "..a", "a.", "é"];
        for x in parts {
            for y in parts {
                for z in parts {
                    for p in [
                        format!("{x}/{y}"),
                        format!("{x}/{y}/{z}"),
                        format!("/{x}{y}/{z}"),
                        format!("{x}{y}{z}"),
                    ] {
                        assert_eq!(needs_cleaning(&p), split_form(&p), "{p:?}");
                    }
                }
            }
        }
        // The byte pass lets through every component the full check would.
        for path in [
            ".claude",
            "a/.claude",
            "etc",
            "/etc/x",
            "$XDG_CONFIG_HOME/t",
            "a/*",
            "x?",
            "[ab]",
        ] {
            assert!(may_start_protected(path), "{path}");
        }
        for path in [
            "src/main.rs",
            "",
            "a/b.c",
            "/usr/local/bin",
            "docs/index.md",
        ] {
            assert!(!may_start_protected(path), "{path}");
            assert!(!path.split('/').any(could_start_protected), "{path}");
        }
        // A glob only when it matches a first component as the shell would.
        for glob in [".c*", ".claude*", "?tc", "e[t]c", ".[ck]*", ".*"] {
            assert!(could_start_protected(glob), "{glob}");
        }
        for glob in ["*.txt", "?claude", "src*", "*.md", "[.]claude"] {
            assert!(!could_start_protected(glob), "{glob}");
        }
        // …and the whole check agrees: what a glob can reach is found, and
        // a glob that reaches nothing is let go.
        let g = GuardPaths::default();
        for (path, want) in [
            ("./.c*/settings.json", true),
            (".claude/*", true),
            ("~/.config/toolgate/*", true),
            ("/etc/w*/hooks.json", true),
            ("./*.txt", false),
            ("src/*/settings.json", false),
            ("docs/*.md", false),
        ] {
            assert_eq!(g.protects(path).is_some(), want, "{path}");
        }
    }

    #[test]
    fn paths_are_cleaned_as_text() {
        for (path, want) in [
            ("a//b", "a/b"),
            ("./a/./b/", "a/b"),
            ("a/../../b", "../b"),
            ("/../etc", "/etc"),
            ("~/./x", "~/x"),
            ("~/x/..", "~"),
            ("$HOME/x/../y", "$HOME/y"),
            ("a/..", "."),
            ("/", "/"),
        ] {
            assert_eq!(lexically_clean(path), want, "{path:?}");
        }
        for unchanged in ["a", ".", "..", "~", "$HOME", "a/b", "/x/y"] {
            assert!(!needs_cleaning(unchanged) || lexically_clean(unchanged) == unchanged);
        }
    }

    #[test]
    fn protected_paths() {
        let g = GuardPaths {
            xdg_config_home: Some("/cfg".into()),
            xdg_state_home: Some("/st/".into()),
        };
        for path in [
            "~/.claude/settings.json",
            "$HOME/.claude/settings.local.json",
            ".claude/settings.json",
            "./.claude//settings.json",
            ".claude/agents/../settings.json",
            "C:\\Users\\me\\.claude\\settings.json",
            "~/.claude",
            "~/.claude/",
            "~/.claude/*",
            "~/.claude/s*.json",
            "~/.codex/config.toml",
            "~/.gemini/settings.json",
            "~/.qwen/settings.json",
            "~/.copilot/hooks/toolgate.json",
            ".github/hooks/guard.json",
            ".github",
            "~/.cline/hooks/PreToolUse",
            ".clinerules/hooks",
            "~/.config/opencode/plugin/toolgate.js",
            ".opencode/plugin",
            "~/.cursor/hooks.json",
            ".windsurf/hooks.json",
            "~/.codeium/windsurf/hooks.json",
            "~/.config/toolgate/config.toml",
            "~/.config",
            "$XDG_CONFIG_HOME/toolgate/config.toml",
            "${XDG_CONFIG_HOME}/toolgate",
            "/cfg/toolgate/config.toml",
            "/cfg",
            "/st/toolgate/decisions.jsonl",
            "/srv/app/.toolgate.toml",
            "~/.local/state/toolgate/log.jsonl",
            "~/.*",
        ] {
            assert!(g.protects(path).is_some(), "{path:?} should be protected");
        }
        for path in [
            "src/main.rs",
            "~/.claude/agents/reviewer.md",
            "~/.claude/settings.json.bak",
            "~/.claude/CLAUDE.md",
            "~/.codex/sessions/x.jsonl",
            ".github/workflows/ci.yml",
            "~/.config/nvim/init.lua",
            "/cfgx/toolgate",
            "toolgate.toml",
            "~/*",
            "*.json",
            "README.md",
            "/etc",
            "/etc/hosts",
        ] {
            assert!(
                g.protects(path).is_none(),
                "{path:?} should not be protected"
            );
        }
    }

    #[test]
    fn wildcards() {
        for (pattern, text, expected) in [
            ("settings*.json", "settings.json", true),
            ("settings*.json", "settings.local.json", true),
            ("settings*.json", "settings.json.bak", false),
            ("*", ".hidden", false),
            (".*", ".claude", true),
            ("s?ttings.json", "settings.json", true),
            ("[st]ettings.json", "settings.json", true),
        ] {
            assert_eq!(
                wildcard(pattern.as_bytes(), text.as_bytes()),
                expected,
                "{pattern:?} vs {text:?}"
            );
        }
    }
}
