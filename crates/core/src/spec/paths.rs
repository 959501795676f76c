//! The one path check every file-role argument goes through.
//!
//! A path a safe command reads must stay inside the working directory once
//! `.` and `..` are resolved lexically, must not be a device or `/proc`
//! trick, and must not be a secret by any of the classes of
//! [`secret_class`]. Classification does no I/O, so symbolic links are not
//! followed: a link inside the project that points at a key is the
//! project's own doing.

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
    check_with(path, ctx, tree, true)
}

/// Checks a file of which only metadata is read ([`Role::Meta`](super::format::Role::Meta)):
/// as [`check`], but a secret file may be named. Whether `.env` is there,
/// and how big, reads none of its bytes; the place checks still hold
/// (inside the working directory, no device interface).
pub fn check_metadata(path: &str, ctx: &Context) -> Result<(), String> {
    check_with(path, ctx, false, false)
}

/// [`check`], with the secret classes asked only when `secrets`.
fn check_with(path: &str, ctx: &Context, tree: bool, secrets: bool) -> Result<(), String> {
    if path.is_empty() {
        return Err("an empty path".into());
    }
    if path == "-" {
        return if tree {
            Err("`-` is not a directory to search".into())
        } else {
            Ok(())
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
            return Ok(());
        }
        let Some(cwd) = ctx.cwd else {
            return Err(
                "an absolute path, and the working directory is not known to contain it".into(),
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
            return Err("an absolute path outside the working directory".into());
        }
        parts.extend_from_slice(&abs[cwd_parts.len()..]);
    } else {
        let rel = normalize(path).ok_or("leaves the working directory through `..`")?;
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
            return Err(
                "searches the whole working directory, where secrets such as `.env` live".into(),
            );
        }
        if let Some(hidden) = parts.iter().find(|p| p.starts_with('.')) {
            return Err(format!(
                "searches inside the hidden directory `{hidden}`, where tools keep secrets"
            ));
        }
    }
    Ok(())
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
    if let Some(secret) = SECRET_NAMES
        .iter()
        .chain(SECRET_DIRS)
        .find(|s| glob_can_match(name.as_bytes(), s.as_bytes()))
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

/// A list of words sorted at compile time, for a membership test by
/// binary search: a path's components are each asked against the lists
/// below, and a search of one in order cost a scan of the shared corpus
/// millions of instructions. The lists stay in the order they are written
/// in, grouped as they are documented.
struct SortedWords<const N: usize>([&'static str; N]);

impl<const N: usize> SortedWords<N> {
    /// `list`, sorted by length and then by bytes: most words asked are
    /// settled by their length alone, with no byte compared.
    const fn of(list: &[&'static str]) -> SortedWords<N> {
        let mut out = [""; N];
        let mut i = 0;
        while i < N {
            out[i] = list[i];
            // Insertion: move it down past every greater word.
            let mut j = i;
            while j > 0 && bytes_less(out[j].as_bytes(), out[j - 1].as_bytes()) {
                let t = out[j];
                out[j] = out[j - 1];
                out[j - 1] = t;
                j -= 1;
            }
            i += 1;
        }
        SortedWords(out)
    }

    fn contains(&self, word: &str) -> bool {
        let key = (word.len(), word.as_bytes());
        self.0
            .binary_search_by(|w| (w.len(), w.as_bytes()).cmp(&key))
            .is_ok()
    }
}

const fn bytes_less(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return a.len() < b.len();
    }
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

/// The bytes that end some word of `list`: a name that ends in none of them
/// ends with no word of it.
const fn last_bytes(list: &[&str]) -> [bool; 256] {
    let mut out = [false; 256];
    let mut i = 0;
    while i < list.len() {
        let b = list[i].as_bytes();
        out[b[b.len() - 1] as usize] = true;
        i += 1;
    }
    out
}

/// The bytes that start some word of `list`.
const fn first_bytes(list: &[&str]) -> [bool; 256] {
    let mut out = [false; 256];
    let mut i = 0;
    while i < list.len() {
        out[list[i].as_bytes()[0] as usize] = true;
        i += 1;
    }
    out
}

const SORTED_SECRET_DIRS: SortedWords<{ SECRET_DIRS.len() }> = SortedWords::of(SECRET_DIRS);
const SORTED_SECRET_NAMES: SortedWords<{ SECRET_NAMES.len() }> = SortedWords::of(SECRET_NAMES);
const SORTED_CODE_SUFFIXES: SortedWords<{ CODE_SUFFIXES.len() }> = SortedWords::of(CODE_SUFFIXES);
const SECRET_SUFFIX_ENDS: [bool; 256] = last_bytes(SECRET_SUFFIXES);
const SECRET_WORD_STARTS: [bool; 256] = first_bytes(SECRET_WORDS);

/// Whether `name` ends with a secret file's suffix.
fn has_secret_suffix(name: &str) -> bool {
    name.as_bytes()
        .last()
        .is_some_and(|&b| SECRET_SUFFIX_ENDS[usize::from(b)])
        && SECRET_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Secret directories: anything below them is a secret.
const SECRET_DIRS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
    ".terraform.d",
    ".minikube",
    ".gcloud",
    "gcloud",
    ".vault",
    ".subversion",
    ".claude",
    ".codex",
    ".gemini",
    ".envs",
    ".password-store",
    ".m2",
    ".bundle",
    ".gradle",
    "rclone",
    ".oci",
    ".ngrok2",
    "github-copilot",
    "glab-cli",
    "sops",
    "wireguard",
    "system-connections",
    "sudoers.d",
    "secrets",
];

/// Secret file names, exact (lowercase).
const SECRET_NAMES: &[&str] = &[
    ".netrc",
    "_netrc",
    ".pgpass",
    ".my.cnf",
    ".mylogin.cnf",
    ".git-credentials",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".dockercfg",
    ".boto",
    ".s3cfg",
    ".htpasswd",
    ".vault-token",
    ".terraformrc",
    "terraform.rc",
    "credentials.tfrc.json",
    "auth.json",
    "kubeconfig",
    "master.key",
    "application_default_credentials.json",
    "wp-config.php",
    "shadow",
    "gshadow",
    "sudoers",
    ".lesshst",
    ".viminfo",
    "secring.gpg",
    "keychain-db",
    ".dev.vars",
    ".flaskenv",
    "dotenv",
    ".authinfo",
    ".authinfo.gpg",
    "htpasswd",
    ".vault_pass",
    ".vault-password",
    "local.settings.json",
    "key.json",
    "logins.json",
    "key4.db",
    "key3.db",
    "wallet.dat",
    ".histfile",
    ".gitconfig",
    ".databrickscfg",
    "admin.conf",
    "k3s.yaml",
    "debian.cnf",
    "hub",
];

/// Suffixes of secret files (lowercase): keys, keystores, state that holds
/// credentials, histories.
const SECRET_SUFFIXES: &[&str] = &[
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".p8",
    ".jks",
    ".keystore",
    ".kdbx",
    ".ppk",
    ".gpg",
    ".age",
    ".kubeconfig",
    ".tfstate",
    ".tfstate.backup",
    ".tfvars",
    ".tfvars.json",
    "_history",
    "-history",
    ".keytab",
    "_key",
    "-key",
    "-key.json",
    "_key.json",
];

/// Words that make a data file's name a secret's, at word boundaries.
const SECRET_WORDS: &[&str] = &[
    "secret",
    "secrets",
    "credential",
    "credentials",
    "creds",
    "password",
    "passwords",
    "passwd",
    "token",
    "tokens",
    "apikey",
    "apikeys",
    "api_key",
    "api-key",
    "private_key",
    "private-key",
    "privkey",
];

/// Source and documentation files are code about secrets, not secrets:
/// `src/auth/token.rs`, `docs/passwords.md`.
const CODE_SUFFIXES: &[&str] = &[
    ".rs", ".go", ".py", ".rb", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".java", ".kt",
    ".scala", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".swift", ".php", ".md", ".rst", ".html",
    ".css", ".scss", ".vue", ".svelte", ".ex", ".exs", ".erl", ".hs", ".ml", ".lua", ".sh",
    ".test",
];

/// The secret class a path falls in, if any. Names are compared in
/// lowercase: on case-insensitive file systems `.ENV` is `.env`.
///
/// The classes: env files and their backups (`.env`, `.env.local`,
/// `.env.bak`, `prod.env`, `.envrc`); private keys and keystores (`id_rsa`,
/// `*.pem`, `*.key`, `*.p12`, …); credential stores of tools (`.netrc`,
/// `.pgpass`, `.my.cnf`, `.npmrc`, `.pypirc`, `.git-credentials`,
/// `auth.json`, `kubeconfig`, …); anything in a credentials directory
/// (`.ssh`, `.aws`, `.kube`, `.docker`, `.gnupg`, gcloud's, agents' own
/// state); infrastructure state and variables (`*.tfstate`, `*.tfvars`);
/// shell and client histories (`*_history`); and data files whose name has
/// a secret's word in it (`secrets.yaml`, `api_token.txt`,
/// `db-credentials.json`), but not source files (`token.rs`).
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
/// order. It allocates only for a component with upper-case letters, so
/// that a caller can hand it a path's `split('/')` as it is.
fn secret_class_of<'p>(
    parts: impl IntoIterator<Item = &'p str>,
    by_word: bool,
) -> Option<&'static str> {
    let mut parts = parts.into_iter().peekable();
    // The component before this one, and whether any before it is a git
    // directory (`.git`, `x.git`, in any letter case).
    let mut prev: Option<&str> = None;
    let mut in_git = false;
    while let Some(part) = parts.next() {
        let last = parts.peek().is_none();
        let lowered;
        let lower = if part.bytes().any(|b| b.is_ascii_uppercase()) {
            lowered = part.to_ascii_lowercase();
            lowered.as_str()
        } else {
            part
        };
        // A backup is what it backs up: `server.key.orig`, `cert.p12.bak`.
        let lower = strip_backup(lower);
        if last {
            return last_class(lower, prev, in_git, by_word);
        }
        if SORTED_SECRET_DIRS.contains(lower) {
            return Some("a credentials directory");
        }
        let b = part.as_bytes();
        in_git |= b.len() >= 4 && b[b.len() - 4..].eq_ignore_ascii_case(b".git");
        prev = Some(part);
    }
    None
}

/// The secret class of a path's last component, `lower` (in lower case,
/// its backup suffixes stripped), after the component `prev`, below a git
/// directory or not.
fn last_class(
    lower: &str,
    prev: Option<&str>,
    in_git: bool,
    by_word: bool,
) -> Option<&'static str> {
    // git's config, in any letter case, in a submodule's store
    // (`.git/modules/lib/config`) or a bare repository (`x.git/config`).
    if lower == "config" && in_git {
        return Some("git's config, whose remote URLs and headers can hold tokens");
    }
    if lower == "hosts.yml" && prev == Some("gh") {
        return Some("the GitHub CLI's token store");
    }
    if SORTED_SECRET_DIRS.contains(lower) {
        return Some("a credentials directory");
    }
    if is_env_file(lower) {
        return Some("an environment file");
    }
    if is_key_name(lower) {
        return Some("a private key");
    }
    if SORTED_SECRET_NAMES.contains(lower) {
        return Some("a credential store");
    }
    if has_secret_suffix(lower) {
        return Some("a key, credential state or history file");
    }
    if lower.ends_with("history") && lower.starts_with('.') {
        return Some("a history file");
    }
    if lower.starts_with("service-account") && lower.ends_with(".json") {
        return Some("a service-account key");
    }
    if lower == "config.json" && prev.is_some_and(|p| p.eq_ignore_ascii_case(".docker")) {
        return Some("a credential store");
    }
    // Every code suffix is a `.` and no other: a name ends with one just
    // when its last `.ext` is one.
    let code = lower
        .rfind('.')
        .is_some_and(|dot| SORTED_CODE_SUFFIXES.contains(&lower[dot..]));
    if by_word && !code && has_secret_word(lower) {
        return Some("a file named for a secret");
    }
    None
}

/// Whether `.ext` is the suffix of a source or documentation file, which
/// a secret never is named with.
pub fn is_source_suffix(suffix: &str) -> bool {
    SORTED_CODE_SUFFIXES.contains(suffix)
}

/// A name without the suffixes editors and people give backups, and
/// those of compressed copies and archives: a compressed secret is a
/// secret (`zcat server.key.gz` prints the key), and gzip and unzip open
/// `NAME.gz`, `NAME.zip` when NAME is missing, which must be judged as
/// NAME is. (`name` is in lower case.)
fn strip_backup(name: &str) -> &str {
    const BACKUPS: &[&str] = &[
        ".bak", ".orig", ".old", ".save", ".backup", ".swp", "~", "-", ".gz", ".z", "-z", ".bz2",
        ".xz", ".lzma", ".lz", ".zst", ".lz4", ".tar", ".tgz", ".tbz2", ".txz", ".zip", ".7z",
    ];
    let mut name = name;
    while let Some(b) = BACKUPS
        .iter()
        .find(|b| name.len() > b.len() && name.ends_with(*b))
    {
        name = &name[..name.len() - b.len()];
    }
    name
}

/// A name with the suffix of a source file (`.test`, which env files for
/// tests carry too, aside).
fn is_code_name(name: &str) -> bool {
    // Every source suffix is one `.ext`: the last one settles it.
    name.rfind('.')
        .map(|dot| &name[dot..])
        .is_some_and(|ext| ext != ".test" && SORTED_CODE_SUFFIXES.contains(ext))
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

fn is_env_file(name: &str) -> bool {
    // Source files are code (`env.py` is alembic's, `settings.env.ts` a
    // module), unless they are dot-env files themselves (`.env.sh`).
    if is_code_name(name) && !name.starts_with(".env") {
        return false;
    }
    name.starts_with(".env")
        || name.ends_with(".env")
        || super::content::has(name, ".env.")
        || super::content::has(name, ".env~")
        || name == "env"
        || name.starts_with("env.")
}

fn is_key_name(name: &str) -> bool {
    const KEYS: &[&str] = &["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_xmss"];
    KEYS.iter().any(|k| name.starts_with(k)) && !name.ends_with(".pub") && !is_code_name(name)
}

/// Whether a secret's word stands in `name` between word boundaries (a
/// byte that is no ASCII letter or digit, or an end): one pass over the
/// places where a word may start, the words compared there.
fn has_secret_word(name: &str) -> bool {
    let b = name.as_bytes();
    (0..b.len()).any(|start| {
        (start == 0 || !b[start - 1].is_ascii_alphanumeric())
            && SECRET_WORD_STARTS[usize::from(b[start])]
            && SECRET_WORDS.iter().any(|w| {
                let end = start + w.len();
                b[start..].starts_with(w.as_bytes())
                    && (end == b.len() || !b[end].is_ascii_alphanumeric())
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_CWD: Context = Context { cwd: None };

    /// The sorted sets hold exactly their lists, in order, and answer as
    /// a search of the list does.
    #[test]
    fn sorted_sets_are_their_lists() {
        fn same<const N: usize>(sorted: &SortedWords<N>, list: &[&str]) {
            let mut want = list.to_vec();
            want.sort_by_key(|w| (w.len(), *w));
            assert_eq!(sorted.0.to_vec(), want);
            for w in list {
                assert!(sorted.contains(w), "{w}");
                let longer = format!("{w}x");
                assert_eq!(sorted.contains(&longer), list.contains(&longer.as_str()));
            }
            for other in ["", "a", "src", "~", "zzzz", ".en", ".envs.", "id_rsa"] {
                assert_eq!(sorted.contains(other), list.contains(&other), "{other}");
            }
        }
        same(&SORTED_SECRET_DIRS, SECRET_DIRS);
        same(&SORTED_SECRET_NAMES, SECRET_NAMES);
        same(&SORTED_CODE_SUFFIXES, CODE_SUFFIXES);
        for name in [
            "x.pem",
            "a_history",
            "k-key.json",
            "main.rs",
            "notes",
            "x.PEM",
            "",
        ] {
            assert_eq!(
                has_secret_suffix(name),
                SECRET_SUFFIXES.iter().any(|s| name.ends_with(s)),
                "{name}"
            );
        }
    }

    /// The secret check as it was first written (collecting the parts,
    /// lowercasing each into a new string), for the one in use to be
    /// compared with.
    fn reference_class(parts: &[&str], by_word: bool) -> Option<&'static str> {
        for (i, part) in parts.iter().enumerate() {
            let lower = part.to_ascii_lowercase();
            // A backup is what it backs up: `server.key.orig`, `cert.p12.bak`.
            let lower = strip_backup(&lower).to_string();
            let last = i + 1 == parts.len();
            // git's config, in any letter case, in a submodule's store
            // (`.git/modules/lib/config`) or a bare repository (`x.git/config`).
            let in_git = || {
                parts[..i].iter().any(|p| {
                    let p = p.to_ascii_lowercase();
                    p == ".git" || p.ends_with(".git")
                })
            };
            if last && lower == "config" && in_git() {
                return Some("git's config, whose remote URLs and headers can hold tokens");
            }
            if last && lower == "hosts.yml" && i > 0 && parts[i - 1] == "gh" {
                return Some("the GitHub CLI's token store");
            }
            if SECRET_DIRS.contains(&lower.as_str()) && !last {
                return Some("a credentials directory");
            }
            if SECRET_DIRS.contains(&lower.as_str()) && last {
                return Some("a credentials directory");
            }
            if !last {
                continue;
            }
            if is_env_file(&lower) {
                return Some("an environment file");
            }
            if is_key_name(&lower) {
                return Some("a private key");
            }
            if SECRET_NAMES.contains(&lower.as_str()) {
                return Some("a credential store");
            }
            if SECRET_SUFFIXES.iter().any(|s| lower.ends_with(s)) {
                return Some("a key, credential state or history file");
            }
            if lower.ends_with("history") && lower.starts_with('.') {
                return Some("a history file");
            }
            if lower.starts_with("service-account") && lower.ends_with(".json") {
                return Some("a service-account key");
            }
            if lower == "config.json" && i > 0 && parts[i - 1].eq_ignore_ascii_case(".docker") {
                return Some("a credential store");
            }
            if by_word
                && !CODE_SUFFIXES.iter().any(|s| lower.ends_with(s))
                && reference_secret_word(&lower)
            {
                return Some("a file named for a secret");
            }
        }
        None
    }

    /// The secret-word check as first written: a search per word.
    fn reference_secret_word(name: &str) -> bool {
        let b = name.as_bytes();
        SECRET_WORDS.iter().any(|w| {
            if !crate::spec::content::has(name, w) {
                return false;
            }
            let mut from = 0;
            while let Some(at) = name[from..].find(w) {
                let start = from + at;
                let end = start + w.len();
                let before = start == 0 || !b[start - 1].is_ascii_alphanumeric();
                let after = end == b.len() || !b[end].is_ascii_alphanumeric();
                if before && after {
                    return true;
                }
                from = start + 1;
            }
            false
        })
    }

    /// Paths to try the secret check on: every word of the spec examples
    /// and near misses and of the corpus, each split on `=`, `:` and `,`
    /// too, and each table entry in and below the places that change a
    /// verdict (`.git`, `gh`, `.docker`), in upper case and with a backup
    /// suffix.
    fn secret_probes() -> Vec<String> {
        let mut words: Vec<String> = Vec::new();
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
        let mut texts = crate::taxonomy::embedded_oracle_cases();
        for file in [
            "corpus/core.jsonl",
            "corpus/agent-calls.jsonl",
            "corpus/allow-list-traps.jsonl",
            "corpus/shell-traps.jsonl",
        ] {
            if let Ok(text) = std::fs::read_to_string(format!("{root}/{file}")) {
                texts.push(text);
            }
        }
        for text in &texts {
            for w in text.split(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
                words.push(w.to_string());
                words.extend(w.split(['=', ':', ',']).map(str::to_string));
            }
        }
        let names = SECRET_DIRS
            .iter()
            .chain(SECRET_NAMES)
            .chain(SECRET_WORDS)
            .copied()
            .chain(SECRET_SUFFIXES.iter().map(|s| &s[..]))
            .chain([
                "config",
                "hosts.yml",
                "config.json",
                "id_rsa",
                "env",
                ".env",
                "a.rs",
            ]);
        for name in names {
            for shape in [
                name.to_string(),
                name.to_ascii_uppercase(),
                format!("x{name}"),
                format!("{name}.bak~"),
                format!("{name}.md"),
                format!("my_{name}_x.txt"),
            ] {
                for dir in [
                    "", ".git/", "x.GIT/m/", "gh/", "GH/", ".docker/", ".DOCKER/", "a/b/",
                    ".ssh/x/",
                ] {
                    words.push(format!("{dir}{shape}"));
                    words.push(format!("{shape}/{dir}"));
                    words.push(format!("/{dir}{shape}/y"));
                }
            }
        }
        words.sort();
        words.dedup();
        words
    }

    /// The code-suffix test of a name's last `.ext` stands for `ends_with`
    /// only while every suffix is one `.` and no other.
    #[test]
    fn every_code_suffix_is_one_dot_and_a_word() {
        for s in CODE_SUFFIXES {
            assert!(s.starts_with('.') && s.matches('.').count() == 1, "{s}");
        }
    }

    /// The secret check reads a path's components as they come, without
    /// collecting them or lowercasing the ones in lower case already: it
    /// says what the first form says, of every probe.
    #[test]
    fn the_streaming_secret_check_agrees_with_the_first_form() {
        let probes = secret_probes();
        assert!(probes.len() > 10_000, "{}", probes.len());
        let mut secrets = 0;
        for w in &probes {
            let parts: Vec<&str> = w.split('/').filter(|p| !p.is_empty()).collect();
            for by_word in [true, false] {
                let want = reference_class(&parts, by_word);
                secrets += usize::from(want.is_some());
                assert_eq!(secret_class_of(parts.iter().copied(), by_word), want, "{w}");
            }
            assert_eq!(
                secret_file_class_of_path(w),
                reference_class(&parts, false),
                "{w}"
            );
            assert_eq!(secret_class(&parts), reference_class(&parts, true), "{w}");
            let lower = w.to_ascii_lowercase();
            for name in std::iter::once(lower.as_str()).chain(lower.split('/')) {
                assert_eq!(has_secret_word(name), reference_secret_word(name), "{name}");
            }
        }
        assert!(secrets > 1_000, "{secrets}");
    }

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
