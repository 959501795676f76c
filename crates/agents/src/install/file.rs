//! Reading a settings file, showing a change as a diff, and writing it so
//! that a client never sees half a file.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::InstallError;

/// Reads a file; `None` when it does not exist.
pub(super) fn read(path: &Path) -> Result<Option<String>, InstallError> {
    match fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InstallError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// A planned change to one file: its text before and after (`None`: no
/// file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The file.
    pub path: PathBuf,
    /// Its text now.
    pub old: Option<String>,
    /// Its text after the change.
    pub new: Option<String>,
    /// The file is a program the client runs (Cline's hook script).
    executable: bool,
    /// The change takes toolgate's hook out again: once it is written, the
    /// backup install made (and the one this change made) goes, so that
    /// no copy of a settings file, which may hold a token, is left behind.
    restores: bool,
}

/// What [`Change::apply`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    /// The file already was as planned.
    Unchanged,
    /// Written; the previous file, if any, is at `backup`.
    Written {
        /// Where the previous text was saved (`None` after an uninstall,
        /// which removes the backup once the file is restored).
        backup: Option<PathBuf>,
    },
    /// Removed (it held only toolgate's hook).
    Removed {
        /// Where the previous text was saved (`None` after an uninstall).
        backup: Option<PathBuf>,
    },
}

impl Change {
    pub(super) fn new(
        path: PathBuf,
        old: Option<String>,
        new: Option<String>,
        executable: bool,
    ) -> Change {
        Change {
            path,
            old,
            new,
            executable,
            restores: false,
        }
    }

    /// A change of a file toolgate owns the edit of (its own config, a
    /// project's `.toolgate.toml`): written as a settings file is.
    pub fn edit(path: PathBuf, old: Option<String>, new: String) -> Change {
        Change::new(path, old, Some(new), false)
    }

    /// The same change, marked as one that takes toolgate's hook out.
    pub(super) fn restoring(self) -> Change {
        Change {
            restores: true,
            ..self
        }
    }

    /// Does the change change nothing?
    pub fn is_noop(&self) -> bool {
        self.old == self.new
    }

    /// Where the previous file is saved: `FILE.toolgate-backup`.
    pub fn backup_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_os_string();
        name.push(".toolgate-backup");
        PathBuf::from(name)
    }

    /// The change as a unified diff (empty when it changes nothing).
    pub fn diff(&self) -> String {
        if self.is_noop() {
            return String::new();
        }
        let name = self.path.display();
        let old_name = if self.old.is_some() {
            name.to_string()
        } else {
            "/dev/null".into()
        };
        let new_name = if self.new.is_some() {
            name.to_string()
        } else {
            "/dev/null".into()
        };
        format!(
            "--- {old_name}\n+++ {new_name}\n{}",
            diff(
                self.old.as_deref().unwrap_or(""),
                self.new.as_deref().unwrap_or("")
            )
        )
    }

    /// Writes the change: the previous file is copied to
    /// [`backup_path`](Change::backup_path) with its mode and owner (a
    /// 0600 file holding an API key gets a 0600 backup), the new text goes
    /// to a temporary file in the same directory (a rename within one
    /// directory is atomic) with the old file's mode and owner, and that
    /// is renamed over the file. A symlinked settings file is edited where
    /// the link points, and the link stays. A file someone made read-only
    /// is refused: that was a choice, and toolgate does not override it.
    pub fn apply(&self) -> Result<Applied, InstallError> {
        if self.is_noop() {
            return Ok(Applied::Unchanged);
        }
        let werr = |path: &Path| {
            let path = path.to_path_buf();
            move |source| InstallError::Write { path, source }
        };
        let is_link = fs::symlink_metadata(&self.path).is_ok_and(|m| m.file_type().is_symlink());
        let target = if is_link {
            fs::canonicalize(&self.path).map_err(werr(&self.path))?
        } else {
            self.path.clone()
        };
        let meta = fs::metadata(&target).ok();
        if let Some(mode) = meta.as_ref().and_then(read_only_mode) {
            return Err(InstallError::ReadOnly { path: target, mode });
        }
        let backup = match &self.old {
            Some(old) => {
                let b = self.backup_path();
                write_like(&b, old.as_bytes(), meta.as_ref()).map_err(werr(&b))?;
                Some(b)
            }
            None => None,
        };
        let Some(new) = &self.new else {
            fs::remove_file(&target).map_err(werr(&target))?;
            if is_link {
                fs::remove_file(&self.path).map_err(werr(&self.path))?;
            }
            return Ok(match backup {
                Some(b) => Applied::Removed {
                    backup: self.keep_backup(b),
                },
                None => Applied::Unchanged,
            });
        };
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&dir).map_err(werr(&dir))?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = dir.join(format!(".{name}.toolgate-tmp-{}", std::process::id()));
        let written = (|| {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(new.as_bytes())?;
            f.sync_all()?;
            drop(f);
            match &meta {
                Some(m) => copy_mode_and_owner(&tmp, m)?,
                None if self.executable => set_executable(&tmp)?,
                None => {}
            }
            fs::rename(&tmp, &target)
        })();
        if let Err(source) = written {
            let _ = fs::remove_file(&tmp);
            return Err(InstallError::Write {
                path: target,
                source,
            });
        }
        Ok(Applied::Written {
            backup: backup.and_then(|b| self.keep_backup(b)),
        })
    }

    /// The backup, unless this change restores the file: then it is
    /// removed, and `None`.
    fn keep_backup(&self, backup: PathBuf) -> Option<PathBuf> {
        if self.restores {
            let _ = fs::remove_file(&backup);
            None
        } else {
            Some(backup)
        }
    }
}

