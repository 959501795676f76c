//! The one path check every file-role argument goes through.
//!
//! A path a safe command reads must stay inside the working directory once
//! `.` and `..` are resolved lexically, must not be a device or `/proc`
//! trick, and must not be a secret by any of the classes of
//! [`secret_class`]. Classification does no I/O, so symbolic links are not
//! followed here: the look ([`crate::reach`], and `look` behind its
//! feature) resolves every read before an allow and judges the target.
//! Reads that text alone cannot clear (a search of the whole working
//! directory, a path outside it) are told apart by [`check_reach`] so that
//! a look can clear them.

use crate::secrets::files;

/// Where a command runs, as far as the caller knows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Context<'a> {
    /// The working directory, absolute. `None`: unknown, so only relative
    /// paths can be inside it.
    pub cwd: Option<&'a str>,
}

/// Paths a reader may name outside the working directory: they hold no
/// data (`/dev/null`) or are the command's own standard input. (Not
/// `/dev/zero` or `/dev/urandom`: a reader of those never ends.)
const READ_SINKS: &[&str] = &["/dev/null", "/dev/stdin"];

/// Directories whose files are kernel interfaces or devices: `/proc/self/`
/// and `/dev/fd/` lead anywhere, `/proc/*/environ` prints environments.
const DEVICE_ROOTS: &[&str] = &["proc", "sys", "dev"];

/// Checks a path a command reads (or lists); `tree` when the command reads
/// every file below it.
pub fn check(path: &str, ctx: &Context, tree: bool) -> Result<(), String> {
    match check_reach(path, ctx, tree)? {
        Cleared::Text => Ok(()),
        Cleared::AfterLook(why) => Err(why),
    }
}

/// How a read that [`check_reach`] does not refuse is cleared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cleared {
    /// By its words alone (a file of the project named by a relative path).
    Text,
    /// Only by a look at what it would really read: a search of the whole
    /// working directory or of a hidden folder in it, a path outside the
    /// working directory (a system file, a sibling folder of the project).
    /// Secrets sit below ordinary folders too, so text alone never clears
    /// these; the reason says what a look has to check.
    AfterLook(String),
}

/// [`check`], telling apart the reads that text alone clears from those
/// only a look can clear. A secret's name, a device or kernel interface, a
/// URL, a home directory or a working directory where every secret is a
/// relative path away are refused whatever a look would find.
pub fn check_reach(path: &str, ctx: &Context, tree: bool) -> Result<Cleared, String> {
    reach_with(path, ctx, tree, true)
}

/// Checks a file of which only metadata is read ([`Role::Meta`](super::format::Role::Meta)):
/// as [`check`], but a secret file may be named. Whether `.env` is there,
/// and how big, reads none of its bytes; the place checks still hold
/// (inside the working directory, no device interface).
pub fn check_metadata(path: &str, ctx: &Context) -> Result<(), String> {
    match reach_with(path, ctx, false, false)? {
        Cleared::Text => Ok(()),
        Cleared::AfterLook(why) => Err(why),
    }
}

