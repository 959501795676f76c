//! The client's own permission mode, as its payload names it, and what it
//! changes in toolgate's answer.
//!
//! A person who puts Claude Code in plan mode, or Qwen Code in yolo mode,
//! has said something about the session that toolgate's row should hear:
//!
//! | client mode | safe | destructive | unknown |
//! |---|---|---|---|
//! | plan | the row | deny | deny |
//! | accept edits | the row | the row; a write confined to the project's files: allow | the row; a confined write: allow |
//! | bypass / yolo | the row | deny where the row asks (nobody is asked) | the row |
//! | default, or a value toolgate does not know | the row | the row | the row |
//!
//! *Plan*: the client promised its user that nothing changes, so nothing
//! but a safe call runs, whatever a rule allows. *Accept edits*: the
//! client's own edit tool writes project files unasked, so a shell write
//! that does no more ([`confined_write`]) is let through too, but only
//! where the row left it to the client or asked (guard and balanced
//! modes), never against a rule, a profile or a project policy. *Bypass*:
//! the client asks nobody, so an ask would not stop a destructive call; it
//! is denied. A value toolgate does not know is the client's default:
//! unknown input never widens approval.

use std::path::{Component, Path, PathBuf};

use toolgate_core::gate::{Decision, Verdict};
use toolgate_core::guard_paths::GuardPaths;
use toolgate_core::label::Class;
use toolgate_core::shell::{self, RedirectKind, SimpleCommand, Word};
use toolgate_core::spec::paths::secret_class;

/// A client's permission mode, as far as toolgate's answer depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientMode {
    /// The client's default (and every value toolgate does not know).
    Default,
    /// Claude Code's and Qwen Code's `plan`: nothing may change.
    Plan,
    /// Claude Code's `acceptEdits`, Qwen Code's `auto-edit`: the client's
    /// own edit tool writes project files unasked.
    AcceptEdits,
    /// Claude Code's and Codex's `bypassPermissions`, Qwen Code's `yolo`:
    /// the client asks nobody.
    Bypass,
}

impl ClientMode {
    /// Reads a payload's `permission_mode`.
    ///
    /// ```
    /// use toolgate_agents::hook::client_mode::ClientMode;
    /// assert_eq!(ClientMode::from_payload(Some("plan")), ClientMode::Plan);
    /// assert_eq!(ClientMode::from_payload(Some("acceptEdits")), ClientMode::AcceptEdits);
    /// assert_eq!(ClientMode::from_payload(Some("yolo")), ClientMode::Bypass);
    /// assert_eq!(ClientMode::from_payload(Some("Plan!")), ClientMode::Default);
    /// assert_eq!(ClientMode::from_payload(None), ClientMode::Default);
    /// ```
    pub fn from_payload(mode: Option<&str>) -> ClientMode {
        match mode.map(str::trim) {
            Some("plan") => ClientMode::Plan,
            Some("acceptEdits" | "auto-edit" | "autoEdit" | "auto_edit") => ClientMode::AcceptEdits,
            Some("bypassPermissions" | "yolo") => ClientMode::Bypass,
            _ => ClientMode::Default,
        }
    }
}

/// Row sources whose ask or no opinion the accept-edits mode may turn into
/// an allow: the rows that leave unknown calls to the client or ask about
/// them, not strict's ask-for-everything or restricted's deny.
const EDIT_WIDENABLE: &[&str] = &["mode_guard", "mode_balanced"];

