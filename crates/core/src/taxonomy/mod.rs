//! The taxonomy: human-edited TOML files that say which command shapes are
//! destructive (with a blast radius and a category) and, through command
//! specs, which commands are safe.
//!
//! Files live in the repository's `taxonomy/` directory and are embedded in
//! the binary. `commands.toml` holds how commands take their arguments
//! (options with values, wrappers, named argument shapes); `rules/*.toml`
//! hold destructive entries, one file per domain; `specs/*.toml` hold the
//! command specs safe verdicts come from (see [`crate::spec`]). See
//! [`pattern`] for the pattern language, and [`Taxonomy::embedded`] for the
//! default.

mod files;
pub(crate) mod generate;
mod help_words;
mod load;
mod model;
mod name_map;
pub mod pattern;
pub(crate) mod schema;
pub(crate) mod syntax;

use std::sync::OnceLock;

pub use generate::{group_pattern, Compiled, PostCheck, RuleKind};
pub use help_words::HelpWords;
pub use load::{
    build, dir_sources, embedded_sources, load_embedded_fast, load_sources, ParsedFile,
    COMMANDS_FILE, EMBEDDED, RULES_DIR,
};
pub use model::{CommandSpec, EntryLabel, Flags, Rule, Taxonomy, Wrapper};
pub use name_map::NameMap;
pub use schema::{CommandsFile, RawCommandSpec, RawRule, RawWrapper, RefusedEntry, RuleFile};

use crate::error::TaxonomyError;

impl Taxonomy {
    /// The embedded taxonomy, validated once per process.
    ///
    /// The embedded files are checked by the test suite, so this fails only
    /// on a broken build; callers degrade to "unknown" rather than panic.
    pub fn embedded() -> Result<&'static Taxonomy, &'static TaxonomyError> {
        static CELL: OnceLock<Result<Taxonomy, TaxonomyError>> = OnceLock::new();
        CELL.get_or_init(load_embedded_fast).as_ref()
    }
}

/// The sandbox oracle's cases made from the embedded taxonomy's specs (see
/// [`crate::spec::oracle_cases`]).
pub fn embedded_oracle_cases() -> Vec<String> {
    match Taxonomy::embedded() {
        Ok(tax) => crate::spec::oracle_cases(&embedded_sources(), &tax.specs),
        Err(_) => Vec::new(),
    }
}
