//! `docs/profiles.md` is generated from the profiles the code loads; this
//! test fails when the page and the code disagree. Regenerate with
//! `TOOLGATE_BLESS=1 cargo test --locked reference_doc`.

use std::fmt::Write as _;
use std::path::Path;

use toolgate::gate::Mode;
use toolgate::profile::{
    action_class_map, builtin_action, builtin_automation, builtin_modes, threshold_map,
    ActionClass, NamedRule, Thresholds,
};

fn rule_text(r: &NamedRule) -> String {
    let v = serde_json::to_value(r).unwrap_or_default();
    let params: Vec<String> = v
        .as_object()
        .map(|o| {
            o.iter()
                .filter(|(k, _)| k.as_str() != "rule")
                .map(|(k, v)| format!("{k} = {v}"))
                .collect()
        })
        .unwrap_or_default();
    if params.is_empty() {
        format!("`{}`", r.name())
    } else {
        format!("`{}` ({})", r.name(), params.join(", "))
    }
}

/// A table's header row and its rule: the first column, then one per item.
fn header(w: &mut String, first: &str, columns: impl Iterator<Item = String>) {
    let columns: Vec<String> = columns.collect();
    let _ = write!(w, "| {first} |");
    for c in &columns {
        let _ = write!(w, " {c} |");
    }
    let _ = writeln!(w, "\n|---|{}", "---|".repeat(columns.len()));
}

fn generate() -> String {
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(
        w,
        "# Profiles reference\n\n<!-- Generated from taxonomy/profiles by tests/reference_doc.rs; \
         do not edit by hand. Regenerate: TOOLGATE_BLESS=1 cargo test --locked reference_doc -->\n"
    );

    let _ = writeln!(
        w,
        "## Safety modes\n\nDecision per label (`--mode` or `--profile`).\n"
    );
    let _ = writeln!(
        w,
        "| mode | safe | destructive | unknown | description |\n|---|---|---|---|---|"
    );
    let labels = [
        toolgate::classify("git status"),
        toolgate::classify("rm -rf /"),
        toolgate::classify("frobnicate --all"),
    ];
    for p in builtin_modes() {
        let mode = Mode::parse(Some(p.name())).mode;
        let d: Vec<&str> = labels.iter().map(|l| mode.decide(l).as_str()).collect();
        let _ = writeln!(
            w,
            "| `{}` | {} | {} | {} | {} |",
            p.name(),
            d[0],
            d[1],
            d[2],
            p.description()
        );
    }

    let _ = writeln!(
        w,
        "\n## Automation profiles\n\nThresholds: 0 runs on its own, 1 always waits for a person, \
         between: the call runs only when its confidence exceeds the threshold.\n"
    );
    let all = builtin_automation();
    header(w, "threshold", all.iter().map(|p| format!("`{}`", p.name)));
    for t in Thresholds::NAMES {
        let _ = write!(w, "| `{t}` |");
        for p in all {
            let _ = write!(w, " {} |", p.thresholds.get(t).unwrap_or(f64::NAN));
        }
        let _ = writeln!(w);
    }
    let _ = writeln!(w, "\nSafety sub-profiles:\n");
    header(w, "field", all.iter().map(|p| format!("`{}`", p.name)));
    let fields: Vec<String> = serde_json::to_value(&all[0].safety)
        .ok()
        .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect()))
        .unwrap_or_default();
    for f in &fields {
        let _ = write!(w, "| `{f}` |");
        for p in all {
            let v = serde_json::to_value(&p.safety).unwrap_or_default();
            let _ = write!(w, " {} |", v[f.as_str()]);
        }
        let _ = writeln!(w);
    }
    if let Some(map) = threshold_map() {
        let _ = writeln!(
            w,
            "\nWhich threshold a call answers to (a safe label is automatic in every profile \
             but `manual`; first matching category prefix wins):\n\n| category prefix | threshold |\n|---|---|"
        );
        for r in &map.categories {
            let _ = writeln!(w, "| `{}` | `{}` |", r.prefix, r.threshold);
        }
        let _ = writeln!(w, "| anything else | `{}` |", map.default_threshold);
        let c = &map.label_confidence;
        let _ = writeln!(
            w,
            "\nA label's own confidence: safe {}, destructive low {}, medium {}, high {}, unknown {}.",
            c.safe, c.low, c.medium, c.high, c.unknown
        );
    }

    let _ = writeln!(w, "\n## Action-class profiles\n");
    let actions = builtin_action();
    header(
        w,
        "class",
        actions
            .iter()
            .map(|p| format!("`{}` {}", p.name, p.version)),
    );
    for c in ActionClass::ALL {
        let _ = write!(w, "| `{}` |", c.as_str());
        for p in actions {
            let d = p.classes.get(&c).map_or("ask", |d| d.as_str());
            let _ = write!(w, " {d} |");
        }
        let _ = writeln!(w);
    }
    let _ = writeln!(w, "\nDenied combinations and named rules:\n");
    for p in actions {
        let combos: Vec<String> = p
            .deny_combinations
            .iter()
            .map(|c| c.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(" + "))
            .collect();
        let rules: Vec<String> = p.rules.iter().map(rule_text).collect();
        let _ = writeln!(
            w,
            "- `{}`: deny {}; rules: {}.",
            p.name,
            combos.join(", "),
            if rules.is_empty() {
                "none".into()
            } else {
                rules.join(", ")
            }
        );
    }
    if let Some(map) = action_class_map() {
        let list = |v: &[ActionClass]| {
            v.iter()
                .map(|c| format!("`{}`", c.as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            w,
            "\nA call's classes: safe labels {}; unknown labels {}; destructive labels by \
             category (first matching prefix), {} when none matches; \
             a destructive label with a high blast radius also has {}.\n\n| category prefix | classes |\n|---|---|",
            list(&map.safe),
            list(&map.unknown),
            list(&map.unmatched),
            list(&map.high_radius)
        );
        for r in &map.categories {
            let _ = writeln!(w, "| `{}` | {} |", r.prefix, list(&r.classes));
        }
    }
    s
}

#[test]
fn reference_page_matches_the_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/profiles.md");
    let want = generate();
    if std::env::var_os("TOOLGATE_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/profiles.md is out of date: run TOOLGATE_BLESS=1 cargo test --locked reference_doc"
    );
}