/// The verdict under the client's permission mode `mode` (`name` as the
/// payload spelt it). `commands` are a shell call's commands (none for
/// another tool), `cwd` where they run.
pub fn apply(
    mode: ClientMode,
    name: &str,
    verdict: Verdict,
    commands: &[&str],
    cwd: Option<&str>,
) -> Verdict {
    match mode {
        ClientMode::Default => verdict,
        ClientMode::Plan => {
            let safe =
                verdict.label.class == Class::Safe || verdict.source == "compound_every_part_safe";
            if safe || verdict.decision == Decision::Deny {
                return verdict;
            }
            Verdict {
                decision: Decision::Deny,
                reason: format!(
                    "{} (the client is in {name} mode, where only read-only calls run: denied)",
                    verdict.reason
                ),
                source: "client_plan".into(),
                ..verdict
            }
        }
        ClientMode::Bypass => {
            if verdict.decision != Decision::Ask {
                return verdict;
            }
            Verdict {
                decision: Decision::Deny,
                reason: format!(
                    "{} (the client is in {name} mode and asks nobody, so an ask would not stop it: denied)",
                    verdict.reason
                ),
                ..verdict
            }
        }
        ClientMode::AcceptEdits => {
            let widenable = matches!(verdict.decision, Decision::Ask | Decision::NoOpinion)
                && EDIT_WIDENABLE.contains(&verdict.source.as_str());
            let (Some(cwd), true) = (cwd, widenable && !commands.is_empty()) else {
                return verdict;
            };
            let guard = GuardPaths::from_env();
            let confined = commands
                .iter()
                .all(|c| confined_write(c, Path::new(cwd), &guard).is_ok());
            if !confined {
                return verdict;
            }
            Verdict {
                decision: Decision::Allow,
                reason: format!(
                    "a write confined to the project's own files, which the client's {name} mode \
                     lets its edit tool make unasked: allowed"
                ),
                source: "client_accept_edits".into(),
                ..verdict
            }
        }
    }
}

/// Is `command` a shell write confined to files of the project that holds
/// `cwd` (the git work tree root above it, else `cwd` itself), the kind of
/// change the client's own edit tool makes? `Err` says why not.
///
/// Allowed: `mkdir`, `touch`, `cp` and `mv` between project paths; `sed
/// -i` whose script is only `s///` commands without the `e` or `w` flag;
/// `cat`, `echo`, `printf` and `tee` writing a here-document, a
/// here-string or their words into a project file. Every path is resolved
/// as the kernel would (symlinks followed) and must stay inside the
/// project, outside `.git`, and be neither a secret file nor one of the
/// guard's own files. Never: an interpreter, a delete, an option not
/// listed, a word the shell could change, a read of a file outside these
/// rules, anything but lists and pipelines of such commands.
///
/// ```
/// use std::path::Path;
/// use toolgate_agents::hook::client_mode::confined_write;
/// use toolgate_core::guard_paths::GuardPaths;
/// let g = GuardPaths::default();
/// let here = Path::new("/nonexistent-project");
/// assert!(confined_write("mkdir -p src/new && touch src/new/mod.rs", here, &g).is_ok());
/// assert!(confined_write("sed -i 's/old/new/g' src/main.rs", here, &g).is_ok());
/// assert!(confined_write("sed -i 's/x/id/e' src/main.rs", here, &g).is_err());
/// assert!(confined_write("perl -i -pe 's/a/b/' src/main.rs", here, &g).is_err());
/// assert!(confined_write("rm src/main.rs", here, &g).is_err());
/// assert!(confined_write("cp src/a.rs /tmp/a.rs", here, &g).is_err());
/// ```
pub fn confined_write(command: &str, cwd: &Path, guard: &GuardPaths) -> Result<(), String> {
    if !cwd.is_absolute() {
        return Err("the working directory is not known".into());
    }
    let root = project_root(cwd);
    let script = shell::parse(command);
    if script.error.is_some() || script.limit.is_some() {
        return Err("the command does not parse in full".into());
    }
    if script.structured {
        return Err("more than lists and pipelines of simple commands".into());
    }
    if script.commands.is_empty() {
        return Err("no command".into());
    }
    let place = Place {
        cwd,
        root: &root,
        guard,
    };
    for c in &script.commands {
        one_command(c, &place)?;
    }
    Ok(())
}

/// Where a confined write may land.
struct Place<'a> {
    cwd: &'a Path,
    root: &'a Path,
    guard: &'a GuardPaths,
}