/// [`check_reach`], with the secret classes asked only when `secrets`.
fn reach_with(path: &str, ctx: &Context, tree: bool, secrets: bool) -> Result<Cleared, String> {
    // Where the platform reads `\` as a separator (Windows, and tools that
    // accept both), `.ssh\id_rsa` is the key: a name a secret check reads
    // either way is a secret either way.
    if secrets && path.contains('\\') {
        let slashed = path.replace('\\', "/");
        if let Some(parts) = normalize(slashed.trim_start_matches('/')) {
            if let Some(class) = secret_class(&parts) {
                return Err(format!(
                    "names a secret ({class}) where `\\` separates folders"
                ));
            }
        }
    }
    if path.is_empty() {
        return Err("an empty path".into());
    }
    if path == "-" {
        return if tree {
            Err("`-` is not a directory to search".into())
        } else {
            Ok(Cleared::Text)
        };
    }
    if super::content::has(path, "://") {
        return Err("a URL, which is fetched from the network".into());
    }
    if path.starts_with('~') {
        return Err("a path in a home directory, outside the working directory".into());
    }
    let mut parts: Vec<&str> = Vec::new();
    if let Some(rest) = path.strip_prefix('/') {
        if !tree && READ_SINKS.contains(&path) {
            return Ok(Cleared::Text);
        }
        let Some(cwd) = ctx.cwd else {
            let abs = normalize(rest).ok_or("an absolute path that climbs above the root")?;
            return outside(
                abs,
                "an absolute path, and the working directory is not known to contain it",
            );
        };
        let abs = normalize(rest).ok_or("an absolute path that climbs above the root")?;
        let cwd_parts = normalize(cwd.trim_start_matches('/'))
            .ok_or("the working directory is not a plain absolute path")?;
        if let Some(first) = abs.first() {
            if DEVICE_ROOTS.contains(first) {
                return Err(format!(
                    "a path under /{first}, a kernel or device interface"
                ));
            }
        }
        if abs.len() < cwd_parts.len() || abs[..cwd_parts.len()] != cwd_parts[..] {
            return outside(abs, "an absolute path outside the working directory");
        }
        parts.extend_from_slice(&abs[cwd_parts.len()..]);
    } else {
        let Some(rel) = normalize(path) else {
            return climbs(path);
        };
        if let Some(cwd) = ctx.cwd {
            let cwd_parts = normalize(cwd.trim_start_matches('/')).unwrap_or_default();
            let first = cwd_parts.first().or(rel.first());
            if let Some(first) = first {
                if DEVICE_ROOTS.contains(first) {
                    return Err(format!(
                        "a path under /{first}, a kernel or device interface"
                    ));
                }
            }
        }
        parts = rel;
    }
    if let Some(cwd) = ctx.cwd {
        // The working directory's own place counts: in `~/.aws` a
        // `config` is the credentials file's neighbour, in `.git` it is
        // git's config; and in the root or a home directory every secret
        // is a short relative path away.
        let cwd_parts = normalize(cwd.trim_start_matches('/')).unwrap_or_default();
        if broad(&cwd_parts) {
            return Err(format!(
                "the working directory `{cwd}` is the root, a home directory or a system directory, where every secret is a relative path away"
            ));
        }
        let full = cwd_parts.iter().chain(&parts).copied();
        if let Some(class) = secret_class_of(full, true).filter(|_| secrets) {
            return Err(format!("names a secret ({class})"));
        }
    }
    if let Some(class) = secret_class(&parts).filter(|_| secrets) {
        return Err(format!("names a secret ({class})"));
    }
    if tree {
        if parts.is_empty() {
            return Ok(Cleared::AfterLook(
                "searches the whole working directory, where secrets such as `.env` live".into(),
            ));
        }
        if let Some(hidden) = parts.iter().find(|p| p.starts_with('.')) {
            return Ok(Cleared::AfterLook(format!(
                "searches inside the hidden directory `{hidden}`, where tools keep secrets"
            )));
        }
    }
    Ok(Cleared::Text)
}

/// A read outside the working directory, at the absolute path `abs`: a
/// secret's name or a kernel interface is refused; anything else only a
/// look can clear (it finds the project around the working directory and
/// tells system places from private ones).
fn outside(abs: Vec<&str>, why: &str) -> Result<Cleared, String> {
    if let Some(first) = abs.first() {
        if DEVICE_ROOTS.contains(first) {
            return Err(format!(
                "a path under /{first}, a kernel or device interface"
            ));
        }
    }
    if let Some(class) = secret_class(&abs) {
        return Err(format!("names a secret ({class})"));
    }
    Ok(Cleared::AfterLook(why.to_string()))
}

/// A relative read that climbs out of the working directory through `..`:
/// a sibling folder of the project, or the project around a working
/// directory below its root. What the climb lands on is a look's to say;
/// a secret's name on the way is refused now.
fn climbs(path: &str) -> Result<Cleared, String> {
    let named: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect();
    if let Some(class) = secret_class(&named) {
        return Err(format!("names a secret ({class})"));
    }
    Ok(Cleared::AfterLook(
        "leaves the working directory through `..`".into(),
    ))
}

