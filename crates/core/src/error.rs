//! Errors of the library: a taxonomy that does not load names the file, the
//! line and the entry, and says what to fix; the embedded one, which only a
//! broken build can fail to load, says how to get a working toolgate.

use thiserror::Error;

/// A taxonomy file could not be read, validated or compiled.
///
/// `Clone` so that a failure cached once per process (the embedded
/// taxonomy's, see [`EmbeddedTaxonomyError`]) can be handed to every caller.
#[derive(Clone, Debug, Error)]
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

/// The taxonomy built into this toolgate did not load
/// ([`Classifier::embedded`](crate::Classifier::embedded)).
///
/// `build.rs` checks every taxonomy file before it embeds them, so only a
/// damaged binary or a build that went wrong has this error; the message
/// says so and what to do about it (rebuild from a good checkout, or
/// reinstall), since nothing the caller passes can fix it.
///
/// The cause is part of the message rather than [`source`]: the places that
/// show this error (a label's reason, the hook's fail-closed answer) print it
/// with `{}`, and a chained source would then be lost there, or printed twice
/// by `{:#}`. [`EmbeddedTaxonomyError::cause`] still gives it as a value.
///
/// ```
/// // A typed error, so `?` carries it into the caller's own error type.
/// fn load() -> Result<&'static toolgate_core::Classifier, Box<dyn std::error::Error>> {
///     Ok(toolgate_core::Classifier::embedded()?)
/// }
/// assert!(load().is_ok());
/// ```
///
/// [`source`]: std::error::Error::source
#[derive(Clone, Debug, Error)]
#[error(
    "the taxonomy built into toolgate did not load ({cause}): this build of toolgate is broken; \
     rebuild it from a checkout whose `cargo test` passes, or reinstall toolgate"
)]
pub struct EmbeddedTaxonomyError {
    cause: TaxonomyError,
}

impl EmbeddedTaxonomyError {
    pub(crate) fn new(cause: TaxonomyError) -> EmbeddedTaxonomyError {
        EmbeddedTaxonomyError { cause }
    }

    /// Why it did not load: which part of the embedded data is broken.
    pub fn cause(&self) -> &TaxonomyError {
        &self.cause
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_error_names_the_cause_and_the_fix() {
        let e = EmbeddedTaxonomyError::new(TaxonomyError::Syntax {
            file: "taxonomy/".into(),
            message: "the embedded taxonomy points outside itself".into(),
        });
        let text = e.to_string();
        for part in [
            "the taxonomy built into toolgate did not load",
            "taxonomy/: the embedded taxonomy points outside itself",
            "rebuild it from a checkout whose `cargo test` passes, or reinstall toolgate",
        ] {
            assert!(text.contains(part), "{text:?} lacks {part:?}");
        }
        assert!(matches!(e.cause(), TaxonomyError::Syntax { .. }));
        // Nothing chained: the message already holds the cause.
        assert!(std::error::Error::source(&e).is_none());
    }

    #[test]
    fn embedded_gives_a_typed_error_fit_for_anyhow() {
        // Send + Sync + 'static: `?` carries it into `anyhow::Error` and
        // `Box<dyn Error + Send + Sync>`; Clone: the cached failure is
        // handed out to every caller.
        fn typed<E: std::error::Error + Send + Sync + Clone + 'static>(
            r: Result<&crate::Classifier, E>,
        ) -> bool {
            r.is_ok()
        }
        let loaded: Result<&crate::Classifier, EmbeddedTaxonomyError> =
            crate::Classifier::embedded();
        assert!(typed(loaded));
    }
}