fn one_command(c: &SimpleCommand, place: &Place<'_>) -> Result<(), String> {
    if !c.assignments.is_empty() || c.in_substitution {
        return Err("an assignment or substitution".into());
    }
    if let Some(w) = c.words.iter().find(|w| !w.literal) {
        return Err(format!("`{}` is a word the shell could change", w.text));
    }
    if let Some(stdin) = &c.stdin {
        if !stdin.literal && (stdin.text.contains('$') || stdin.text.contains('`')) {
            return Err("an unquoted here-document that expands".into());
        }
    }
    for r in &c.redirects {
        match r.kind {
            RedirectKind::Duplicate | RedirectKind::HereDoc | RedirectKind::HereString => {}
            k if k.writes() && r.target_is_sink() => {}
            RedirectKind::Write | RedirectKind::Append if r.target.literal => {
                place.check(&r.target.text)?;
            }
            _ => return Err(format!("the redirection to `{}`", r.target.text)),
        }
    }
    let words: Vec<&str> = c.words.iter().map(|w: &Word| w.text.as_str()).collect();
    let Some((&name, args)) = words.split_first() else {
        return Ok(());
    };
    match name {
        "mkdir" => paths_after_options(args, &["-p", "--parents", "-v", "--verbose"], "pv", 1)?
            .iter()
            .try_for_each(|p| place.check(p)),
        "touch" => paths_after_options(args, &["-c", "--no-create"], "c", 1)?
            .iter()
            .try_for_each(|p| place.check(p)),
        "cp" => paths_after_options(
            args,
            &["-r", "-R", "--recursive", "-p", "-v", "-n", "--no-clobber"],
            "rRpvn",
            2,
        )?
        .iter()
        .try_for_each(|p| place.check(p)),
        "mv" => paths_after_options(args, &["-v", "-n", "-f", "--no-clobber"], "vnf", 2)?
            .iter()
            .try_for_each(|p| place.check(p)),
        "tee" => paths_after_options(args, &["-a", "--append"], "a", 1)?
            .iter()
            .try_for_each(|p| place.check(p)),
        "cat" => paths_after_options(args, &[], "", 0)?
            .iter()
            .try_for_each(|p| place.check(p)),
        "echo" | "printf" => Ok(()),
        "sed" => sed_in_place(args)?.iter().try_for_each(|p| place.check(p)),
        other => Err(format!("`{other}` is not one of the confined writers")),
    }
}

/// The paths of `args` after options each of which is in `long` or a
/// bundle of the letters `short`; at least `min` of them. `--` ends the
/// options.
fn paths_after_options<'a>(
    args: &[&'a str],
    long: &[&str],
    short: &str,
    min: usize,
) -> Result<Vec<&'a str>, String> {
    let mut paths = Vec::new();
    let mut options = true;
    for &a in args {
        if options && a == "--" {
            options = false;
        } else if options && a.starts_with('-') && a.len() > 1 {
            let bundle = a.strip_prefix('-').filter(|b| !b.starts_with('-'));
            let ok = long.contains(&a)
                || bundle
                    .is_some_and(|b| !short.is_empty() && b.chars().all(|c| short.contains(c)));
            if !ok {
                return Err(format!("the option `{a}`"));
            }
        } else {
            paths.push(a);
        }
    }
    if paths.len() < min {
        return Err("too few paths".into());
    }
    Ok(paths)
}

/// The files of a `sed -i` whose every script is `s///` commands only.
fn sed_in_place<'a>(args: &[&'a str]) -> Result<Vec<&'a str>, String> {
    let mut in_place = false;
    let mut scripts: Vec<&str> = Vec::new();
    let mut files = Vec::new();
    let mut it = args.iter();
    let mut options = true;
    while let Some(&a) = it.next() {
        if options && a == "--" {
            options = false;
        } else if options && (a == "-i" || a == "--in-place") {
            in_place = true;
        } else if options && (a.starts_with("-i") || a.starts_with("--in-place=")) {
            // A backup suffix: a plain one only (GNU reads `/` and `*` in
            // it as a path).
            let suffix = a.trim_start_matches("--in-place=").trim_start_matches("-i");
            if suffix.contains(['/', '*']) {
                return Err(format!("the backup suffix in `{a}`"));
            }
            in_place = true;
        } else if options && (a == "-e" || a == "--expression") {
            scripts.push(it.next().copied().ok_or("`-e` without a script")?);
        } else if options && matches!(a, "-E" | "-r" | "--regexp-extended" | "-s" | "-z") {
        } else if options && a.starts_with('-') && a.len() > 1 {
            return Err(format!("the sed option `{a}`"));
        } else if scripts.is_empty() {
            scripts.push(a);
        } else {
            files.push(a);
        }
    }
    if !in_place {
        return Err("sed without -i writes nothing".into());
    }
    if files.is_empty() {
        return Err("sed -i without a file".into());
    }
    for s in &scripts {
        substitutions_only(s)?;
    }
    Ok(files)
}

