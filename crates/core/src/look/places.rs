//! Where a path is: the project, a system place, a home directory, the
//! temporary directory. Pure path logic (no I/O), so that it is tested on
//! every platform with Windows and macOS path shapes alike.

use std::path::{Component, Path, PathBuf};

/// The places a look tells apart.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Places {
    /// The project: the git work tree holding the working directory (or
    /// the directory the client names as its project). `None` when the
    /// working directory is no project (a home, or a folder inside a
    /// home's config or credential folders).
    pub project: Option<PathBuf>,
    /// Home directories known by name (`$HOME`, the user's profile).
    pub homes: Vec<PathBuf>,
    /// Temporary directories (`/tmp`, `$TMPDIR`).
    pub temp: Vec<PathBuf>,
}

/// What a place is, for a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Inside the project: readable when the look finds no secret.
    Project,
    /// A system place (`/usr`, `/opt`, `/etc`, `/var/log`, the temporary
    /// directory, a few `/proc` files of the machine): readable when the
    /// look finds no secret.
    System,
    /// A home directory outside the project, or anywhere else: private,
    /// left to the row's unknown answer.
    Private,
    /// A kernel interface that names the looking process rather than the
    /// command's (`/proc/self`, `/dev/fd`) or another process's memory and
    /// environment: never read.
    Unreadable,
}

/// Top-level folders of a Unix system whose files are the system's own.
const SYSTEM_ROOTS: &[&str] = &["usr", "opt", "etc", "bin", "sbin", "lib", "lib64", "lib32"];

/// Files of `/proc` that describe the machine, not a process.
const PROC_MACHINE_FILES: &[&str] = &[
    "cpuinfo",
    "meminfo",
    "version",
    "uptime",
    "loadavg",
    "stat",
    "filesystems",
    "mounts",
    "partitions",
    "swaps",
    "diskstats",
    "devices",
];

impl Places {
    /// Which place `path` (absolute, links already resolved; a `..` left
    /// in it is applied lexically) is.
    pub fn place_of(&self, path: &Path) -> Place {
        let normal = lexical(path);
        let path = normal.as_path();
        let parts = components(path);
        let first = parts.first().map(String::as_str);
        match first {
            Some("proc") => {
                return match parts.get(1).map(String::as_str) {
                    Some(f) if parts.len() == 2 && PROC_MACHINE_FILES.contains(&f) => Place::System,
                    _ => Place::Unreadable,
                };
            }
            Some("dev" | "sys") => return Place::Unreadable,
            _ => {}
        }
        if let Some(project) = &self.project {
            if path.starts_with(project) {
                return Place::Project;
            }
        }
        // A home first: one kept under the temporary directory (as in
        // containers and CI) is still private.
        if self.homes.iter().any(|h| path.starts_with(h)) || is_home_shaped(&parts) {
            return Place::Private;
        }
        if self.temp.iter().any(|t| path.starts_with(t)) {
            return Place::System;
        }
        if first.is_some_and(|f| SYSTEM_ROOTS.contains(&f))
            || parts.starts_with(&["var".into(), "log".into()])
        {
            return Place::System;
        }
        Place::Private
    }
}

/// `path` with `.` and `..` applied to the components before them, as
/// `Path::starts_with` does not (`/p/../home` does start with `/p`).
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A path's normal components, as text (a Windows prefix as its drive
/// letter, lower-cased: `C:\Users\x` is `c`, `users`, `x`).
pub fn components(path: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for c in path.components() {
        match c {
            Component::Prefix(p) => {
                let text = p.as_os_str().to_string_lossy();
                out.push(text.trim_end_matches(':').to_ascii_lowercase());
            }
            Component::Normal(n) => out.push(n.to_string_lossy().into_owned()),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir => {}
        }
    }
    out
}

/// Whether a path lies in a home directory by its shape: `/home/NAME`,
/// `/root`, macOS `/Users/NAME`, Windows `C:\Users\NAME` and its Git Bash
/// (`/c/Users/NAME`) and WSL (`/mnt/c/Users/NAME`) spellings.
pub fn is_home_shaped(parts: &[String]) -> bool {
    let p: Vec<&str> = parts.iter().map(String::as_str).collect();
    let users = |s: &str| s.eq_ignore_ascii_case("users");
    let drive = |s: &str| s.len() == 1 && s.bytes().all(|b| b.is_ascii_alphabetic());
    match p.as_slice() {
        ["root", ..] => true,
        ["home", _, ..] => true,
        [u, _, ..] if users(u) => true,
        [d, u, _, ..] if drive(d) && users(u) => true,
        ["mnt", d, u, _, ..] if drive(d) && users(u) => true,
        _ => false,
    }
}

/// Whether a working directory can be a project: not a home directory
/// itself, and not inside a hidden folder of a home (`~/.config/gh`,
/// `~/.kaggle`, `~/.aws`), where every credential store is a relative
/// path away.
pub fn can_be_project(cwd: &Path, homes: &[PathBuf]) -> bool {
    let parts = components(cwd);
    for home in homes {
        if let Ok(rest) = cwd.strip_prefix(home) {
            return rest
                .components()
                .next()
                .is_some_and(|first| !first.as_os_str().to_string_lossy().starts_with('.'));
        }
    }
    // A home known only by its shape: `/home/x` is one, `/home/x/proj`
    // may be a project, `/home/x/.config/y` is not.
    let home_len = home_len_by_shape(&parts);
    match home_len {
        Some(n) => parts.get(n).is_some_and(|first| !first.starts_with('.')),
        None => !parts.is_empty(),
    }
}

