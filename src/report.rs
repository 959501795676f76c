//! Output records shared by the command line and library users.

use std::io::{self, Write};

use crate::label::{Class, Label};

/// Writes one `scan` JSONL record: `command` plus the label's metadata keys
/// (and `line` and `error` for a line that was not read cleanly), keys in
/// sorted order, without building an intermediate map. A test checks it
/// against [`Label::metadata`].
///
/// ```
/// let mut out = Vec::new();
/// toolgate::report::write_record(&mut out, "npm test", Some(&toolgate::classify("npm test")), None)?;
/// assert_eq!(String::from_utf8_lossy(&out), "{\"blast_radius\":\"unknown\",\"command\":\"npm test\",\"safety_label\":\"unknown\"}\n");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_record(
    out: &mut impl Write,
    command: &str,
    label: Option<&Label>,
    error: Option<(u64, &str)>,
) -> io::Result<()> {
    // The same keys and rules as `Label::metadata`, read straight from the
    // label.
    let md = label.map(|l| {
        (
            l.blast_radius.map(|r| r.as_str()),
            (!l.category.is_empty()).then_some(l.category.as_str()),
            (matches!(l.class, Class::Safe | Class::Destructive) && !l.reason.is_empty())
                .then_some(l.reason.as_str()),
            l.class.as_str(),
        )
    });
    let mut first = true;
    let mut field = |out: &mut dyn Write, key: &str, value: &str| -> io::Result<()> {
        out.write_all(if first { b"{\"" } else { b",\"" })?;
        first = false;
        out.write_all(key.as_bytes())?;
        out.write_all(b"\":")?;
        serde_json::to_writer(&mut *out, value).map_err(io::Error::other)
    };
    if let Some(v) = md.and_then(|m| m.0) {
        field(out, "blast_radius", v)?;
    }
    if let Some(v) = md.and_then(|m| m.1) {
        field(out, "category", v)?;
    }
    field(out, "command", command)?;
    if let Some((line, message)) = error {
        field(out, "error", message)?;
        out.write_all(format!(",\"line\":{line}").as_bytes())?;
    }
    if let Some(v) = md.and_then(|m| m.2) {
        field(out, "reason", v)?;
    }
    if let Some((_, _, _, class)) = md {
        field(out, "safety_label", class)?;
    }
    out.write_all(b"}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_carry_exactly_the_metadata() {
        for cmd in ["git status", "rm -rf /tmp/x", "npm test", "", "ls\u{7}"] {
            let label = crate::classify(cmd);
            let mut out = Vec::new();
            let written = write_record(&mut out, cmd, Some(&label), None).map(|()| out);
            let v: serde_json::Value = written
                .ok()
                .and_then(|o| serde_json::from_slice(&o).ok())
                .unwrap_or_default();
            let mut want = serde_json::Map::new();
            for (k, val) in label.metadata() {
                want.insert(k.to_string(), serde_json::Value::String(val));
            }
            want.insert("command".into(), serde_json::Value::String(cmd.into()));
            assert_eq!(v, serde_json::Value::Object(want), "{cmd:?}");
        }
    }
}
