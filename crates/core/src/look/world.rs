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
/// program or sends anything anywhere. A tree's files may be read from
/// several threads at once.
pub trait World: Sync {
    /// The path with every symbolic link resolved, as the kernel would
    /// resolve it to open the file (`..` after a link included).
    fn resolve(&self, path: &Path) -> io::Result<PathBuf>;
    /// What `path` is, a final link not followed.
    fn kind(&self, path: &Path) -> io::Result<Kind>;
    /// A regular file's bytes, when it holds at most `limit` of them.
    fn read(&self, path: &Path, limit: u64) -> io::Result<Contents>;
    /// A directory's entries, each with what it is (links not followed).
    fn list(&self, dir: &Path) -> io::Result<Vec<(OsString, Kind)>>;

    /// A regular file of at most `limit` bytes, handed to `each` in pieces
    /// that end at a line's end (or the file's): a look scans line by
    /// line, and a large file need not be held whole. `each` returns
    /// false to stop reading. By default, [`World::read`] in one piece.
    fn read_pieces(
        &self,
        path: &Path,
        limit: u64,
        each: &mut dyn FnMut(&[u8]) -> bool,
    ) -> io::Result<Pieces> {
        Ok(match self.read(path, limit)? {
            Contents::Bytes(b) if each(&b) => Pieces::Read,
            Contents::Bytes(_) => Pieces::Stopped,
            Contents::TooLarge(n) => Pieces::TooLarge(n),
            Contents::NotRegular => Pieces::NotRegular,
        })
    }
}

/// How reading a file piece by piece ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pieces {
    /// Every byte was handed over.
    Read,
    /// The reader asked to stop.
    Stopped,
    /// It is larger than the limit asked (it may have grown while it was
    /// read: the pieces handed over then are not all of it).
    TooLarge(u64),
    /// It is not a regular file.
    NotRegular,
}

/// The bytes a piece of a file holds at most, lines longer than it aside:
/// the buffer is reused from piece to piece, so that a large file costs
/// the process this much fresh memory, not its size.
const PIECE: usize = 256 << 10;

thread_local! {
    /// The buffer a thread reads pieces into, from file to file: a fresh
    /// one for each file of a tree was mostly zeroing (a fifth of the
    /// instructions of a look over 2,000 files of 10 kB).
    static PIECES: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
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
        let (file, meta) = match open_regular(path, limit)? {
            Ok(opened) => opened,
            Err(Pieces::TooLarge(n)) => return Ok(Contents::TooLarge(n)),
            Err(_) => return Ok(Contents::NotRegular),
        };
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

    fn read_pieces(
        &self,
        path: &Path,
        limit: u64,
        each: &mut dyn FnMut(&[u8]) -> bool,
    ) -> io::Result<Pieces> {
        let (file, meta) = match open_regular(path, limit)? {
            Ok(opened) => opened,
            Err(why) => return Ok(why),
        };
        // One byte past the size read tells a file that grew since.
        let size = usize::try_from(meta.len()).unwrap_or(usize::MAX);
        let want = size.saturating_add(1).min(PIECE);
        // (A reader called back into the look while this one reads finds
        // the buffer taken, and reads into one of its own.)
        PIECES.with(|cell| match cell.try_borrow_mut() {
            Ok(mut buf) => read_pieces_into(&mut buf, want, file, limit, each),
            Err(_) => read_pieces_into(&mut Vec::new(), want, file, limit, each),
        })
    }
}

/// Reads `file` piece by piece into `buf` (grown to at least `want`
/// bytes), handing `each` the whole lines of each piece.
fn read_pieces_into(
    buf: &mut Vec<u8>,
    want: usize,
    mut file: std::fs::File,
    limit: u64,
    each: &mut dyn FnMut(&[u8]) -> bool,
) -> io::Result<Pieces> {
    if buf.len() < want {
        buf.resize(want, 0);
    }
    // `buf[..held]` holds bytes read but not handed over: the start of
    // a line whose end is still to come.
    let mut held = 0;
    let mut total: u64 = 0;
    loop {
        if held == buf.len() {
            // A line longer than the buffer: it grows (and stays grown
            // for the thread's next file).
            buf.resize(buf.len() * 2, 0);
        }
        let n = match file.read(&mut buf[held..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        if total > limit {
            return Ok(Pieces::TooLarge(total));
        }
        if n == 0 {
            if held > 0 && !each(&buf[..held]) {
                return Ok(Pieces::Stopped);
            }
            return Ok(Pieces::Read);
        }
        let filled = held + n;
        match buf[held..filled].iter().rposition(|&b| b == b'\n') {
            Some(p) => {
                let end = held + p + 1;
                if !each(&buf[..end]) {
                    return Ok(Pieces::Stopped);
                }
                buf.copy_within(end..filled, 0);
                held = filled - end;
            }
            None => held = filled,
        }
    }
}

/// Opens a regular file of at most `limit` bytes; `Err` with why not when
/// it is not one.
fn open_regular(
    path: &Path,
    limit: u64,
) -> io::Result<Result<(std::fs::File, std::fs::Metadata), Pieces>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Opened without blocking: a pipe put where a file was a moment ago
    // must not hang the hook.
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Ok(Err(Pieces::NotRegular));
    }
    if meta.len() > limit {
        return Ok(Err(Pieces::TooLarge(meta.len())));
    }
    Ok(Ok((file, meta)))
}

/// `O_NONBLOCK` of the platform's `open(2)`.
#[cfg(target_os = "linux")]
const NONBLOCK: i32 = 0o4000;
#[cfg(all(unix, not(target_os = "linux")))]
const NONBLOCK: i32 = 0x0004;
