//! Errors of the library: a taxonomy that does not load names the file, the
//! line and the entry, and says what to fix.

use thiserror::Error;

/// A taxonomy file could not be read, validated or compiled.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TaxonomyError {
    /// The file is not valid TOML for its schema (serde names the line, the
    /// column and the key).
    #[error("{file}: {message}")]
    Syntax {
        /// The file, relative to the taxonomy root.
        file: String,
        /// The parser's message, including line and key.
        message: String,
    },
    /// An entry is well-formed TOML but says something invalid.
    #[error("{file}:{line}: entry `{id}`: field `{field}`: {message}")]
    Entry {
        /// The file, relative to the taxonomy root.
        file: String,
        /// The 1-based line of the entry's id.
        line: usize,
        /// The entry id.
        id: String,
        /// The offending field.
        field: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// Two entries share an id.
    #[error("{file}:{line}: duplicate id `{id}` (first defined in {first})")]
    DuplicateId {
        /// The file of the second definition.
        file: String,
        /// Its line.
        line: usize,
        /// The id.
        id: String,
        /// Where the first definition is.
        first: String,
    },
    /// The compiled automaton could not be built (a size limit, say).
    #[error("building the matcher for {what}: {message}")]
    Build {
        /// Which pattern set.
        what: String,
        /// The builder's message.
        message: String,
    },
}
