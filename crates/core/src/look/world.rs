//! The world a look reads: a trait, so that tests can hand it a fake one,
//! and the real file system behind it.

use std::ffi::OsString;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// What a path is, its own links not followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file of this many bytes.
    File(u64),
    /// A directory.
    Dir,
    /// A symbolic link.
    Link,
    /// A device, socket or pipe: nothing a look reads.
    Other,
}

/// What reading a file gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contents {
    /// Its bytes, all of them.
    Bytes(Vec<u8>),
    /// It is larger than the limit asked: not read at all (a file is never
    /// half-read, or a secret past the limit would pass).
    TooLarge(u64),
    /// It is not a regular file (a pipe opened where a file was, a device).
    NotRegular,
}

/// The world as a look sees it. Every method reads; none writes, runs a
/// program or sends anything anywhere.
pub trait World {
    /// The path with every symbolic link resolved, as the kernel would
    /// resolve it to open the file (`..` after a link included).
    fn resolve(&self, path: &Path) -> io::Result<PathBuf>;
    /// What `path` is, a final link not followed.
    fn kind(&self, path: &Path) -> io::Result<Kind>;
    /// A regular file's bytes, when it holds at most `limit` of them.
    fn read(&self, path: &Path, limit: u64) -> io::Result<Contents>;
    /// A directory's entries, each with what it is (links not followed).
    fn list(&self, dir: &Path) -> io::Result<Vec<(OsString, Kind)>>;
}

/// The real file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileSystem;

fn kind_of(meta: &std::fs::Metadata) -> Kind {
    let t = meta.file_type();
    if t.is_symlink() {
        Kind::Link
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File(meta.len())
    } else {
        Kind::Other
    }
}

impl World for FileSystem {
    fn resolve(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::canonicalize(path)
    }

    fn kind(&self, path: &Path) -> io::Result<Kind> {
        std::fs::symlink_metadata(path).map(|m| kind_of(&m))
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<Contents> {
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        // Opened without blocking: a pipe put where a file was a moment
        // ago must not hang the hook.
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(NONBLOCK);
        }
        let file = options.open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Ok(Contents::NotRegular);
        }
        if meta.len() > limit {
            return Ok(Contents::TooLarge(meta.len()));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        // One byte past the limit tells a file that grew since.
        file.take(limit + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Ok(Contents::TooLarge(bytes.len() as u64));
        }
        Ok(Contents::Bytes(bytes))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<(OsString, Kind)>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let kind = match entry.file_type() {
                Ok(t) if t.is_symlink() => Kind::Link,
                Ok(t) if t.is_dir() => Kind::Dir,
                Ok(t) if t.is_file() => entry
                    .metadata()
                    .map_or(Kind::File(u64::MAX), |m| Kind::File(m.len())),
                _ => Kind::Other,
            };
            out.push((entry.file_name(), kind));
        }
        // In name order, so that what a look reports is the same from one
        // run to the next.
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}

/// `O_NONBLOCK` of the platform's `open(2)`.
#[cfg(target_os = "linux")]
const NONBLOCK: i32 = 0o4000;
#[cfg(all(unix, not(target_os = "linux")))]
const NONBLOCK: i32 = 0x0004;
