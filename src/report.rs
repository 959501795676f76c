//! Output records shared by the command line and library users.

use std::io::{self, Write};

use crate::label::Label;

/// Writes one `scan` JSONL record: `command` plus the label's metadata keys
/// (and `line` and `error` for a line that was not read cleanly), keys in
/// sorted order, without building an intermediate JSON value.
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
    let md = label.map(Label::metadata).unwrap_or_default();
    let mut first = true;
    let mut field = |out: &mut dyn Write, key: &str, value: &str| -> io::Result<()> {
        out.write_all(if first { b"{\"" } else { b",\"" })?;
        first = false;
        out.write_all(key.as_bytes())?;
        out.write_all(b"\":")?;
        serde_json::to_writer(&mut *out, value).map_err(io::Error::other)
    };
    if let Some(v) = md.get("blast_radius") {
        field(out, "blast_radius", v)?;
    }
    if let Some(v) = md.get("category") {
        field(out, "category", v)?;
    }
    field(out, "command", command)?;
    if let Some((line, message)) = error {
        field(out, "error", message)?;
        out.write_all(format!(",\"line\":{line}").as_bytes())?;
    }
    if let Some(v) = md.get("reason") {
        field(out, "reason", v)?;
    }
    if let Some(v) = md.get("safety_label") {
        field(out, "safety_label", v)?;
    }
    out.write_all(b"}\n")
}