/// Is `script` one or more `s/RE/REPLACEMENT/FLAGS` commands (any
/// delimiter), separated by `;` or newlines, with flags among `g`, `i`,
/// `I`, `m`, `M`, `p` and digits: no address, no other command, no `e`
/// (runs the pattern space) and no `w` (writes a file)?
fn substitutions_only(script: &str) -> Result<(), String> {
    let mut chars = script.chars().peekable();
    let mut any = false;
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ';') {
            chars.next();
        }
        let Some(c) = chars.next() else { break };
        if c != 's' {
            return Err(format!("the sed command `{c}` (only s/// is an edit)"));
        }
        let delim = match chars.next() {
            Some(d) if d != '\\' && d != '\n' && !d.is_alphanumeric() => d,
            _ => return Err("a malformed s command".into()),
        };
        for _ in 0..2 {
            loop {
                match chars.next() {
                    None => return Err("an unterminated s command".into()),
                    Some('\\') => {
                        chars.next();
                    }
                    Some(x) if x == delim => break,
                    Some(_) => {}
                }
            }
        }
        while let Some(&f) = chars.peek() {
            if f == ';' || f == '\n' {
                break;
            }
            if !(matches!(f, 'g' | 'i' | 'I' | 'm' | 'M' | 'p') || f.is_ascii_digit()) {
                return Err(format!("the s flag `{f}`"));
            }
            chars.next();
        }
        any = true;
    }
    if any {
        Ok(())
    } else {
        Err("an empty sed script".into())
    }
}

impl Place<'_> {
    /// Is `path` (as written) inside the project, outside `.git`, and
    /// neither a secret nor a guard file, once resolved?
    fn check(&self, path: &str) -> Result<(), String> {
        if path.is_empty() || path.starts_with('~') || path.starts_with('-') {
            return Err(format!("the path `{path}`"));
        }
        if let Some(what) = self.guard.protects(path) {
            return Err(format!("`{path}` is {what}"));
        }
        let resolved = resolve(&self.cwd.join(path));
        let Ok(inside) = resolved.strip_prefix(self.root) else {
            return Err(format!("`{path}` is outside the project"));
        };
        let parts: Vec<&str> = inside
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => s.to_str(),
                _ => None,
            })
            .collect();
        if parts.iter().any(|p| p.eq_ignore_ascii_case(".git")) {
            return Err(format!("`{path}` is inside .git"));
        }
        if let Some(class) = secret_class(&parts) {
            return Err(format!("`{path}` is a secret file ({class})"));
        }
        if let Some(what) = self.guard.protects(&resolved.to_string_lossy()) {
            return Err(format!("`{path}` is {what}"));
        }
        Ok(())
    }
}

/// The repository root above `cwd` (the first directory holding `.git`),
/// else `cwd`; resolved as the kernel would.
fn project_root(cwd: &Path) -> PathBuf {
    let root = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(cwd);
    resolve(root)
}