/// Checks a directory the shell moves into: a path [`check`] allows, other
/// than `-` (the previous directory, unknown here), that passes through no
/// hidden directory. Later commands name files relative to it, and a
/// secret such as `.git/config` is known by its directory.
pub fn check_workdir(path: &str, ctx: &Context) -> Result<(), String> {
    if path == "-" {
        return Err("moves back to the previous directory, which is not known here".into());
    }
    check(path, ctx, false)?;
    let parts = match (path.strip_prefix('/'), ctx.cwd) {
        (Some(rest), Some(cwd)) => {
            let abs = normalize(rest).unwrap_or_default();
            let base = normalize(cwd.trim_start_matches('/')).unwrap_or_default();
            abs.get(base.len()..)
                .map(<[&str]>::to_vec)
                .unwrap_or_default()
        }
        (Some(_), None) => {
            return Err("an absolute path, and the working directory is not known".into())
        }
        (None, _) => normalize(path).unwrap_or_default(),
    };
    match parts.iter().find(|p| p.starts_with('.')) {
        Some(hidden) => Err(format!(
            "goes through the hidden directory `{hidden}`, whose secrets are known by their directory, which paths relative to it no longer name"
        )),
        None => Ok(()),
    }
}

/// Checks a glob naming files a command reads (`src/*.py`): wildcards only
/// in the last component, which is no hidden name and ends in a literal
/// source-file suffix (`.py`, `.rs`, `.md`, …) that no secret is named
/// with, and a directory that [`check`] allows. Such a glob expands only
/// to source files there (a leading `*` or `?` never matches a leading
/// `.`). Whether it could expand to an option is the caller's question.
pub fn check_glob(path: &str, ctx: &Context) -> Result<(), String> {
    let wild = |s: &str| s.contains(['*', '?', '[']);
    let (dir, name) = match path.rsplit_once('/') {
        Some((dir, name)) => (dir, name),
        None => ("", path),
    };
    if wild(dir) {
        return Err(
            "a glob with wildcards in a directory name, which could lead anywhere below".into(),
        );
    }
    if name.starts_with('.') {
        return Err("a glob of hidden files, where tools keep secrets".into());
    }
    if name.contains('[') {
        // `[[:alpha:]]p-config.php`: a bracket expression can stand for
        // any letter, so no name is out of its reach.
        return Err("a glob with a bracket expression, which could match a secret's name".into());
    }
    let suffix = name.rfind('.').map(|dot| &name[dot..]);
    match suffix {
        Some(s) if !wild(s) && is_code_name(&s.to_ascii_lowercase()) => {}
        _ => {
            return Err(
                "a glob that could match a secret's name (only globs of source files, such as `*.py`, are read)"
                    .into(),
            )
        }
    }
    // Secrets known by their whole name (`wp-config.php`).
    if let Some(secret) =
        files::whole_names().find(|s| glob_can_match(name.as_bytes(), s.as_bytes()))
    {
        return Err(format!("a glob that could match the secret `{secret}`"));
    }
    // The directory as written, with one stand-in name for what matches.
    let probe = if dir.is_empty() && !path.starts_with('/') {
        format!("x{}", suffix.unwrap_or_default())
    } else {
        format!("{dir}/x{}", suffix.unwrap_or_default())
    };
    check(&probe, ctx, false)
}

/// Whether a path names the working directory itself (`.`, `./`, or the
/// absolute working directory), lexically.
pub fn is_cwd(path: &str, ctx: &Context) -> bool {
    match path.strip_prefix('/') {
        Some(rest) => ctx.cwd.is_some_and(|cwd| {
            normalize(rest).is_some_and(|abs| normalize(cwd.trim_start_matches('/')) == Some(abs))
        }),
        None => normalize(path).is_some_and(|rel| rel.is_empty()),
    }
}

