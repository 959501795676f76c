//! Loading and validating taxonomy files.
//!
//! The embedded taxonomy (the repository's `taxonomy/` directory, compiled in
//! with include_dir) is the default. [`load_sources`] takes any set of files,
//! so tests and users can load their own; every error names the file, the
//! line and the field.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use super::syntax::check_syntax;
use include_dir::{include_dir, Dir};
use rustc_hash::FxHashMap;

use std::sync::{Arc, OnceLock};

use super::files::IdLines;
use super::generate::{self, Compiled, PostCheck, RuleKind};
use super::model::{
    broken, cut, too_large, CommandSpec, Flags, LoadedLists, Rule, RuleShape, Taxonomy, Wrapper,
};
use super::schema::{Bundle, CommandsFile, CommandsView, Packer, RawRule, RuleFile, Words};
use crate::error::TaxonomyError;
use crate::label::BlastRadius;

/// The taxonomy shipped inside the binary.
pub static EMBEDDED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../../taxonomy");

/// The embedded taxonomy's files as `(relative path, text)`, sorted by path.
pub fn embedded_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    collect(&EMBEDDED, &mut out);
    out.sort();
    out
}

fn collect(dir: &Dir<'static>, out: &mut Vec<(String, String)>) {
    for file in dir.files() {
        let path = file.path();
        if path.extension().and_then(|e| e.to_str()) == Some("toml") {
            if let Some(text) = file.contents_utf8() {
                out.push((path.to_string_lossy().replace('\\', "/"), text.to_string()));
            }
        }
    }
    for sub in dir.dirs() {
        collect(sub, out);
    }
}

/// Reads every `.toml` file under a directory on disk, sorted by path.
pub fn dir_sources(root: &Path) -> std::io::Result<Vec<(String, String)>> {
    super::files::toml_files(root)?
        .into_iter()
        .map(|(rel, path)| Ok((rel, std::fs::read_to_string(&path)?)))
        .collect()
}

/// The file holding command conventions and wrappers.
pub const COMMANDS_FILE: &str = "commands.toml";
/// The folder holding rule files.
pub const RULES_DIR: &str = "rules/";

/// A taxonomy file parsed into its schema.
pub enum ParsedFile {
    /// `commands.toml`.
    Commands(CommandsFile),
    /// A file under `rules/`.
    Rules(RuleFile),
}

/// Validates and compiles a set of taxonomy files.
///
/// `commands.toml` holds conventions; `rules/*.toml` hold entries. Other
/// files (profiles, say) are ignored here. Every pattern's syntax is
/// checked, so that an error names its file, line and entry.
pub fn load_sources(sources: &[(String, String)]) -> Result<Taxonomy, TaxonomyError> {
    let mut parsed = Vec::new();
    for (file, text) in sources {
        let syntax = |e: toml::de::Error| TaxonomyError::Syntax {
            file: file.clone(),
            message: e.to_string(),
        };
        let parsed_file = if file == COMMANDS_FILE {
            ParsedFile::Commands(toml::from_str(text).map_err(syntax)?)
        } else if file.starts_with(RULES_DIR) {
            ParsedFile::Rules(toml::from_str(text).map_err(syntax)?)
        } else {
            continue;
        };
        parsed.push(SourceFile {
            path: file.clone(),
            text,
            parsed: parsed_file,
        });
    }
    let mut tax = build(parsed, true)?;
    tax.specs = Arc::new(crate::spec::Specs::load(sources)?);
    Ok(tax)
}

/// One taxonomy file, parsed, with its text (which locates its entries).
pub struct SourceFile<'t> {
    /// Its path relative to the taxonomy root.
    pub path: String,
    /// Its text.
    pub text: &'t str,
    /// Its contents.
    pub parsed: ParsedFile,
}

