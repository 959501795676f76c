//! Command specs: the allow-list that safe verdicts come from.
//!
//! A command is safe only when a spec of that command explains every word
//! of its argv: each option is one the spec knows (parsed with the real
//! tool's conventions: abbreviations, bundles, attached values, `--`) and
//! declares harmless, and each argument has a role that is checked (files
//! through [`paths::check`], patterns through
//! [`content::hunts_credentials`], …). Anything the spec does not explain
//! is not safe, and [`Refusal`] says which word and why.
//!
//! Specs are data in `taxonomy/specs/*.toml` (format: [`format`]), compiled
//! at build time for the embedded taxonomy and decoded one at a time, on
//! first use.

mod argv;
mod cases;
pub mod content;
pub mod format;
pub mod paths;

use std::borrow::Cow;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;

pub use argv::{check, check_args, help_form, Refusal, Verdict};
pub use cases::{embedded_oracle_cases, oracle_cases};
pub use format::{Arity, Effect, Opt, Role, Spec, Syntax};
pub use paths::Context;

use crate::error::TaxonomyError;
use format::SpecIndex;

/// Whether a word could be a help or version form of some spec (`--help`,
/// `-h`, `-V`, `version`, …): only then is a help request looked for.
pub fn could_be_help(word: &str) -> bool {
    let bare = word.trim_start_matches('-');
    matches!(
        bare,
        "h" | "help" | "v" | "V" | "version" | "?" | "usage" | "help-all"
    ) || (bare.len() < word.len() && (bare.starts_with("help") || bare.starts_with("vers")))
}

/// The folder of spec files under the taxonomy root.
pub const SPECS_DIR: &str = "specs/";

/// Every spec of a taxonomy, found by command name or subcommand path.
#[derive(Debug, Default)]
pub struct Specs {
    store: Store,
}

#[derive(Debug, Default)]
enum Store {
    /// No specs: nothing is safe.
    #[default]
    Empty,
    /// Compiled by `build.rs`: the index read in place, each spec decoded
    /// when first asked for (boxed, so that the slots of the specs a
    /// process never uses cost it a few bytes each).
    Packed {
        index: SpecIndex<'static>,
        decoded: Box<[OnceLock<Option<Box<Spec<'static>>>>]>,
    },
    /// Loaded from files.
    Owned {
        specs: Vec<Spec<'static>>,
        names: FxHashMap<String, usize>,
    },
}

impl Specs {
    /// Reads the specs `build.rs` compiled in place (each spec is decoded
    /// when first asked for).
    pub fn from_packed(bytes: &'static [u8]) -> Result<Specs, TaxonomyError> {
        let index = SpecIndex::new(bytes).ok_or_else(|| TaxonomyError::Build {
            what: "the embedded command specs".into(),
            message: "their index does not fit in them".into(),
        })?;
        let decoded = (0..index.spec_count()).map(|_| OnceLock::new()).collect();
        Ok(Specs {
            store: Store::Packed { index, decoded },
        })
    }

    /// Loads and validates the spec files among `sources` (paths relative
    /// to the taxonomy root; those under `specs/` are read). Every error
    /// names the file, the line of its `[[command]]` and the field.
    pub fn load(sources: &[(String, String)]) -> Result<Specs, TaxonomyError> {
        let mut specs = Vec::new();
        let mut names: FxHashMap<String, usize> = FxHashMap::default();
        let mut first: FxHashMap<String, String> = FxHashMap::default();
        for (file, text) in sources {
            if !file.starts_with(SPECS_DIR) {
                continue;
            }
            let parsed: format::SpecFile =
                toml::from_str(text).map_err(|e| TaxonomyError::Syntax {
                    file: file.clone(),
                    message: e.to_string(),
                })?;
            let lines = format::table_lines(text);
            for (k, raw) in parsed.command.iter().enumerate() {
                let line = lines.get(k).copied().unwrap_or(0);
                let id = raw.names.first().cloned().unwrap_or_default();
                let spec = format::compile(raw, file, line).map_err(|e| TaxonomyError::Entry {
                    file: file.clone(),
                    line: line as usize,
                    id: id.clone(),
                    field: e.field.into(),
                    message: e.message,
                })?;
                for name in &raw.names {
                    let here = format!("{file}:{line}");
                    if let Some(prev) = first.insert(name.clone(), here) {
                        return Err(TaxonomyError::DuplicateId {
                            file: file.clone(),
                            line: line as usize,
                            id: name.clone(),
                            first: prev,
                        });
                    }
                    names.insert(name.clone(), specs.len());
                }
                specs.push(spec);
            }
        }
        Ok(Specs {
            store: Store::Owned { specs, names },
        })
    }

    /// The spec of a command name or subcommand path (`git log`).
    pub fn get(&self, path: &str) -> Option<&Spec<'static>> {
        match &self.store {
            Store::Empty => None,
            Store::Owned { specs, names } => names.get(path).map(|&i| &specs[i]),
            Store::Packed { index, decoded } => {
                let i = index.find(path.as_bytes())?;
                decoded
                    .get(i)?
                    .get_or_init(|| {
                        let bytes = index.spec(i)?;
                        postcard::from_bytes::<Spec<'static>>(bytes)
                            .ok()
                            .map(Box::new)
                    })
                    .as_deref()
            }
        }
    }

    /// Whether any spec's path starts with `path` and a space (`git` has
    /// `git log`).
    pub fn has_subcommands(&self, path: &str) -> bool {
        self.get(path).is_some_and(|s| s.subcommands)
    }

    /// Every name and subcommand path that has a spec, sorted.
    pub fn names(&self) -> Vec<Cow<'static, str>> {
        let mut out: Vec<Cow<'static, str>> = match &self.store {
            Store::Empty => Vec::new(),
            Store::Owned { names, .. } => names.keys().map(|n| Cow::Owned(n.clone())).collect(),
            Store::Packed { index, .. } => (0..index.name_count())
                .filter_map(|i| index.name(i))
                .filter_map(|(n, _)| std::str::from_utf8(n).ok().map(Cow::Borrowed))
                .collect(),
        };
        out.sort();
        out
    }

    /// How many specs there are (one per `[[command]]` table).
    pub fn len(&self) -> usize {
        match &self.store {
            Store::Empty => 0,
            Store::Owned { specs, .. } => specs.len(),
            Store::Packed { index, .. } => index.spec_count(),
        }
    }

    /// True when there are no specs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