/// `path` with `.` and `..` taken out and every symlink along the part
/// that exists followed: what the kernel would open.
fn resolve(path: &Path) -> PathBuf {
    let mut lexical = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                lexical.pop();
            }
            Component::CurDir => {}
            other => lexical.push(other),
        }
    }
    // The longest prefix that exists, resolved; the rest does not exist,
    // so holds no link.
    let mut tail = Vec::new();
    let mut head = lexical.as_path();
    loop {
        if let Ok(real) = head.canonicalize() {
            let mut out = real;
            out.extend(tail.iter().rev());
            return out;
        }
        match (head.parent(), head.file_name()) {
            (Some(parent), Some(name)) => {
                tail.push(name.to_os_string());
                head = parent;
            }
            _ => return lexical,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A throwaway directory, removed when dropped.
    struct Scratch(PathBuf);

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!(
                "toolgate-client-mode-{name}-{}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
            Scratch(dir)
        }

        fn path(&self) -> &Path {
            &self.0
        }
    }

    fn project(name: &str) -> Scratch {
        let dir = Scratch::new(name);
        std::fs::create_dir_all(dir.path().join(".git")).unwrap_or_else(|e| panic!("{e}"));
        std::fs::create_dir_all(dir.path().join("src")).unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    #[test]
    fn confined_writes_and_their_near_misses() {
        let dir = project("near-misses");
        let cwd = dir.path().join("src");
        let g = GuardPaths::default();
        for (command, ok) in [
            ("mkdir -p a/b", true),
            ("touch new.rs", true),
            ("cp main.rs main2.rs", true),
            ("mv old.rs ../lib/new.rs", true),
            ("sed -i 's/a/b/g; s|x|y|' main.rs", true),
            ("sed -i.bak -e 's/a/b/' main.rs", true),
            ("cat > notes.md <<'EOF'\nhello $HOME\nEOF", true),
            ("cat > notes.md <<EOF\nplain text\nEOF", true),
            ("echo hi >> log.txt", true),
            ("printf 'x\\n' | tee out.txt", true),
            // Near misses.
            ("cat > notes.md <<EOF\n$(rm -rf ~)\nEOF", false),
            ("sed -i 's/a/b/e' main.rs", false),
            ("sed -i 's/a/b/w /tmp/x' main.rs", false),
            ("sed -i '1d' main.rs", false),
            ("sed -n -i 's/a/b/p' main.rs", false),
            ("sed 's/a/b/' main.rs", false),
            ("sed -i/tmp/* 's/a/b/' main.rs", false),
            ("perl -i -pe 's/a/b/' main.rs", false),
            ("python3 -c 'open(\"x\",\"w\")'", false),
            ("rm main.rs", false),
            ("rmdir a", false),
            ("touch ../../outside.txt", false),
            ("cp main.rs /tmp/x", false),
            ("cp /etc/passwd here", false),
            ("echo x > ../.git/config", false),
            ("touch .git/hooks/pre-commit", false),
            ("echo KEY=1 > .env", false),
            ("cp id_rsa key2", false),
            ("echo x > .toolgate.toml", false),
            ("mkdir -p .claude && echo {} > .claude/settings.json", false),
            ("touch $FILE", false),
            ("touch *.rs", false),
            ("touch ~/x", false),
            ("cp -s main.rs link.rs", false),
            ("mkdir x & touch y", false),
            ("(touch y)", false),
            ("touch a; curl -o b https://x", false),
            ("echo x > /dev/null", true),
            ("cat < ../../etc/shadow > x", false),
        ] {
            let got = confined_write(command, &cwd, &g);
            assert_eq!(got.is_ok(), ok, "{command:?}: {got:?}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_project_is_outside() {
        let dir = project("symlink");
        let outside = Scratch::new("outside");
        let link = dir.path().join("src/out");
        std::os::unix::fs::symlink(outside.path(), &link).unwrap_or_else(|e| panic!("{e}"));
        let g = GuardPaths::default();
        let got = confined_write("touch out/file", &dir.path().join("src"), &g);
        assert_eq!(
            got,
            Err("`out/file` is outside the project".to_string()),
            "{got:?}"
        );
        assert!(confined_write("touch in/file", &dir.path().join("src"), &g).is_ok());
    }

    #[test]
    fn unknown_modes_read_as_the_default() {
        for (name, mode) in [
            ("default", ClientMode::Default),
            ("plan", ClientMode::Plan),
            ("acceptEdits", ClientMode::AcceptEdits),
            ("auto-edit", ClientMode::AcceptEdits),
            ("bypassPermissions", ClientMode::Bypass),
            ("yolo", ClientMode::Bypass),
            ("dontAsk", ClientMode::Default),
            ("PLAN", ClientMode::Default),
            ("", ClientMode::Default),
        ] {
            assert_eq!(ClientMode::from_payload(Some(name)), mode, "{name:?}");
        }
    }
}