/// Builds a taxonomy from parsed files. `check_patterns` parses every
/// generated pattern so that a bad one is reported against its entry.
pub fn build(files: Vec<SourceFile>, check_patterns: bool) -> Result<Taxonomy, TaxonomyError> {
    let mut tax = Taxonomy::default();
    let mut rule_files = Vec::new();
    for SourceFile { path, text, parsed } in files {
        match parsed {
            ParsedFile::Commands(c) => {
                // Packed as build.rs packs the embedded file, and read
                // through the same view.
                let mut packer = Packer::default();
                packer.commands(&c);
                if !packer.within_offsets() {
                    return Err(too_large(&path));
                }
                let records = packer.commands.take().unwrap_or_default();
                let lists = Arc::new(LoadedLists::from(packer));
                let bundle = Bundle {
                    text: &lists.text,
                    lists: &lists.lists,
                    ..Bundle::default()
                };
                let view = bundle.commands_view(&records.view()).ok_or_else(cut)?;
                load_commands(
                    &path,
                    text,
                    &view,
                    &Shared(&lists),
                    &mut tax,
                    check_patterns,
                )?
            }
            ParsedFile::Rules(r) => rule_files.push((path, text, r)),
        }
    }
    // Command files first (rules use their shapes), then rules in path order.
    // Where each id was first defined: (file, line).
    let mut seen: FxHashMap<String, (String, usize)> = FxHashMap::default();
    let mut rules = Vec::new();
    for (file, text, parsed) in rule_files {
        let mut ids = IdLines::new(text);
        if let Some(raw) = parsed.safe.first() {
            return Err(TaxonomyError::Entry {
                file: file.clone(),
                line: ids.next_line_of(&raw.id),
                id: raw.id.clone(),
                field: "safe".into(),
                message: "rule files hold destructive shapes only: a safe verdict comes from a command spec in specs/*.toml, which explains every option and argument of the command".into(),
            });
        }
        for raw in parsed.destructive {
            let line = ids.next_line_of(&raw.id);
            if let Some((first_file, first_line)) = seen.get(&raw.id) {
                return Err(TaxonomyError::DuplicateId {
                    file: file.clone(),
                    line,
                    id: raw.id.clone(),
                    first: format!("{first_file}:{first_line}"),
                });
            }
            seen.insert(raw.id.clone(), (file.clone(), line));
            let rule = validate_rule(&file, line, raw, &tax.shapes, check_patterns)?;
            rules.push(rule);
        }
    }
    tax.set_rules(rules)?;
    Ok(tax)
}

/// The embedded command specs' index, as `build.rs` compiled it.
static EMBEDDED_SPECS: crate::spec::format::SpecIndex<'static> =
    include!(concat!(env!("OUT_DIR"), "/spec_index.rs"));

/// The embedded taxonomy, as `build.rs` parsed and stored it.
static EMBEDDED_BUNDLE: Bundle<'static> = include!(concat!(env!("OUT_DIR"), "/bundle.rs"));

/// The embedded taxonomy from the statics `build.rs` wrote: no TOML
/// parsing, no checks (the test suite loads the same files through
/// [`load_sources`] with every check, and compares the two), no examples,
/// and each entry's shape left encoded until its pattern is needed.
pub fn load_embedded_fast() -> Result<Taxonomy, TaxonomyError> {
    let bundle = EMBEDDED_BUNDLE;
    // build.rs counted the files it saw, and fails on one it cannot
    // convert, so every one is here; a bundle that disagrees with itself
    // is refused rather than loaded short. (That it saw every embedded
    // file is a test's: `the_bundle_saw_every_embedded_file`.)
    let converted = bundle.rule_files.len() + usize::from(bundle.commands.is_some());
    if converted != bundle.files_seen {
        return Err(broken(
            "a file did not convert at build time; run `cargo test` to see which".into(),
        ));
    }
    let mut tax = Taxonomy::default();
    if let Some(packed) = &bundle.commands {
        let commands = bundle.commands_view(packed).ok_or_else(cut)?;
        load_commands(COMMANDS_FILE, "", &commands, &InPlace, &mut tax, false)?;
    }
    let count = bundle.rule_count();
    if bundle
        .rule_files
        .iter()
        .map(|&(_, n)| n as usize)
        .sum::<usize>()
        != count
    {
        return Err(cut());
    }
    // Entries stay packed: a label reads the few fields it needs in place
    // (`Taxonomy::entry`), and whole rules are built only on request.
    tax.set_packed(bundle);
    tax.specs = Arc::new(crate::spec::Specs::from_index(EMBEDDED_SPECS));
    tax.embedded = true;
    Ok(tax)
}

