//! `toolgate scan --format sarif` output, validated against the published
//! SARIF 2.1.0 JSON schema (vendored in tests/data/sarif, see its README)
//! with a JSON Schema validator.

use toolgate::findings::{rules, sarif, Hit};
use toolgate::scan_input::{extract, label, Kind};
use toolgate::Classifier;

const SCHEMA: &str = include_str!("data/sarif/sarif-schema-2.1.0.json");

/// Every error the validator finds, as `path: message` lines.
fn errors(log: &serde_json::Value) -> Vec<String> {
    let schema: serde_json::Value = match serde_json::from_str(SCHEMA) {
        Ok(s) => s,
        Err(e) => return vec![format!("the vendored schema is not JSON: {e}")],
    };
    let validator = match jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .should_validate_formats(true)
        .build(&schema)
    {
        Ok(v) => v,
        Err(e) => return vec![format!("the vendored schema does not compile: {e}")],
    };
    validator
        .iter_errors(log)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Hits from a workflow with a destructive step, an injected expression
/// and an unreadable step, labelled by the embedded taxonomy.
fn hits(classifier: &Classifier) -> Vec<Hit> {
    let workflow = "jobs:\n  build:\n    steps:\n      - name: Clean\n        run: |\n          rm -rf target\n          echo \"${{ github.event.issue.title }}\"\n      - run: echo 'unclosed\n";
    let e = extract(Kind::GithubActions, workflow);
    let mut hits: Vec<Hit> = e
        .found
        .iter()
        .map(|f| Hit {
            file: Some(".github/workflows/ci yml.yml".into()),
            line: f.line,
            column: f.column,
            command: f.command.clone(),
            label: Some(label(classifier, f, None)),
            names: f.names.clone(),
        })
        .collect();
    hits.extend(e.problems.iter().map(|p| Hit {
        file: Some(".github/workflows/ci yml.yml".into()),
        line: p.line,
        column: p.column,
        command: p.message.clone(),
        label: None,
        names: Vec::new(),
    }));
    hits
}

#[test]
fn sarif_is_valid_against_the_published_schema() {
    let classifier = match Classifier::embedded() {
        Ok(c) => c,
        Err(e) => panic!("embedded taxonomy: {e}"),
    };
    let hits = hits(classifier);
    assert_eq!(hits.len(), 3, "{hits:?}");
    let log = sarif(&hits, &rules(classifier.taxonomy()), "0.1.0");
    assert_eq!(errors(&log), Vec::<String>::new());
    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let summary: Vec<(String, String, u64, u64)> = results
        .iter()
        .map(|r| {
            let region = &r["locations"][0]["physicalLocation"]["region"];
            (
                r["ruleId"].as_str().unwrap_or_default().to_string(),
                r["level"].as_str().unwrap_or_default().to_string(),
                region["startLine"].as_u64().unwrap_or_default(),
                region["startColumn"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    let want = [
        ("fs-delete", "error", 6, 11),
        ("unknown", "note", 7, 11),
        ("unreadable", "error", 8, 20),
    ];
    let want: Vec<(String, String, u64, u64)> = want
        .iter()
        .map(|(r, l, a, b)| (r.to_string(), l.to_string(), *a, *b))
        .collect();
    assert_eq!(summary, want);
    let uri = &results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert_eq!(uri, ".github/workflows/ci%20yml.yml");
    // Every result's rule is among the rules, at its index.
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for r in &results {
        let i = r["ruleIndex"].as_u64().unwrap_or(u64::MAX) as usize;
        assert_eq!(rules.get(i).map(|x| &x["id"]), Some(&r["ruleId"]));
    }
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    // A negative beside the positive: the validator is really checking.
    let bad = serde_json::json!({
        "version": "2.1.0",
        "runs": [{ "tool": { "driver": { "name": "toolgate" } },
                   "results": [{ "message": { "text": "x" }, "level": "fatal",
                                 "locations": [{ "physicalLocation": { "region": { "startLine": 0 } } }] }] }]
    });
    let errs = errors(&bad);
    assert!(errs.iter().any(|e| e.contains("/level")), "{errs:?}");
    assert!(errs.iter().any(|e| e.contains("/startLine")), "{errs:?}");
    let wrong_version = serde_json::json!({ "version": "2.0.0", "runs": [] });
    assert!(!errors(&wrong_version).is_empty());
}