/// The mode of a file nobody may write (no write bit at all), if it is
/// one. (root could write it anyway; the missing bits are the owner's
/// word that it should not change.)
fn read_only_mode(m: &fs::Metadata) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = m.permissions().mode() & 0o7777;
        (m.is_file() && mode & 0o222 == 0).then_some(mode)
    }
    #[cfg(not(unix))]
    {
        m.permissions().readonly().then_some(0o444)
    }
}

/// Writes `bytes` to `path` (replacing it) with the mode and owner of
/// `like`, private from the first byte: the file is created 0600 and only
/// then given `like`'s mode.
fn write_like(path: &Path, bytes: &[u8], like: Option<&fs::Metadata>) -> io::Result<()> {
    let _ = fs::remove_file(path);
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    match like {
        Some(m) => copy_mode_and_owner(path, m),
        None => Ok(()),
    }
}

/// Gives `path` the mode and owner of `like`. The owner is copied only
/// where it differs (root installing into a user's file); a failure to
/// chown is an error, since the file would otherwise change hands.
fn copy_mode_and_owner(path: &Path, like: &fs::Metadata) -> io::Result<()> {
    fs::set_permissions(path, like.permissions())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let now = fs::metadata(path)?;
        if now.uid() != like.uid() || now.gid() != like.gid() {
            std::os::unix::fs::chown(path, Some(like.uid()), Some(like.gid()))?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn set_executable(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> io::Result<()> {
    Ok(())
}

/// A line diff of `old` and `new` in unified form (hunks with three lines
/// of context). Settings files are small, so a plain longest-common-
/// subsequence table is fast enough; past 4000 lines a side the whole
/// file is shown as replaced.
pub fn diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = if a.len().max(b.len()) > 4000 {
        a.iter()
            .map(|_| Op::Del)
            .chain(b.iter().map(|_| Op::Add))
            .collect()
    } else {
        lcs_ops(&a, &b)
    };
    // Walk the ops with positions, then cut hunks around the changes.
    let mut rows: Vec<(Op, usize, usize)> = Vec::with_capacity(ops.len());
    let (mut i, mut j) = (0, 0);
    for op in ops {
        rows.push((op, i, j));
        match op {
            Op::Same => (i, j) = (i + 1, j + 1),
            Op::Del => i += 1,
            Op::Add => j += 1,
        }
    }
    let changed: Vec<usize> = (0..rows.len()).filter(|&k| rows[k].0 != Op::Same).collect();
    let mut out = String::new();
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(3);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 7 {
            end = changed[k];
            k += 1;
        }
        let end = (end + 4).min(rows.len());
        let hunk = &rows[start..end];
        let (a0, b0) = (hunk[0].1, hunk[0].2);
        let a_len = hunk.iter().filter(|r| r.0 != Op::Add).count();
        let b_len = hunk.iter().filter(|r| r.0 != Op::Del).count();
        let _ = writeln!(
            out,
            "@@ -{},{a_len} +{},{b_len} @@",
            a0 + usize::from(a_len > 0),
            b0 + usize::from(b_len > 0)
        );
        for &(op, i, j) in hunk {
            let _ = match op {
                Op::Same => writeln!(out, " {}", a[i]),
                Op::Del => writeln!(out, "-{}", a[i]),
                Op::Add => writeln!(out, "+{}", b[j]),
            };
        }
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Same,
    Del,
    Add,
}

fn lcs_ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let (n, m) = (a.len(), b.len());
    // len[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut len = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[at(i, j)] = if a[i] == b[j] {
                len[at(i + 1, j + 1)] + 1
            } else {
                len[at(i + 1, j)].max(len[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push(Op::Same);
            (i, j) = (i + 1, j + 1);
        } else if i < n && (j == m || len[at(i + 1, j)] >= len[at(i, j + 1)]) {
            ops.push(Op::Del);
            i += 1;
        } else {
            ops.push(Op::Add);
            j += 1;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_shows_added_and_removed_lines_with_context() {
        let old = "a\nb\nc\nd\n";
        let new = "a\nb\nx\nc\nd\n";
        assert_eq!(diff(old, new), "@@ -1,4 +1,5 @@\n a\n b\n+x\n c\n d\n");
        assert_eq!(diff("", "x\n"), "@@ -0,0 +1,1 @@\n+x\n");
        assert_eq!(diff("same\n", "same\n"), "");
    }
}
