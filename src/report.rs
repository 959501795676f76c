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
pub fn write_record<W: Write>(
    out: &mut W,
    command: &str,
    label: Option<&Label>,
    error: Option<(u64, &str)>,
) -> io::Result<()> {
    // The same keys and rules as `Label::metadata`, read straight from the
    // label.
    let md = label.map(|l| {
        (
            l.blast_radius.map(|r| r.as_str()),
            (!l.category.is_empty()).then_some(l.category.as_ref()),
            (matches!(l.class, Class::Safe | Class::Destructive) && !l.reason.is_empty())
                .then_some(l.reason.as_ref()),
            l.class.as_str(),
        )
    });
    let mut first = true;
    let mut field = |out: &mut W, key: &str, value: &str| -> io::Result<()> {
        out.write_all(if first { b"{\"" } else { b",\"" })?;
        first = false;
        out.write_all(key.as_bytes())?;
        out.write_all(b"\":")?;
        write_json_str(out, value)
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
        write!(out, ",\"line\":{line}")?;
    }
    if let Some(v) = md.and_then(|m| m.2) {
        field(out, "reason", v)?;
    }
    if let Some((_, _, _, class)) = md {
        field(out, "safety_label", class)?;
    }
    out.write_all(b"}\n")
}

/// How many leading bytes need no JSON escape (none is `"`, `\\` or a
/// control byte below 0x20), eight at a time.
fn plain_prefix(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // True when some byte of `v` is zero, or below `n` (n <= 0x80).
    let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGH != 0;
    let mut i = 0;
    while i < bytes.len() {
        // The last few bytes are padded with a letter.
        let chunk = &bytes[i..bytes.len().min(i + 8)];
        let mut word = [b'a'; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        if below(v, 0x20) || below(v ^ (ONES * 0x22), 1) || below(v ^ (ONES * 0x5c), 1) {
            break;
        }
        i += chunk.len();
    }
    i + bytes[i..]
        .iter()
        .position(|&b| b < 0x20 || b == b'"' || b == b'\\')
        .unwrap_or(bytes.len() - i)
}

/// Writes `s` as a JSON string, escaped as serde_json escapes it (a test
/// holds the two together). Runs of bytes that need no escape, nearly
/// every byte of a command, are written in one call.
fn write_json_str<W: Write + ?Sized>(out: &mut W, s: &str) -> io::Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    out.write_all(b"\"")?;
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        i += plain_prefix(&bytes[i..]);
        let Some(&b) = bytes.get(i) else { break };
        i += 1;
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => &[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ],
            _ => continue,
        };
        out.write_all(&bytes[run..i - 1])?;
        out.write_all(escape)?;
        run = i;
    }
    out.write_all(&bytes[run..])?;
    out.write_all(b"\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_prefix_stops_at_the_first_byte_to_escape() {
        for len in 0..20 {
            for at in 0..=len {
                for special in [b'"', b'\\', 0u8, 0x1f, b'\n'] {
                    let mut bytes = vec![b'a'; len];
                    bytes.extend_from_slice("é ~\u{7f}".as_bytes());
                    if at < len {
                        bytes[at] = special;
                    }
                    let want = if at < len { at } else { bytes.len() };
                    assert_eq!(plain_prefix(&bytes), want, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut cases: Vec<String> = (0u32..0x80)
            .filter_map(char::from_u32)
            .map(|c| format!("a{c}b{c}"))
            .collect();
        cases.extend(
            [
                "",
                "plain",
                "\"quoted\" \\ back",
                "ünï\u{2028}cödé\u{7f}",
                "\u{1b}[31m",
            ]
            .map(String::from),
        );
        for s in cases {
            let mut ours = Vec::new();
            let wrote = write_json_str(&mut ours, &s);
            assert!(wrote.is_ok());
            let theirs = serde_json::to_string(&s).unwrap_or_default();
            assert_eq!(String::from_utf8_lossy(&ours), theirs, "{s:?}");
        }
    }

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
