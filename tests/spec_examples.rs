//! Every command spec proves itself: each example is labelled safe by it,
//! each near miss is not safe; the specs the binary carries are the ones
//! the files say; and a broken spec file is refused with its file, line and
//! field.

use toolgate::spec::format::SpecFile;
use toolgate::spec::Specs;
use toolgate::taxonomy::{embedded_sources, load_sources};
use toolgate::{Class, Classifier, Taxonomy, TaxonomyError};

/// `(file, names, examples, near misses)` of one spec.
type Proofs = (String, Vec<String>, Vec<String>, Vec<String>);

/// The proofs of every embedded spec, read from the TOML (the compiled
/// form carries no examples).
fn spec_examples() -> Vec<Proofs> {
    let mut out = Vec::new();
    for (file, text) in embedded_sources() {
        if !file.starts_with("specs/") {
            continue;
        }
        let parsed: SpecFile = toml::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
        for raw in parsed.command {
            out.push((file.clone(), raw.names, raw.examples, raw.near_misses));
        }
    }
    out
}

#[test]
fn every_spec_example_is_safe_and_every_near_miss_is_not() {
    let c = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    let mut examples = 0;
    for (file, names, good, bad) in spec_examples() {
        for ex in &good {
            examples += 1;
            let a = c.analyze(ex);
            if a.label.class != Class::Safe {
                failures.push(format!(
                    "{file} {names:?}: example {ex:?} is {} ({}): {:?}",
                    a.label.class, a.label.reason, a.not_safe
                ));
            }
        }
        for nm in &bad {
            let label = c.classify(nm);
            if label.class == Class::Safe {
                failures.push(format!(
                    "{file} {names:?}: near miss {nm:?} is safe ({})",
                    label.reason
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {examples} spec examples and their near misses failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_shipped_specs_are_the_files_specs() {
    let shipped = Taxonomy::embedded().unwrap_or_else(|e| panic!("{e}"));
    let loaded = load_sources(&embedded_sources()).unwrap_or_else(|e| panic!("{e}"));
    let names = loaded.specs.names();
    assert_eq!(shipped.specs.names(), names);
    assert_eq!(shipped.specs.len(), loaded.specs.len());
    for name in &names {
        assert_eq!(shipped.specs.get(name), loaded.specs.get(name), "{name}");
    }
    assert!(!names.is_empty(), "no specs: nothing could ever be safe");
}

fn load_error(text: &str) -> String {
    match Specs::load(&[("specs/broken.toml".into(), text.into())]) {
        Ok(_) => panic!("loaded: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_broken_spec_names_its_file_line_and_field() {
    let table = "# header\n\n[[command]]\nnames = [\"x\"]\ncategory = \"c\"\nreason = \"r\"\n";
    assert_eq!(
        load_error(&format!("{table}options = \"-o =flie\"\n")),
        "specs/broken.toml:3: entry `x`: field `options`: option line 1: unknown role `flie` (roles: text, key, env-name, number, pattern, file, file-meta, local-file, dir, workdir, rev, rev-or-path, pathspec, plus-format, git-format, command-name, sed-script, jq-filter, subcommand)"
    );
    assert_eq!(
        load_error(&format!("{table}options = \"-o !write\"\n")),
        "specs/broken.toml:3: entry `x`: field `options`: option line 1: unknown effect `write` (effects: writes, executes, network, secrets, waits, changes, interactive)"
    );
    assert_eq!(
        load_error(&format!("{table}options = \"-o\\n-p\\n-o\"\n")),
        "specs/broken.toml:3: entry `x`: field `options`: option line 3: option `-o` is listed twice"
    );
    assert_eq!(
        load_error(&format!("{table}operands = [\"fiel...\"]\n")),
        "specs/broken.toml:3: entry `x`: field `operands`: unknown role `fiel` (roles: text, key, env-name, number, pattern, file, file-meta, local-file, dir, workdir, rev, rev-or-path, pathspec, plus-format, git-format, command-name, sed-script, jq-filter, subcommand; `ROLE?` optional, `ROLE...` any number)"
    );
    assert_eq!(
        load_error("[[command]]\nnames = [\"x\"]\ncategory = \"c\"\n"),
        "specs/broken.toml:1: entry `x`: field `reason`: a spec that can label a command safe needs a reason"
    );
    let unknown_key = load_error("[[command]]\nnames = [\"x\"]\nforbid_flags = []\n");
    assert!(
        unknown_key.starts_with("specs/broken.toml: ") && unknown_key.contains("forbid_flags"),
        "{unknown_key}"
    );
    let twice =
        format!("{table}\n[[command]]\nnames = [\"x\"]\ncategory = \"c\"\nreason = \"r\"\n");
    assert_eq!(
        load_error(&twice),
        "specs/broken.toml:8: duplicate id `x` (first defined in specs/broken.toml:3)"
    );
    // The loader of a whole taxonomy refuses it too.
    let mut sources = embedded_sources();
    sources.push(("specs/zz.toml".into(), "[[command]]\nnames = 1\n".into()));
    assert!(matches!(
        load_sources(&sources),
        Err(TaxonomyError::Syntax { file, .. }) if file == "specs/zz.toml"
    ));
}