/// A working directory no reader's paths are judged in: the root, a home
/// directory itself, `/tmp` itself, and the system's configuration and
/// kernel directories.
fn broad(cwd: &[&str]) -> bool {
    match cwd {
        [] | ["home" | "Users"] | ["home" | "Users", _] | ["root"] | ["tmp"] => true,
        [first, ..] => matches!(
            *first,
            "etc" | "proc" | "sys" | "dev" | "boot" | "run" | "root"
        ),
    }
}

/// The components of a relative path with `.` and `..` resolved, or `None`
/// when `..` climbs above its start.
pub(crate) fn normalize(path: &str) -> Option<Vec<&str>> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out)
}

/// The secret class a path falls in, if any: the kind of the first table of
/// `taxonomy/secrets/files.toml` that names it (see [`files`]). Names are
/// compared in lowercase: on case-insensitive file systems `.ENV` is
/// `.env`.
///
/// The classes: anything in a credentials directory (`.ssh`, `.aws`,
/// `.kube`, `.docker`, `.gnupg`, gcloud's, agents' own state) or a
/// directory of secrets; credential stores of tools by name (`.netrc`,
/// `.pgpass`, `.my.cnf`, `.npmrc`, `.pypirc`, `.git-credentials`,
/// `auth.json`, `kubeconfig`, …); private keys, keystores and vaults by
/// suffix (`*.pem`, `*.key`, `*.p12`, `*.kdbx`, …); infrastructure state
/// and variables (`*.tfstate`, `*.tfvars`); histories (`*_history`); names
/// secret where they sit (`.env*`, `id_rsa*`, `.git/config`,
/// `gh/hosts.yml`, `.m2/settings.xml`, …); and data files whose name has a
/// secret's word in it (`secrets.yaml`, `api_token.txt`,
/// `db-credentials.json`), but not source files (`token.rs`). A backup or
/// compressed copy is what it copies (`server.key.orig`, `id_rsa.tgz`).
pub fn secret_class(parts: &[&str]) -> Option<&'static str> {
    secret_class_of(parts.iter().copied(), true)
}

/// [`secret_class`] without the last class (names with a secret's word):
/// for data that only might be a file name (`find -name passwd` looks for
/// files so named, and prints names).
pub fn secret_file_class(parts: &[&str]) -> Option<&'static str> {
    secret_class_of(parts.iter().copied(), false)
}

/// [`secret_file_class`] of a path as written, by its non-empty
/// components (`.` and `..` left as they are), with nothing collected.
pub fn secret_file_class_of_path(path: &str) -> Option<&'static str> {
    secret_class_of(path.split('/').filter(|p| !p.is_empty()), false)
}

/// The secret class of the path whose components `parts` yields, in
/// order: the kind of the first `taxonomy/secrets/files.toml` table that
/// matches it (see [`files`]). It allocates only for a component with
/// upper-case letters, so that a caller can hand it a path's `split('/')`
/// as it is.
fn secret_class_of<'p>(
    parts: impl IntoIterator<Item = &'p str>,
    by_word: bool,
) -> Option<&'static str> {
    files::kind_of_components(parts, by_word)
}

/// Whether `.ext` is the suffix of a source or documentation file, which
/// a secret never is named with.
pub fn is_source_suffix(suffix: &str) -> bool {
    files::is_code_suffix(suffix)
}

/// A name with the suffix of a source file (`.test`, which env files for
/// tests carry too, aside).
fn is_code_name(name: &str) -> bool {
    // Every source suffix is one `.ext`: the last one settles it.
    name.rfind('.')
        .map(|dot| &name[dot..])
        .is_some_and(|ext| ext != ".test" && files::is_code_suffix(ext))
}

