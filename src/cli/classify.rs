//! `toolgate classify`.

use std::io::{Read, Write};
use std::path::Path;

use anyhow::Context;
use serde_json::{Map, Value};
use toolgate::taxonomy::{dir_sources, load_sources};
use toolgate::{Classifier, Label};

use super::Format;

/// The embedded classifier, or one built from a taxonomy directory.
pub fn load(dir: Option<&Path>) -> anyhow::Result<&'static Classifier> {
    match dir {
        None => Ok(Classifier::embedded()?),
        Some(dir) => {
            check_taxonomy_dir(dir)?;
            let sources = dir_sources(dir)
                .with_context(|| format!("reading taxonomy directory {}", dir.display()))?;
            let tax = load_sources(&sources)
                .with_context(|| format!("in taxonomy directory {}", dir.display()))?;
            let classifier = Classifier::new(tax)?;
            Ok(Box::leak(Box::new(classifier)))
        }
    }
}

/// Refuses a directory that holds no taxonomy, naming what is missing: a
/// directory without its files would label every command unknown, and a
/// CI gate built on it would pass silently.
fn check_taxonomy_dir(dir: &Path) -> anyhow::Result<()> {
    let has_toml = |sub: &str| {
        std::fs::read_dir(dir.join(sub)).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.path().extension().is_some_and(|x| x == "toml"))
        })
    };
    let mut missing = Vec::new();
    if !dir.join("commands.toml").is_file() {
        missing.push("commands.toml");
    }
    if !has_toml("rules") {
        missing.push("rules/*.toml");
    }
    if !has_toml("specs") {
        missing.push("specs/*.toml");
    }
    if !dir.is_dir() {
        anyhow::bail!("--taxonomy {}: no such directory", dir.display());
    }
    if !missing.is_empty() {
        anyhow::bail!(
            "--taxonomy {}: not a taxonomy directory: it has no {} (the repository's taxonomy/ has them all)",
            dir.display(),
            missing.join(", no ")
        );
    }
    Ok(())
}

/// The JSON rendering: the metadata keys plus `origin`.
pub fn label_json(label: &Label) -> Value {
    let mut map = Map::new();
    for (k, v) in label.metadata() {
        map.insert(k.to_string(), Value::String(v));
    }
    map.insert("origin".into(), Value::String(label.origin.as_str().into()));
    Value::Object(map)
}

/// The one-line rendering for people.
pub fn label_text(label: &Label) -> String {
    let mut s = label.class.as_str().to_string();
    s.push_str(&format!(" ({})", label.blast_radius));
    if !label.category.is_empty() {
        s.push_str(&format!(" {}", label.category));
    }
    if !label.reason.is_empty() {
        s.push_str(&format!(": {}", label.reason));
    }
    s
}

pub fn run(
    classifier: &Classifier,
    format: Format,
    words: &[String],
    ctx: &toolgate::Context<'_>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let command = if words.len() == 1 && words[0] == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("reading the command from stdin")?;
        String::from_utf8_lossy(&buf)
            .trim_end_matches('\n')
            .to_string()
    } else {
        words.join(" ")
    };
    let label = classifier.classify_in(&command, ctx);
    match format {
        Format::Json => writeln!(out, "{}", label_json(&label))?,
        Format::Text => writeln!(out, "{}", label_text(&label))?,
    }
    Ok(())
}