/// How many components a home-shaped path's home takes (`/home/x`: 2).
fn home_len_by_shape(parts: &[String]) -> Option<usize> {
    let p: Vec<&str> = parts.iter().map(String::as_str).collect();
    let users = |s: &str| s.eq_ignore_ascii_case("users");
    let drive = |s: &str| s.len() == 1 && s.bytes().all(|b| b.is_ascii_alphabetic());
    match p.as_slice() {
        ["root", ..] => Some(1),
        ["home", _, ..] => Some(2),
        [u, _, ..] if users(u) => Some(2),
        [d, u, _, ..] if drive(d) && users(u) => Some(3),
        ["mnt", d, u, _, ..] if drive(d) && users(u) => Some(4),
        _ => None,
    }
}

/// A working directory as a payload may spell it, as a path this system
/// reads: Windows drive paths (`C:\x`, `C:/x`) and their Git Bash form
/// (`/c/x`) are kept as written where the platform reads them; on a Unix
/// system a `C:\…` directory is not one it can look at (`None`).
pub fn native_dir(cwd: &str) -> Option<PathBuf> {
    let b = cwd.as_bytes();
    let drive = b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    if cfg!(windows) {
        return Some(PathBuf::from(cwd.replace('/', "\\")));
    }
    if drive || cwd.contains('\\') {
        return None;
    }
    cwd.starts_with('/').then(|| PathBuf::from(cwd))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(p: &str) -> Vec<String> {
        p.split(['/', '\\'])
            .filter(|s| !s.is_empty())
            .map(|s| s.trim_end_matches(':').to_ascii_lowercase())
            .collect()
    }

    #[test]
    fn homes_are_known_by_their_shape_on_every_platform() {
        for home in [
            "/home/ann/proj",
            "/root/x",
            "/Users/ann/Library/Keychains",
            "C:\\Users\\ann\\AppData",
            "C:/Users/ann/.aws",
            "/c/Users/ann/src",
            "/mnt/c/Users/ann/.kaggle",
        ] {
            assert!(is_home_shaped(&parts(home)), "{home}");
        }
        for other in [
            "/usr/share/doc",
            "/srv/app",
            "/mnt/data/x",
            "/home",
            "/Users",
            "/",
        ] {
            assert!(!is_home_shaped(&parts(other)), "{other}");
        }
    }

    #[test]
    fn a_home_or_its_config_folders_are_no_project() {
        let homes = vec![PathBuf::from("/home/ann")];
        for (cwd, project) in [
            ("/home/ann/proj", true),
            ("/home/ann/proj/.github", true),
            ("/home/ann", false),
            ("/home/ann/.config/gh", false),
            ("/home/ann/.kaggle", false),
            ("/home/bob/.aws", false),
            ("/home/bob/work", true),
            ("/Users/bob/.ssh", false),
            ("/Users/bob", false),
            ("/mnt/c/Users/X/.config", false),
            ("/srv/app", true),
            ("/", false),
        ] {
            assert_eq!(can_be_project(Path::new(cwd), &homes), project, "{cwd}");
        }
    }

    #[test]
    fn places_tell_project_system_private_and_unreadable_apart() {
        let places = Places {
            project: Some(PathBuf::from("/home/ann/proj")),
            homes: vec![PathBuf::from("/home/ann")],
            temp: vec![PathBuf::from("/tmp")],
        };
        for (path, want) in [
            ("/home/ann/proj/src/main.rs", Place::Project),
            ("/home/ann/other/notes.txt", Place::Private),
            ("/home/bob/x", Place::Private),
            ("/usr/share/dict/words", Place::System),
            ("/etc/hosts", Place::System),
            ("/var/log/syslog", Place::System),
            ("/tmp/build.log", Place::System),
            ("/proc/cpuinfo", Place::System),
            ("/proc/self/environ", Place::Unreadable),
            ("/proc/1/cmdline", Place::Unreadable),
            ("/dev/fd/3", Place::Unreadable),
            ("/srv/data/x", Place::Private),
            ("/home/ann/proj/../other/x", Place::Private),
            ("/home/ann/proj/./src/../README.md", Place::Project),
        ] {
            assert_eq!(places.place_of(Path::new(path)), want, "{path}");
        }
    }

    #[test]
    fn windows_working_directories_are_read_where_the_platform_reads_them() {
        if cfg!(windows) {
            assert_eq!(native_dir("C:/x/y"), Some(PathBuf::from("C:\\x\\y")));
        } else {
            assert_eq!(native_dir("C:\\Users\\ann\\proj"), None);
            assert_eq!(native_dir("C:/Users/ann/proj"), None);
            assert_eq!(
                native_dir("/c/Users/ann/proj"),
                Some(PathBuf::from("/c/Users/ann/proj"))
            );
            assert_eq!(native_dir("relative/dir"), None);
        }
    }
}
