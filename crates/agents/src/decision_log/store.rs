//! Where the log lives, how a line is appended and how the files rotate.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::entry::Entry;

/// The log file's name in its directory.
pub const FILE_NAME: &str = "decisions.jsonl";

/// The size at which the log is rotated: about 4,000 typical lines, a few
/// days of heavy agent use, while reading it back stays instant.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 20;

/// A log operation that failed, naming the file.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot {op}: {source}", path.display())]
pub struct LogError {
    /// The file or directory.
    pub path: PathBuf,
    /// What was being done (`create`, `append to`, `read`, `rotate`).
    pub op: &'static str,
    /// The I/O error.
    #[source]
    pub source: io::Error,
}

fn err<'p>(path: &'p Path, op: &'static str) -> impl FnOnce(io::Error) -> LogError + 'p {
    move |source| LogError {
        path: path.to_path_buf(),
        op,
        source,
    }
}

/// The log's directory from the environment: `TOOLGATE_STATE_DIR`, else
/// `$XDG_STATE_HOME/toolgate`, else `$HOME/.local/state/toolgate`; `None`
/// with none of them (the log is then off). `var` reads a variable, so that
/// callers and tests choose the environment.
///
/// ```
/// use std::path::PathBuf;
/// use toolgate_agents::decision_log::state_dir;
/// let env = |k: &str| (k == "HOME").then(|| "/home/dev".to_string());
/// assert_eq!(state_dir(env), Some(PathBuf::from("/home/dev/.local/state/toolgate")));
/// ```
pub fn state_dir(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |k: &str| var(k).filter(|v| !v.trim().is_empty());
    if let Some(dir) = set("TOOLGATE_STATE_DIR") {
        return Some(PathBuf::from(dir));
    }
    // The XDG spec ignores a relative value.
    if let Some(dir) = set("XDG_STATE_HOME").filter(|d| d.starts_with('/')) {
        return Some(PathBuf::from(dir).join("toolgate"));
    }
    set("HOME").map(|h| PathBuf::from(h).join(".local/state/toolgate"))
}

/// A decision log in a directory.
#[derive(Clone, Debug)]
pub struct DecisionLog {
    dir: PathBuf,
    max_bytes: u64,
    keep: usize,
}

impl DecisionLog {
    /// The log in `dir`, rotated at [`DEFAULT_MAX_BYTES`] with one older
    /// file kept.
    pub fn new(dir: impl Into<PathBuf>) -> DecisionLog {
        DecisionLog {
            dir: dir.into(),
            max_bytes: DEFAULT_MAX_BYTES,
            keep: 1,
        }
    }

    /// Rotate when a line would take the file past `bytes` (default
    /// [`DEFAULT_MAX_BYTES`]).
    pub fn max_bytes(mut self, bytes: u64) -> DecisionLog {
        self.max_bytes = bytes;
        self
    }

    /// How many rotated files to keep (default 1, at least 1).
    pub fn keep(mut self, files: usize) -> DecisionLog {
        self.keep = files.max(1);
        self
    }

    /// The current log file.
    pub fn path(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    /// Every file of the log, oldest first: the rotated ones, then the
    /// current one.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = (1..=self.keep).rev().map(|n| self.rotated(n)).collect();
        files.push(self.path());
        files
    }

    fn rotated(&self, n: usize) -> PathBuf {
        self.dir.join(format!("{FILE_NAME}.{n}"))
    }

    /// Appends one entry as a line, creating the directory (0700) and the
    /// file (0600) when missing and rotating first when the line would take
    /// the file past the limit.
    ///
    /// One `write` with `O_APPEND`: lines from hook processes running at
    /// once do not interleave. Two processes rotating at the same moment can
    /// lose a rotated file's worth of old lines; a lock would cost every
    /// call more than that is worth.
    pub fn append(&self, entry: &Entry) -> Result<(), LogError> {
        let mut line = serde_json::to_string(entry).map_err(|e| LogError {
            path: self.path(),
            op: "encode an entry for",
            source: io::Error::new(io::ErrorKind::InvalidData, e),
        })?;
        line.push('\n');
        self.create_dir()?;
        let path = self.path();
        let size = fs::metadata(&path).map_or(0, |m| m.len());
        if size > 0 && size + line.len() as u64 > self.max_bytes {
            self.rotate()?;
        }
        let mut file = open_private(&path).map_err(err(&path, "append to"))?;
        file.write_all(line.as_bytes())
            .map_err(err(&path, "append to"))
    }

    fn create_dir(&self) -> Result<(), LogError> {
        if self.dir.is_dir() {
            return Ok(());
        }
        if let Some(parent) = self.dir.parent() {
            fs::create_dir_all(parent).map_err(err(parent, "create"))?;
        }
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        match builder.create(&self.dir) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(err(&self.dir, "create")(e)),
            _ => Ok(()),
        }
    }

    /// `decisions.jsonl.N-1` → `.N`, …, `decisions.jsonl` → `.1`; the
    /// oldest is replaced.
    fn rotate(&self) -> Result<(), LogError> {
        for n in (1..self.keep).rev() {
            let from = self.rotated(n);
            if from.exists() {
                fs::rename(&from, self.rotated(n + 1)).map_err(err(&from, "rotate"))?;
            }
        }
        let path = self.path();
        fs::rename(&path, self.rotated(1)).map_err(err(&path, "rotate"))
    }

    /// Every entry, oldest first, and how many lines could not be read
    /// (a line cut short by a full disk, or written by a newer toolgate
    /// in a shape this one does not know). A missing file has no entries.
    pub fn read(&self) -> Result<(Vec<Entry>, usize), LogError> {
        let mut entries = Vec::new();
        let mut skipped = 0;
        for path in self.files() {
            let text = match fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(err(&path, "read")(e)),
            };
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                match serde_json::from_str::<Entry>(line) {
                    Ok(e) => entries.push(e),
                    Err(_) => skipped += 1,
                }
            }
        }
        Ok((entries, skipped))
    }
}

/// Opens `path` for appending, creating it readable and writable by its
/// owner only.
fn open_private(path: &Path) -> io::Result<fs::File> {
    let mut options = OpenOptions::new();
    options.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}
