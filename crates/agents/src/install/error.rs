//! What can go wrong while installing, removing or checking a hook.

use std::path::PathBuf;

/// An install, uninstall or doctor step that could not be done. Each
/// message names the file and says what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// `$HOME` is not set, so no user settings file can be found.
    #[error("$HOME is not set: set it, or give --project DIR")]
    NoHome,
    /// A settings file could not be read.
    #[error("{}: cannot read it ({source}): fix its permissions or move it away", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file could not be written (or its backup, or the temporary file
    /// it is renamed from).
    #[error("{}: cannot write it ({source}): nothing was changed; fix the directory's permissions and run again", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A settings file is not what toolgate can edit without losing
    /// something (not JSON even with comments and trailing commas, not
    /// TOML, a key of the wrong type).
    #[error("{}: {message}: toolgate did not touch it; fix it, or add the hook by hand (see the Installing section of docs/clients.md)", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// What is wrong, with a line where the parser gave one.
        message: String,
    },
    /// The file toolgate would write exists and is someone else's (a Cline
    /// hook script, an OpenCode plugin of the same name).
    #[error("{}: exists and is not toolgate's: move it away or merge `{command}` into it by hand", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
        /// The command toolgate would have run from it.
        command: String,
    },
    /// The file has no write bit: someone made it read-only on purpose.
    #[error("{}: is read-only (mode {mode:04o}): toolgate does not override that; make it writable (`chmod u+w`) and run again, or add the hook by hand", path.display())]
    ReadOnly {
        /// The file (a symlink's target).
        path: PathBuf,
        /// Its mode bits.
        mode: u32,
    },
    /// The running toolgate binary could not be found.
    #[error("cannot find the running toolgate binary ({0}): run toolgate by its full path")]
    NoBinary(std::io::Error),
    /// `--mode` or `--profile` names nothing toolgate knows.
    #[error("{0}")]
    BadChoice(String),
}