/// How many taxonomy files the binary embeds (paths only, no contents).
#[cfg(test)]
fn embedded_file_count() -> usize {
    fn count(dir: &Dir<'static>) -> usize {
        let here = dir
            .files()
            .filter(|f| {
                let p = f.path().to_string_lossy();
                p.ends_with(".toml") && (p == COMMANDS_FILE || p.starts_with(RULES_DIR))
            })
            .count();
        here + dir.dirs().map(count).sum::<usize>()
    }
    count(&EMBEDDED)
}

/// How the loader keeps a commands view's text in the taxonomy.
trait Keep<'a> {
    fn text(&self, s: &'a str) -> Cow<'static, str>;
    fn flags(&self, words: Words<'a>) -> Flags;
}

/// For a file read from disk: its text copied, its lists shared with the
/// packed lists they were read from.
struct Shared<'l>(&'l Arc<LoadedLists>);

impl<'a> Keep<'a> for Shared<'_> {
    fn text(&self, s: &'a str) -> Cow<'static, str> {
        Cow::Owned(s.to_string())
    }

    fn flags(&self, words: Words<'a>) -> Flags {
        Flags::loaded(self.0, words.list)
    }
}

/// Read where it is, for the embedded file: a hook process copies nothing.
struct InPlace;

impl Keep<'static> for InPlace {
    fn text(&self, s: &'static str) -> Cow<'static, str> {
        Cow::Borrowed(s)
    }

    fn flags(&self, words: Words<'static>) -> Flags {
        Flags::embedded(words)
    }
}

/// Loads `commands.toml` (given as its borrowed view) into `tax`, keeping
/// its text as `keep` says.
fn load_commands<'a>(
    file: &str,
    text: &str,
    parsed: &CommandsView<'a>,
    keep: &impl Keep<'a>,
    tax: &mut Taxonomy,
    check_patterns: bool,
) -> Result<(), TaxonomyError> {
    let own = |s: &'a str| keep.text(s);
    let set = |words: Words<'a>| keep.flags(words);
    if check_patterns {
        check_command_words(file, text, parsed)?;
    }
    for (name, re) in &parsed.shape {
        if !check_patterns {
            break;
        }
        if let Err(e) = check_syntax(re) {
            return Err(TaxonomyError::Entry {
                file: file.to_string(),
                line: line_of_key(text, name),
                id: format!("shape.{name}"),
                field: "shape".into(),
                message: format!("invalid regex: {e}"),
            });
        }
    }
    tax.shapes = parsed
        .shape
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    for &(path, _) in &parsed.command {
        // Each shorter path is a prefix of this one (`gh`, `gh run` of
        // `gh run list`): borrowed, like the path.
        for (at, _) in path.match_indices(' ') {
            tax.command_parents.insert(own(&path[..at]));
        }
    }
    tax.commands.reserve(parsed.command.len());
    for (_, spec) in &parsed.command {
        for word in spec.help.iter() {
            tax.help_words.add(own(word));
        }
    }
    for (path, spec) in &parsed.command {
        tax.commands.insert(
            own(path),
            CommandSpec {
                value_flags: set(spec.value_flags),
                long_single_dash: spec.long_single_dash,
                pattern_operand: spec.pattern_operand,
                ignore_flags: set(spec.ignore_flags),
                help: set(spec.help),
                alias: spec
                    .alias
                    .map(|a| a.split_whitespace().map(String::from).collect()),
            },
        );
    }
    for raw in &parsed.wrapper {
        let Some(first) = raw.names.first() else {
            return Err(TaxonomyError::Entry {
                file: file.to_string(),
                line: 1,
                id: "wrapper".into(),
                field: "names".into(),
                message: "a wrapper needs at least one name".into(),
            });
        };
        let wrapper = Arc::new(Wrapper {
            name: own(first),
            value_flags: set(raw.value_flags),
            skip_positionals: raw.skip_positionals,
            assignments: raw.assignments,
            keeps_safe: raw.keeps_safe,
            joins: raw.joins,
            lookup_flags: set(raw.lookup_flags),
            unsafe_flags: set(raw.unsafe_flags),
            string_flag: raw.string_flag.map(&own),
            split_flag: raw.split_flag.map(&own),
        });
        for name in raw.names.iter() {
            tax.wrappers.insert(own(name), Arc::clone(&wrapper));
        }
    }
    Ok(())
}

