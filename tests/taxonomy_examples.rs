//! Every taxonomy entry proves itself: each example matches it, each near
//! miss does not.

use std::sync::OnceLock;

use toolgate::taxonomy::{embedded_sources, load_sources};
use toolgate::{Class, Classifier, Taxonomy};

/// A classifier over the embedded TOML, loaded with every check and with
/// its examples (the build-time form the binary uses carries none).
fn classifier() -> &'static Classifier {
    static CELL: OnceLock<Classifier> = OnceLock::new();
    CELL.get_or_init(|| {
        let tax = load_sources(&embedded_sources()).unwrap_or_else(|e| panic!("{e}"));
        Classifier::new(tax).unwrap_or_else(|e| panic!("{e}"))
    })
}

#[test]
fn embedded_taxonomy_loads() {
    // The fast path (build-time binary form, patterns generated on first
    // use)...
    let tax = Taxonomy::embedded().unwrap_or_else(|e| panic!("{e}"));
    // ...holds the same entries as the TOML loaded with every check, at the
    // same lines and with the same generated patterns...
    let checked = classifier().taxonomy();
    assert_eq!(tax.rules().len(), checked.rules().len());
    for (fast, full) in tax.rules().iter().zip(checked.rules()) {
        let view = |r: &toolgate::taxonomy::Rule, shapes| {
            (
                r.id.clone(),
                r.file.clone(),
                r.line,
                r.category.clone(),
                r.blast_radius,
                r.reason.clone(),
                r.commands.clone(),
                r.compiled(shapes).map(|c| format!("{c:?}")).ok(),
            )
        };
        assert_eq!(view(fast, &tax.shapes), view(full, &checked.shapes));
        assert!(fast.line > 0, "{} has no line", fast.id);
    }
    assert_eq!(tax.shapes, checked.shapes);
    let mut paths: Vec<_> = tax.commands.keys().collect();
    paths.sort();
    let mut full_paths: Vec<_> = checked.commands.keys().collect();
    full_paths.sort();
    assert_eq!(paths, full_paths);
    let sorted = |set: &toolgate::taxonomy::Flags| {
        let mut v: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    };
    for path in paths {
        let (a, b) = (&tax.commands[path], &checked.commands[path]);
        assert_eq!(sorted(&a.value_flags), sorted(&b.value_flags), "{path}");
        assert_eq!(sorted(&a.ignore_flags), sorted(&b.ignore_flags), "{path}");
        assert_eq!(sorted(&a.help), sorted(&b.help), "{path}");
        assert_eq!(
            (a.long_single_dash, a.pattern_operand, &a.alias),
            (b.long_single_dash, b.pattern_operand, &b.alias),
            "{path}"
        );
    }
    assert_eq!(tax.wrappers.len(), checked.wrappers.len());
    for (name, a) in &tax.wrappers {
        let b = &checked.wrappers[name];
        assert_eq!(
            format!(
                "{:?}",
                (
                    &a.name,
                    a.skip_positionals,
                    a.assignments,
                    a.keeps_safe,
                    a.joins,
                    &a.string_flag,
                    &a.split_flag
                )
            ),
            format!(
                "{:?}",
                (
                    &b.name,
                    b.skip_positionals,
                    b.assignments,
                    b.keeps_safe,
                    b.joins,
                    &b.string_flag,
                    &b.split_flag
                )
            ),
            "{name}"
        );
        for (x, y) in [
            (&a.value_flags, &b.value_flags),
            (&a.lookup_flags, &b.lookup_flags),
            (&a.unsafe_flags, &b.unsafe_flags),
        ] {
            assert_eq!(sorted(x), sorted(y), "{name}");
        }
    }
    // ...and every automaton of both compiles.
    assert_eq!(
        classifier().compile_all().map_err(|e| e.to_string()),
        Ok(())
    );
    let fast = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(fast.compile_all().map_err(|e| e.to_string()), Ok(()));
}

#[test]
fn every_example_and_near_miss() {
    let c = classifier();
    let mut failures = Vec::new();
    for rule in c.taxonomy().rules() {
        for ex in &rule.examples {
            let a = c.analyze(ex);
            let hit = a.findings.iter().any(|f| f.rule == rule.id);
            if !(hit && a.label.class == Class::Destructive) {
                failures.push(format!(
                    "{}:{} `{}` example {ex:?} -> {} ({}) matched {:?} not_safe {:?}",
                    rule.file,
                    rule.line,
                    rule.id,
                    a.label.class,
                    a.label.category,
                    c.matching_rules(ex),
                    a.not_safe
                ));
            }
        }
        for nm in &rule.near_misses {
            let a = c.analyze(nm);
            if a.findings.iter().any(|f| f.rule == rule.id) {
                failures.push(format!(
                    "{}:{} `{}` near miss {nm:?} matched (label {} {})",
                    rule.file, rule.line, rule.id, a.label.class, a.label.category
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} taxonomy example failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_shipped_automata_agree_with_the_compiled_taxonomy() {
    // The binary's classifier searches automata compiled by build.rs; the
    // one above compiles the TOML here. Every example and near miss must
    // get the same label and the same matching entries from both.
    let shipped = Classifier::embedded().unwrap_or_else(|e| panic!("{e}"));
    let here = classifier();
    let mut differences = Vec::new();
    for rule in here.taxonomy().rules() {
        for cmd in rule.examples.iter().chain(&rule.near_misses) {
            let (a, b) = (shipped.analyze(cmd), here.analyze(cmd));
            let view = |x: &toolgate::classify::Analysis| {
                let mut findings: Vec<String> = x.findings.iter().map(|f| f.rule.clone()).collect();
                findings.sort();
                let safe: Vec<Vec<String>> = x.commands.iter().map(|e| e.safe.clone()).collect();
                (x.label.clone(), findings, safe)
            };
            if view(&a) != view(&b) {
                differences.push(format!("{cmd:?}: shipped {:?} vs {:?}", view(&a), view(&b)));
            }
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
