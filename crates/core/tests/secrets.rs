//! The secret taxonomy proves itself: every detector finds each of its
//! examples and none of its near misses, the placeholders read as they say,
//! every `files.toml` table matches its examples and no table matches a
//! near miss, and a broken file is refused with its file, line and field.
//! The cases are read from the TOML (the compiled form carries none), so a
//! case added there is tested here without a line of code.

use toolgate_core::secrets::{self, files, SecretHit};
use toolgate_core::taxonomy::embedded_sources;
use toolgate_core::TaxonomyError;

/// The embedded `taxonomy/secrets/` files as (name, parsed TOML).
fn secret_files() -> Vec<(String, toml::Table)> {
    embedded_sources()
        .into_iter()
        .filter_map(|(path, text)| {
            let name = path.strip_prefix("secrets/")?.to_string();
            let table = text
                .parse::<toml::Table>()
                .unwrap_or_else(|e| panic!("{path}: {e}"));
            Some((name, table))
        })
        .collect()
}

fn strings(v: Option<&toml::Value>) -> Vec<String> {
    v.and_then(toml::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// `(file, id, examples, near misses)` of every detector.
fn detector_cases() -> Vec<(String, String, Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    for (name, table) in secret_files() {
        let Some(dets) = table.get("detector").and_then(toml::Value::as_array) else {
            continue;
        };
        for d in dets {
            let id = d.get("id").and_then(toml::Value::as_str).unwrap_or("?");
            out.push((
                name.clone(),
                id.to_string(),
                strings(d.get("examples")),
                strings(d.get("near_misses")),
            ));
        }
    }
    out
}

fn found_by(text: &str, id: &str) -> Vec<SecretHit> {
    secrets::scan(text.as_bytes())
        .filter(|h| h.detector == id)
        .collect()
}

#[test]
fn every_detector_finds_its_examples_and_none_of_its_near_misses() {
    let cases = detector_cases();
    let compiled: Vec<&str> = secrets::detector_list().map(|d| d.id).collect();
    assert_eq!(
        cases.iter().map(|c| c.1.as_str()).collect::<Vec<_>>(),
        compiled,
        "the compiled detectors are the files' detectors, in order"
    );
    let mut failures = Vec::new();
    let mut examples = 0;
    for (file, id, good, bad) in &cases {
        for ex in good {
            examples += 1;
            if found_by(ex, id).is_empty() {
                failures.push(format!("{file} `{id}`: example not found: {ex:?}"));
            }
        }
        for nm in bad {
            let hits = found_by(nm, id);
            if let Some(h) = hits.first() {
                failures.push(format!(
                    "{file} `{id}`: near miss found: {nm:?} ({:?})",
                    &nm.as_bytes()[h.range.clone()]
                ));
            }
        }
    }
    assert!(examples > 300, "{examples}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_example_is_found_on_any_line_of_a_longer_text() {
    // A long text is searched as four streams at once: each example, put
    // among enough plain lines to fall in another stream than the first,
    // is found there too, on its own line.
    let filler = "plain words on a line of their own\n".repeat(150);
    for (file, id, good, _) in detector_cases() {
        for ex in good {
            let text = format!("{filler}{ex}\n{filler}");
            let first_line = filler.lines().count() + 1;
            let hits = found_by(&text, &id);
            assert!(
                hits.iter().any(|h| h.line >= first_line),
                "{file} `{id}`: {ex:?} not found in a long text"
            );
        }
    }
}

#[test]
fn placeholders_read_as_they_say_and_are_no_detector_s_secret() {
    let (_, table) = secret_files()
        .into_iter()
        .find(|(n, _)| n == "placeholders.toml")
        .expect("placeholders.toml");
    let p = table.get("placeholders").expect("[placeholders]");
    let examples = strings(p.get("examples"));
    let near = strings(p.get("near_misses"));
    assert!(examples.len() >= 2 && near.len() >= 2);
    for ex in &examples {
        assert!(secrets::is_placeholder(ex.as_bytes()), "{ex:?}");
        let hits: Vec<SecretHit> = secrets::scan(ex.as_bytes()).collect();
        assert!(hits.is_empty(), "placeholder {ex:?} found: {hits:?}");
    }
    for nm in &near {
        assert!(!secrets::is_placeholder(nm.as_bytes()), "{nm:?}");
    }
}

#[test]
fn every_file_table_matches_its_examples_and_no_table_a_near_miss() {
    let (_, table) = secret_files()
        .into_iter()
        .find(|(n, _)| n == "files.toml")
        .expect("files.toml");
    let mut failures = Vec::new();
    let mut cases = 0;
    for key in ["dirs", "names", "suffixes", "paths", "words"] {
        for t in table
            .get(key)
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
        {
            let kind = t.get("kind").and_then(toml::Value::as_str).unwrap_or("?");
            for ex in strings(t.get("examples")) {
                cases += 1;
                if files::kind_of_path(&ex, true).is_none() {
                    failures.push(format!("[[{key}]] {kind}: example not matched: {ex:?}"));
                }
            }
            for nm in strings(t.get("near_misses")) {
                cases += 1;
                if let Some(k) = files::kind_of_path(&nm, true) {
                    failures.push(format!("[[{key}]] {kind}: near miss {nm:?} matched as {k}"));
                }
            }
        }
    }
    assert!(cases > 300, "{cases}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn hits_say_which_detector_what_kind_which_line_and_where() {
    let text = "# deploy settings\n\
                region: eu-west-1\n\
                token: ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\n\
                url: https://deploy:WNxvYCiTPjH5UPsGaQoF@github.com/acme/app.git\n";
    let hits: Vec<SecretHit> = secrets::scan(text.as_bytes()).collect();
    let seen: Vec<(&str, &str, usize, &str)> = hits
        .iter()
        .map(|h| (h.detector, h.kind, h.line, &text[h.range.clone()]))
        .collect();
    assert_eq!(
        seen,
        [
            (
                "secret-assignment-unquoted",
                "a secret assigned to a name",
                3,
                "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
            ),
            (
                "github-personal-access-token",
                "a GitHub access token",
                3,
                "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
            ),
            (
                "url-password",
                "a password in a URL",
                4,
                "WNxvYCiTPjH5UPsGaQoF"
            ),
        ]
    );
    // The first hit, and nothing read past it.
    let first = secrets::contains_secret(text.as_bytes()).expect("a hit");
    assert_eq!(first, hits[0]);
    // Keys split across lines are not one line's: each line alone.
    assert_eq!(secrets::contains_secret(b"aws_secret_access_key =\n"), None);
    assert_eq!(secrets::contains_secret(b""), None);
    assert_eq!(secrets::contains_secret(b"\n\n\n"), None);
}

#[test]
fn a_private_key_file_is_found_on_its_first_line() {
    let key = "-----BEGIN OPENSSH PRIVATE KEY-----\n\
               b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n\
               -----END OPENSSH PRIVATE KEY-----\n";
    let hit = secrets::contains_secret(key.as_bytes()).expect("a key");
    assert_eq!(
        (hit.detector, hit.kind, hit.line),
        ("private-key-block", "a private key", 1)
    );
    // Bytes that are no UTF-8 around it change nothing.
    let mut bytes = vec![0xff, 0xfe, b'\n'];
    bytes.extend_from_slice(key.as_bytes());
    let hit = secrets::contains_secret(&bytes).expect("a key");
    assert_eq!(hit.line, 2);
}

#[test]
fn a_broken_file_is_refused_with_its_file_line_and_field() {
    let mut sources: Vec<(String, String)> = embedded_sources()
        .into_iter()
        .filter_map(|(p, t)| Some((p.strip_prefix("secrets/")?.to_string(), t)))
        .collect();
    assert!(secrets::check_sources(&sources).is_ok());
    let vcs = sources
        .iter_mut()
        .find(|(p, _)| p == "vcs.toml")
        .expect("vcs.toml");
    let line = vcs
        .1
        .lines()
        .position(|l| l.trim() == "id = \"github-oauth-token\"")
        .expect("the id's line")
        + 1;
    vcs.1 = vcs.1.replacen(
        "pattern = '''\\b(?P<secret>gho_",
        "pattern = '''\\b(?P<token>gho_",
        1,
    );
    match secrets::check_sources(&sources) {
        Err(TaxonomyError::Entry {
            file,
            line: l,
            id,
            field,
            ..
        }) => {
            assert_eq!(
                (file.as_str(), l, id.as_str(), field.as_str()),
                ("secrets/vcs.toml", line, "github-oauth-token", "pattern")
            );
        }
        other => panic!("{other:?}"),
    }
}

/// The reference check (`tests/secrets_data_check.py`) passes too, where a
/// Python with `tomllib` (3.11 or later) is at hand.
#[test]
fn the_python_reference_check_passes() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let has_tomllib = std::process::Command::new("python3")
        .args(["-c", "import tomllib"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_tomllib {
        eprintln!("skipped: no python3 with tomllib");
        return;
    }
    let out = std::process::Command::new("python3")
        .arg(format!("{root}/tests/secrets_data_check.py"))
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `script` with the reference module loaded as `ref` and `probes`
/// on its standard input, one a line; its output lines, or `None` where
/// no Python with `tomllib` is at hand.
fn reference(script: &str, probes: &[String]) -> Option<Vec<String>> {
    use std::io::Write;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let prelude = format!(
        "import importlib.util, sys\n\
         spec = importlib.util.spec_from_file_location('ref', '{root}/tests/secrets_data_check.py')\n\
         ref = importlib.util.module_from_spec(spec)\n\
         spec.loader.exec_module(ref)\n"
    );
    let mut child = std::process::Command::new("python3")
        .args(["-c", &format!("{prelude}{script}")])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .ok()?;
    let mut input = probes.join("\n");
    input.push('\n');
    let mut stdin = child.stdin.take()?;
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(String::from)
            .collect(),
    )
}

/// Paths and words to compare the two matchers on: every case of
/// `files.toml`, every word of the project's corpora, and each entry of
/// the tables in a few shapes and places.
fn path_probes() -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut words: Vec<String> = Vec::new();
    for file in [
        "corpus/core.jsonl",
        "corpus/agent-calls.jsonl",
        "corpus/allow-list-traps.jsonl",
    ] {
        if let Ok(text) = std::fs::read_to_string(format!("{root}/{file}")) {
            for w in text.split(|c: char| c.is_whitespace() || c == '"' || c == '\'') {
                words.push(w.to_string());
                words.extend(w.split(['=', ':', ',']).map(str::to_string));
            }
        }
    }
    let (_, table) = secret_files()
        .into_iter()
        .find(|(n, _)| n == "files.toml")
        .expect("files.toml");
    for key in ["dirs", "names", "suffixes", "paths", "words"] {
        for t in table
            .get(key)
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
        {
            words.extend(strings(t.get("examples")));
            words.extend(strings(t.get("near_misses")));
            for list in ["names", "suffixes", "paths", "words"] {
                for e in strings(t.get(list)) {
                    let e = e.replace("**", "a/b").replace('*', "x");
                    for shape in [
                        e.clone(),
                        e.to_ascii_uppercase(),
                        format!("x{e}"),
                        format!("{e}.bak~"),
                        format!("{e}.md"),
                        format!("{e}.pub"),
                        format!("my_{e}_x.txt"),
                    ] {
                        for dir in ["", ".git/", "/home/u/.config/"] {
                            words.push(format!("{dir}{shape}"));
                            words.push(format!("{shape}/{dir}y"));
                        }
                    }
                }
            }
        }
    }
    words.retain(|w| !w.is_empty() && !w.contains(['\n', '\r']) && w.is_ascii());
    words.sort();
    words.dedup();
    words
}

/// The file-name matcher says of every probe what the reference matcher
/// says: the same kind (the first table that matches), or none.
#[test]
fn the_file_matcher_agrees_with_the_reference() {
    let probes = path_probes();
    assert!(probes.len() > 10_000, "{}", probes.len());
    let script = "tables = ref.load_files(ref.DIR / 'files.toml')\n\
                  for line in sys.stdin:\n    p = line.rstrip('\\n')\n    \
                  print(next((t.kind for t in tables if t.matches(p) is not None), '-'))\n";
    let Some(want) = reference(script, &probes) else {
        eprintln!("skipped: no python3 with tomllib");
        return;
    };
    assert_eq!(want.len(), probes.len());
    let mut secret = 0;
    let mut differ = Vec::new();
    for (p, w) in probes.iter().zip(&want) {
        let got = files::kind_of_path(p, true).unwrap_or("-");
        secret += usize::from(got != "-");
        if got != w {
            differ.push(format!("{p:?}: {got} (reference: {w})"));
        }
    }
    assert!(secret > 1_000, "{secret}");
    assert!(
        differ.is_empty(),
        "{}:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// The detectors find in every line of the project's corpora, and of the
/// secret taxonomy itself, what the reference's detectors find there.
#[test]
fn the_detectors_agree_with_the_reference() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut lines: Vec<String> = Vec::new();
    for file in [
        "corpus/core.jsonl",
        "corpus/agent-calls.jsonl",
        "corpus/allow-list-traps.jsonl",
        "corpus/shell-traps.jsonl",
    ] {
        if let Ok(text) = std::fs::read_to_string(format!("{root}/{file}")) {
            lines.extend(text.lines().map(String::from));
        }
    }
    for (path, text) in embedded_sources() {
        if path.starts_with("secrets/") {
            lines.extend(text.lines().map(String::from));
        }
    }
    for (_, _, good, bad) in detector_cases() {
        lines.extend(
            good.iter()
                .chain(&bad)
                .flat_map(|t| t.split('\n'))
                .map(String::from),
        );
    }
    lines.retain(|l| !l.contains('\r'));
    lines.sort();
    lines.dedup();
    let script = "ph = ref.load_placeholders(ref.DIR / 'placeholders.toml')\n\
                  dets = []\n\
                  for p in sorted(ref.DIR.glob('*.toml')):\n    \
                  if p.name not in ('placeholders.toml', 'files.toml'):\n        \
                  dets += ref.load_detectors(p, ph, {})\n\
                  for line in sys.stdin:\n    l = line.rstrip('\\n')\n    \
                  print(' '.join(d.id for d in dets if d.find(l) is not None) or '-')\n";
    let Some(want) = reference(script, &lines) else {
        eprintln!("skipped: no python3 with tomllib");
        return;
    };
    assert_eq!(want.len(), lines.len());
    let mut differ = Vec::new();
    let mut found = 0;
    for (l, w) in lines.iter().zip(&want) {
        let mut ids: Vec<&str> = secrets::scan(l.as_bytes()).map(|h| h.detector).collect();
        let order: Vec<&str> = secrets::detector_list().map(|d| d.id).collect();
        ids.sort_by_key(|id| order.iter().position(|o| o == id));
        ids.dedup();
        let got = if ids.is_empty() {
            "-".to_string()
        } else {
            ids.join(" ")
        };
        found += usize::from(got != "-");
        if got != *w {
            differ.push(format!("{l:?}: {got} (reference: {w})"));
        }
    }
    assert!(found > 300, "{found}");
    assert!(
        differ.is_empty(),
        "{}:\n{}",
        differ.len(),
        differ.join("\n")
    );
}