/// Whether a glob (`*`, `?`, `[…]` read as one any character) can match
/// `text`, compared in lowercase.
fn glob_can_match(glob: &[u8], text: &[u8]) -> bool {
    match glob.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|i| glob_can_match(rest, &text[i..])),
        Some((b'[', rest)) => {
            let close = rest.iter().position(|&b| b == b']').map_or(0, |p| p + 1);
            !text.is_empty() && glob_can_match(&rest[close..], &text[1..])
        }
        Some((b'?', rest)) => !text.is_empty() && glob_can_match(rest, &text[1..]),
        Some((&g, rest)) => text
            .first()
            .is_some_and(|&t| t.eq_ignore_ascii_case(&g) && glob_can_match(rest, &text[1..])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_CWD: Context = Context { cwd: None };

    #[test]
    fn relative_paths_stay_inside_after_normalisation() {
        for ok in [
            "src/main.rs",
            "./a",
            "a/../b",
            "a/./b",
            "x/y/../../z",
            "-",
            "/dev/null",
        ] {
            assert_eq!(check(ok, &NO_CWD, false), Ok(()), "{ok}");
        }
        for bad in [
            "../x",
            "a/../../x",
            "/etc/hosts",
            "~/x",
            "~root/x",
            "",
            "./..",
            "/dev/fd/0/../../etc/passwd",
            "/proc/self/environ",
            "/dev/tty",
        ] {
            assert!(check(bad, &NO_CWD, false).is_err(), "{bad}");
        }
    }

    #[test]
    fn absolute_paths_are_inside_only_below_a_known_cwd() {
        let ctx = Context { cwd: Some("/app") };
        assert_eq!(check("/app/src/main.rs", &ctx, false), Ok(()));
        assert_eq!(check("/app", &ctx, false), Ok(()));
        for bad in [
            "/app/../etc/passwd",
            "/apple/x",
            "/etc/passwd",
            "/app/.env",
            "/proc/1/environ",
        ] {
            assert!(check(bad, &ctx, false).is_err(), "{bad}");
        }
        let root = Context { cwd: Some("/") };
        assert!(check("proc/self/environ", &root, false).is_err());
        assert!(check("/dev/fd/3/../../etc/x", &root, false).is_err());
    }

    #[test]
    fn secrets_are_refused_whatever_their_case_or_backup_suffix() {
        for secret in [
            ".env",
            ".ENV",
            ".env.local",
            ".env.bak",
            ".env~",
            "prod.env",
            "config/app.env.old",
            ".envrc",
            "id_rsa",
            "keys/ID_ED25519",
            "server.pem",
            "tls.KEY",
            ".netrc",
            ".pgpass",
            ".my.cnf",
            ".aws/credentials",
            "x/.ssh/config",
            ".kube/config",
            ".docker/config.json",
            "terraform.tfstate",
            "prod.tfvars",
            ".bash_history",
            ".zsh_history",
            "secrets.yaml",
            "api_token.txt",
            "db-credentials.json",
            "service-account-prod.json",
            ".git-credentials",
            "auth.json",
            ".vault-token",
            // Compressed and archived, a secret is still one.
            "server.key.gz",
            "x.pem.xz",
            ".pgpass.bz2",
            "prod.tfvars.lzma",
            ".bash_history.gz",
            ".netrc.Z",
            "x.pem.gz.bak",
            "terraform.tfstate.zst",
            "kubeconfig.lz4",
            "id_rsa.tgz",
            "id_rsa.zip",
            ".env.tar.gz",
        ] {
            assert!(check(secret, &NO_CWD, false).is_err(), "{secret}");
        }
        for plain in [
            "docs/notes.md.gz",
            "data/rows.csv.xz",
            "dist/app.tar.gz",
            "app/config.json",
            "src/tokenizer.py",
            "src/auth/token.rs",
            "docs/passwords.md",
            "environment.ts",
            "id_rsa.pub",
            "Cargo.toml",
            "README.md",
            "src/.gitignore",
        ] {
            assert_eq!(check(plain, &NO_CWD, false), Ok(()), "{plain}");
        }
    }

    #[test]
    fn trees_must_be_named_visible_subdirectories() {
        assert_eq!(check("src", &NO_CWD, true), Ok(()));
        assert_eq!(check("src/app", &NO_CWD, true), Ok(()));
        for bad in [".", "./", "", "src/..", ".git", "src/.hidden", "-"] {
            assert!(check(bad, &NO_CWD, true).is_err(), "{bad}");
        }
    }
}