/// Refuses words of `commands.toml` that would be silently ignored: an
/// empty word in a list (no command line holds one as an option or a
/// command name), and a wrapper name given twice (the later wrapper would
/// take the name from the earlier one).
fn check_command_words(
    file: &str,
    text: &str,
    parsed: &CommandsView<'_>,
) -> Result<(), TaxonomyError> {
    let refuse = |line: usize, id: String, field: &str, message: String| TaxonomyError::Entry {
        file: file.to_string(),
        line,
        id,
        field: field.to_string(),
        message,
    };
    let empty = "an empty word: no command line holds one; remove it";
    for (path, spec) in &parsed.command {
        for (field, words) in [
            ("value_flags", spec.value_flags),
            ("ignore_flags", spec.ignore_flags),
            ("help", spec.help),
        ] {
            if words.iter().any(str::is_empty) {
                let line = match line_of_key(text, &format!("[command.{path}]")) {
                    0 => line_of_key(text, &format!("[command.\"{path}\"]")),
                    line => line,
                };
                return Err(refuse(line, format!("command.{path}"), field, empty.into()));
            }
        }
    }
    let wrapper_lines = crate::spec::format::table_lines(text, "wrapper");
    let mut named: FxHashMap<&str, usize> = FxHashMap::default();
    for (k, wrapper) in parsed.wrapper.iter().enumerate() {
        let line = wrapper_lines.get(k).map_or(0, |&l| l as usize);
        let id = wrapper.names.first().unwrap_or("wrapper").to_string();
        for (field, words) in [
            ("names", wrapper.names),
            ("value_flags", wrapper.value_flags),
            ("lookup_flags", wrapper.lookup_flags),
            ("unsafe_flags", wrapper.unsafe_flags),
        ] {
            if words.iter().any(str::is_empty) {
                return Err(refuse(line, id, field, empty.into()));
            }
        }
        for (field, flag) in [
            ("string_flag", wrapper.string_flag),
            ("split_flag", wrapper.split_flag),
        ] {
            if flag == Some("") {
                return Err(refuse(line, id, field, empty.into()));
            }
        }
        for name in wrapper.names.iter() {
            if let Some(first) = named.insert(name, line) {
                return Err(refuse(
                    line,
                    id,
                    "names",
                    format!(
                        "the wrapper name `{name}` is given twice (first at line {first}): \
                         keep it in one wrapper"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| l.trim_start().starts_with(key))
        .map_or(0, |i| i + 1)
}

/// A destructive entry (the only kind a rule file holds) checked and made
/// a [`Rule`]; the error names the field at fault.
fn validate_rule(
    file: &str,
    line: usize,
    raw: RawRule,
    shapes: &BTreeMap<String, String>,
    check_patterns: bool,
) -> Result<Rule, TaxonomyError> {
    let err = |field: &str, message: String| TaxonomyError::Entry {
        file: file.to_string(),
        line,
        id: raw.id.clone(),
        field: field.to_string(),
        message,
    };
    if raw.id.is_empty()
        || !raw
            .id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(err(
            "id",
            "ids are lowercase letters, digits and dashes".into(),
        ));
    }
    if raw.category.is_empty() {
        return Err(err("category", "every entry needs a category".into()));
    }
    if raw.reason.trim().is_empty() {
        return Err(err("reason", "every entry needs a reason".into()));
    }
    let blast_radius = match raw.blast_radius.as_deref() {
        None => {
            return Err(err(
                "blast_radius",
                "a destructive entry needs blast_radius = \"low\", \"medium\" or \"high\"".into(),
            ))
        }
        Some(s) => match BlastRadius::parse(s) {
            Some(r @ (BlastRadius::Low | BlastRadius::Medium | BlastRadius::High)) => r,
            _ => {
                return Err(err(
                    "blast_radius",
                    format!("`{s}` is not one of \"low\", \"medium\", \"high\""),
                ))
            }
        },
    };
    // The embedded fast path carries no examples (see build.rs); the TOML
    // path, which the tests use, requires them.
    if check_patterns && raw.examples.is_empty() {
        return Err(err(
            "examples",
            "every entry needs at least one example it must match".into(),
        ));
    }
    if check_patterns && raw.near_misses.is_empty() {
        return Err(err(
            "near_misses",
            "every entry needs at least one near miss it must not match".into(),
        ));
    }
    // `regex` may come with `command`: the words scope the raw regex, so it
    // runs only on commands with those words.
    let kinds = [
        !raw.command.is_empty() && raw.regex.is_none(),
        raw.sql.is_some(),
        raw.code.is_some(),
        raw.regex.is_some(),
    ];
    if kinds.iter().filter(|k| **k).count() != 1
        || (!raw.command.is_empty() && (raw.sql.is_some() || raw.code.is_some()))
    {
        return Err(err(
            "command",
            "give exactly one of command, sql, code or regex (regex may also list command words)"
                .into(),
        ));
    }
    let structured_only = !raw.subcommand.is_empty()
        || !raw.flags.is_empty()
        || !raw.forbid_flags.is_empty()
        || !raw.dry_run.is_empty()
        || !raw.args.is_empty()
        || !raw.forbid_args.is_empty()
        || raw.max_args.is_some()
        || raw.min_args.is_some();
    let structured = !raw.command.is_empty() && raw.regex.is_none();
    if !structured && structured_only {
        let field = [
            ("subcommand", !raw.subcommand.is_empty()),
            ("flags", !raw.flags.is_empty()),
            ("forbid_flags", !raw.forbid_flags.is_empty()),
            ("dry_run", !raw.dry_run.is_empty()),
            ("args", !raw.args.is_empty()),
            ("forbid_args", !raw.forbid_args.is_empty()),
            ("max_args", raw.max_args.is_some()),
            ("min_args", raw.min_args.is_some()),
        ]
        .into_iter()
        .find(|(_, set)| *set)
        .map_or("command", |(f, _)| f);
        return Err(err(
            field,
            "only structured entries (with `command`) take subcommand, flags, args and their forbid/max variants".into(),
        ));
    }
    let kind = generate::kind_of(&raw);
    let compiled = OnceLock::new();
    if !structured {
        let _ = compiled.set(Ok(Compiled {
            pattern: generate::raw_pattern(&raw).unwrap_or_default().to_string(),
            tail: None,
            post: PostCheck::default(),
        }));
    } else if check_patterns {
        let c =
            generate::structured(&raw.command, &raw, shapes).map_err(|(field, m)| err(field, m))?;
        if let Some(f) = &c.post.forbid {
            check_syntax(f).map_err(|e| err("forbid_flags", format!("invalid pattern: {e}")))?;
        }
        let _ = compiled.set(Ok(c));
    }
    // Unchecked, a structured entry's pattern waits until a command with
    // its word is first seen: generating patterns is most of a taxonomy's
    // load time.
    if let Some(Ok(c)) = compiled.get().filter(|_| check_patterns) {
        if let Err(e) = check_syntax(&c.pattern) {
            let field = match kind {
                RuleKind::Command => "command",
                RuleKind::Sql => "sql",
                RuleKind::Code => "code",
                RuleKind::Regex => "regex",
            };
            return Err(err(field, format!("invalid regex: {e}")));
        }
    }
    // The rule takes the entry's texts and lists; a structured entry's
    // shape fields, which its pattern is generated from, stay in `raw`.
    let mut raw = raw;
    let (examples, near_misses) = (
        std::mem::take(&mut raw.examples),
        std::mem::take(&mut raw.near_misses),
    );
    Ok(Rule {
        id: Cow::Owned(std::mem::take(&mut raw.id)),
        category: Cow::Owned(std::mem::take(&mut raw.category)),
        blast_radius,
        reason: Cow::Owned(std::mem::take(&mut raw.reason)),
        file: Cow::Owned(file.to_string()),
        line,
        kind,
        commands: std::mem::take(&mut raw.command)
            .into_iter()
            .map(Cow::Owned)
            .collect(),
        examples,
        near_misses,
        compiled,
        shape: structured.then(|| RuleShape(Box::new(raw))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundle_saw_every_embedded_file() {
        let bundle = EMBEDDED_BUNDLE;
        assert_eq!(bundle.files_seen, embedded_file_count());
        assert!(bundle.files_seen > 10);
    }

    /// An entry's category (and reason) read alone are the ones its whole label has,
    /// packed and loaded from the files alike.
    #[test]
    fn entry_categories_and_reasons_read_alone_are_the_labels() {
        let packed = load_embedded_fast().unwrap_or_else(|e| panic!("{e}"));
        let loaded = load_sources(&embedded_sources()).unwrap_or_else(|e| panic!("{e}"));
        let count = loaded.rules().len();
        assert!(count > 100);
        for tax in [&packed, &loaded] {
            for i in 0..count {
                let label = tax.entry(i).unwrap_or_else(|| panic!("entry {i}"));
                assert_eq!(
                    tax.entry_category(i),
                    Some(label.category.as_ref()),
                    "entry {i}"
                );
                assert_eq!(
                    tax.entry_category_reason(i),
                    Some((label.category.clone(), label.reason.clone())),
                    "entry {i}"
                );
            }
            assert_eq!(tax.entry_category(count), None);
            assert_eq!(tax.entry_category_reason(count), None);
        }
        assert!(
            (0..count).any(|i| packed.entry_category(i) == Some(crate::guard_paths::GUARD_TAMPER))
        );
        // The records a label reads are the whole rules' fields, whether
        // build.rs packed them or the loader did.
        for tax in [&packed, &loaded] {
            assert_eq!(tax.rule_count(), count);
            for (i, rule) in tax.rules().iter().enumerate() {
                let label = tax.entry(i).unwrap_or_else(|| panic!("entry {i}"));
                assert_eq!(
                    (
                        &label.id,
                        label.blast_radius,
                        &label.category,
                        &label.reason
                    ),
                    (&rule.id, rule.blast_radius, &rule.category, &rule.reason),
                    "entry {i}"
                );
                assert_eq!(tax.entry_radius(i), Some(rule.blast_radius), "entry {i}");
            }
            assert_eq!((tax.entry(count), tax.entry_radius(count)), (None, None));
        }
        let labels = |tax: &Taxonomy| (0..count).map(|i| tax.entry(i)).collect::<Vec<_>>();
        assert_eq!(labels(&packed), labels(&loaded));
        // Entries given whole are read as given: reversed, the first is
        // the last.
        let mut reversed = packed.clone();
        let rules = packed.rules().iter().rev().cloned().collect();
        reversed.set_rules(rules).unwrap_or_else(|e| panic!("{e}"));
        assert!(packed.has_embedded_entries() && !reversed.has_embedded_entries());
        assert_eq!(reversed.entry(0), packed.entry(count - 1));
        assert_eq!(reversed.entry(count - 1), packed.entry(0));
        assert_eq!(reversed.rules()[0].id, packed.rules()[count - 1].id);
    }

    fn load_one(rule_toml: &str) -> Result<Taxonomy, TaxonomyError> {
        load_sources(&[
            (
                COMMANDS_FILE.to_string(),
                "[shape]\nnumber = '[0-9]+'\n".to_string(),
            ),
            ("rules/test.toml".to_string(), rule_toml.to_string()),
        ])
    }

    const GOOD: &str = r#"
[[destructive]]
id = "x-delete"
category = "x"
blast_radius = "high"
reason = "deletes"
command = ["x"]
subcommand = ["delete"]
examples = ["x delete a"]
near_misses = ["x list"]
"#;

    #[test]
    fn good_file_loads() {
        let tax = load_one(GOOD).map_err(|e| e.to_string());
        assert_eq!(tax.map(|t| t.rules().len()), Ok(1));
    }

    /// Entries built without checking their patterns keep their shapes
    /// and generate, on first use, the patterns a checked build generates
    /// at once.
    #[test]
    fn deferred_entries_generate_the_checked_patterns() {
        let sources = embedded_sources();
        let parse = || -> Vec<SourceFile<'_>> {
            sources
                .iter()
                .filter_map(|(path, text)| {
                    let parsed = if path == COMMANDS_FILE {
                        ParsedFile::Commands(toml::from_str(text).ok()?)
                    } else if path.starts_with(RULES_DIR) {
                        ParsedFile::Rules(toml::from_str(text).ok()?)
                    } else {
                        return None;
                    };
                    Some(SourceFile {
                        path: path.clone(),
                        text,
                        parsed,
                    })
                })
                .collect()
        };
        let checked = build(parse(), true).unwrap_or_else(|e| panic!("{e}"));
        let deferred = build(parse(), false).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(checked.rules().len(), deferred.rules().len());
        let mut waiting = 0;
        for (c, d) in checked.rules().iter().zip(deferred.rules()) {
            waiting += usize::from(d.shape.is_some() && d.compiled.get().is_none());
            let want = c.compiled(&checked.shapes).map(|p| format!("{p:?}"));
            let got = d.compiled(&deferred.shapes).map(|p| format!("{p:?}"));
            assert_eq!(got, want, "{}", c.id);
        }
        assert!(waiting > 100, "{waiting} entries were deferred");
    }

    /// Words of `commands.toml` that would be ignored unseen are refused,
    /// naming the table's line and the field.
    #[test]
    fn empty_words_and_repeated_wrapper_names_are_refused() {
        let load = |commands: &str| {
            load_sources(&[(COMMANDS_FILE.to_string(), commands.to_string())])
                .map(|_| ())
                .map_err(|e| match e {
                    TaxonomyError::Entry {
                        line,
                        id,
                        field,
                        message,
                        ..
                    } => (line, id, field, message),
                    other => panic!("{other}"),
                })
        };
        let refused = |commands: &str| match load(commands) {
            Err((line, id, field, _)) => (line, id, field),
            Ok(()) => panic!("loaded: {commands}"),
        };
        let at = |line: usize, id: &str, field: &str| (line, id.to_string(), field.to_string());
        let r = refused("# conventions\n[command.git]\nvalue_flags = [\"-C\", \"\"]\n");
        assert_eq!(r, at(2, "command.git", "value_flags"));
        let r = refused("[command.ls]\n\n[command.\"git log\"]\nhelp = [\"\"]\n");
        assert_eq!(r, at(3, "command.git log", "help"));
        let r = refused("[[wrapper]]\nnames = [\"nice\"]\nvalue_flags = [\"-n\", \"\"]\n");
        assert_eq!(r, at(1, "nice", "value_flags"));
        let r = refused("[[wrapper]]\nnames = [\"sh\"]\nstring_flag = \"\"\n");
        assert_eq!(r, at(1, "sh", "string_flag"));
        let twice =
            "[[wrapper]]\nnames = [\"sudo\"]\n\n[[wrapper]]\nnames = [\"doas\", \"sudo\"]\n";
        match load(twice) {
            Err((line, id, field, message)) => {
                assert_eq!((line, id.as_str(), field.as_str()), (4, "doas", "names"));
                assert!(
                    message.contains("`sudo` is given twice (first at line 1)"),
                    "{message}"
                );
            }
            Ok(()) => panic!("loaded a name twice"),
        }
        // Near misses: the same words, each once and none empty.
        assert_eq!(
            load(
                "[command.git]\nvalue_flags = [\"-C\"]\n[[wrapper]]\nnames = [\"sudo\"]\n\
                  [[wrapper]]\nnames = [\"doas\"]\nstring_flag = \"-c\"\n"
            ),
            Ok(())
        );
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let cases = [
            (
                GOOD.replace("reason", "raeson"),
                "rules/test.toml: TOML parse error at line 6",
            ),
            (GOOD.replace("reason", "raeson"), "unknown field `raeson`"),
            (
                GOOD.replace("blast_radius = \"high\"", "blast_radius = \"huge\""),
                "rules/test.toml:3: entry `x-delete`: field `blast_radius`",
            ),
            (
                GOOD.replace("[[destructive]]", "[[safe]]"),
                "rules/test.toml:3: entry `x-delete`: field `safe`: rule files hold destructive shapes only",
            ),
            // Whatever keys an old safe entry has.
            (
                GOOD.replace("[[destructive]]", "[[safe]]")
                    .replace("command = [\"x\"]", "command = [\"x\"]\nallow_flags = []"),
                "rules/test.toml:3: entry `x-delete`: field `safe`: rule files hold destructive shapes only",
            ),
            (
                format!("{GOOD}{GOOD}"),
                "rules/test.toml:13: duplicate id `x-delete` (first defined in rules/test.toml:3)",
            ),
            (
                GOOD.replace("command = [\"x\"]", "command = [\"x\"]\nsql = \"x\""),
                "give exactly one of command, sql, code or regex",
            ),
            (
                GOOD.replace(
                    "command = [\"x\"]\nsubcommand = [\"delete\"]",
                    "regex = \"(\"",
                ),
                "field `regex`: invalid regex",
            ),
            (
                GOOD.replace("near_misses = [\"x list\"]", "near_misses = []"),
                "field `near_misses`",
            ),
            (
                GOOD.replace("subcommand = [\"delete\"]", "args = [\"{nope}\"]"),
                "unknown shape `{nope}`",
            ),
            (
                GOOD.replace("examples", "examples = 3\nexamplez"),
                "rules/test.toml: ",
            ),
        ];
        for (text, want) in cases {
            let got = match load_one(&text) {
                Ok(_) => "loaded".to_string(),
                Err(e) => e.to_string(),
            };
            assert!(got.contains(want), "want {want:?} in {got:?}");
        }
    }

    /// The keys only safe entries took (which rule files no longer hold)
    /// are unknown keys now, reported with the file, line and key like any
    /// misspelt one.
    #[test]
    fn keys_of_safe_entries_are_unknown() {
        for key in [
            "allow_flags = [\"-l\"]",
            "global_flags = true",
            "local_paths = true",
        ] {
            let text = GOOD.replace("command = [\"x\"]", &format!("command = [\"x\"]\n{key}"));
            let got = match load_one(&text) {
                Ok(_) => "loaded".to_string(),
                Err(e) => e.to_string(),
            };
            let field = key.split(' ').next().unwrap_or(key);
            for want in [
                "rules/test.toml: TOML parse error at line 8".to_string(),
                format!("unknown field `{field}`"),
            ] {
                assert!(got.contains(&want), "want {want:?} in {got:?}");
            }
        }
    }
}
