//! Output records shared by the command line and library users.

use std::io::{self, Write};

use toolgate_core::gate::Decision;
use toolgate_core::label::{BlastRadius, Class, Label};

/// Where a line that was not read cleanly came from, and what was wrong
/// with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadLine<'a> {
    /// The input file, or `None` for standard input.
    pub file: Option<&'a str>,
    /// The line's number in its input, from 1.
    pub line: u64,
    /// What was wrong, e.g. "invalid UTF-8 (read lossily)".
    pub message: &'a str,
}

/// As a message reports it: `FILE:LINE: message`, or `line LINE: message`
/// for standard input.
impl std::fmt::Display for BadLine<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.file {
            Some(file) => write!(f, "{file}:{}: {}", self.line, self.message),
            None => write!(f, "line {}: {}", self.line, self.message),
        }
    }
}

/// Writes one `scan` JSONL record: `command` plus the label's metadata keys
/// (and `error`, `file` and `line` for a line that was not read cleanly),
/// keys in sorted order, without building an intermediate map. A test
/// checks it against [`Label::metadata`].
///
/// ```
/// let mut out = Vec::new();
/// toolgate_scan::report::write_record(&mut out, "npm test", Some(&toolgate_core::classify("npm test")), None)?;
/// assert_eq!(String::from_utf8_lossy(&out), "{\"blast_radius\":\"unknown\",\"command\":\"npm test\",\"safety_label\":\"unknown\"}\n");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_record<W: Write>(
    out: &mut W,
    command: &str,
    label: Option<&Label>,
    error: Option<BadLine<'_>>,
) -> io::Result<()> {
    let mut record = Vec::with_capacity(command.len() + 160);
    push_record(&mut record, command, label, error);
    out.write_all(&record)
}

/// What a record may carry besides the command and its label: the working
/// directory it was classified in, the gate's decision with its source
/// (`scan --decide`), and where the command is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordExtra<'a> {
    /// The working directory, when one was given.
    pub cwd: Option<&'a str>,
    /// The decision and the stable string naming what decided it.
    pub decision: Option<(Decision, &'a str)>,
    /// Where the command is: `file`, `line`, `column` and the names of
    /// its job, step, target or script.
    pub location: Option<Location<'a>>,
}

/// Where a command is, as a record gives it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Location<'a> {
    /// The input file, or `None` for standard input (then no `file` key).
    pub file: Option<&'a FileName>,
    /// The line where the command starts, from 1.
    pub line: u64,
    /// The column where it starts, in characters, from 1.
    pub column: u64,
    /// `(key, name)` pairs: `job`, `script`, `stage`, `step`, `target`.
    pub names: &'a [(&'static str, String)],
}

/// An input file's name with the `file` field that records of its
/// commands carry, escaped once for all of them (a scan writes a record
/// for each line).
///
/// ```
/// let file = toolgate_scan::report::FileName::new("ci \"main\".yml");
/// assert_eq!(file.as_str(), "ci \"main\".yml");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileName {
    name: String,
    /// `"file":"NAME",`, escaped.
    field: Vec<u8>,
}

impl FileName {
    /// The name, and its field rendered.
    pub fn new(name: &str) -> FileName {
        let mut rendered = Vec::with_capacity(name.len() + 10);
        field(&mut rendered, b"\"file\":", name);
        FileName {
            name: name.to_string(),
            field: rendered,
        }
    }

    /// The name as given.
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

/// [`write_record`] into a buffer, as `scan`'s workers render records.
pub fn push_record(
    out: &mut Vec<u8>,
    command: &str,
    label: Option<&Label>,
    error: Option<BadLine<'_>>,
) {
    push_record_with(out, command, label, error, RecordExtra::default());
}

/// [`push_record`] with `cwd`, `decision` and `source` fields (keys still
/// in sorted order).
///
/// ```
/// use toolgate_core::gate::Decision;
/// use toolgate_scan::report::{push_record_with, RecordExtra};
/// let mut out = Vec::new();
/// let extra = RecordExtra { cwd: Some("/app"), decision: Some((Decision::Allow, "mode_balanced")), location: None };
/// push_record_with(&mut out, "ls", Some(&toolgate_core::classify("ls")), None, extra);
/// let v: serde_json::Value = serde_json::from_slice(&out)?;
/// assert_eq!((v["cwd"].as_str(), v["decision"].as_str(), v["source"].as_str()),
///            (Some("/app"), Some("allow"), Some("mode_balanced")));
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn push_record_with(
    out: &mut Vec<u8>,
    command: &str,
    label: Option<&Label>,
    error: Option<BadLine<'_>>,
    extra: RecordExtra<'_>,
) {
    // The same keys and rules as `Label::metadata`, read straight from the
    // label. The opening brace and the blast radius, and the safety label
    // and the closing brace, are one copy each; another field is three.
    let md = label.map(|l| {
        (
            l.blast_radius,
            (!l.category.is_empty()).then_some(l.category.as_ref()),
            (matches!(l.class, Class::Safe | Class::Destructive) && !l.reason.is_empty())
                .then_some(l.reason.as_ref()),
            l.class,
        )
    });
    // Every label has a radius; a line without a label has none.
    match md.map(|m| m.0) {
        Some(radius) => radius_opening(radius).push_to(out),
        None => out.push(b'{'),
    }
    if let Some(v) = md.and_then(|m| m.1) {
        field(out, b"\"category\":", v);
    }
    let at = extra.location;
    if let Some(at) = at {
        number(out, b"\"column\":", at.column);
    }
    field(out, b"\"command\":", command);
    if let Some(cwd) = extra.cwd {
        field(out, b"\"cwd\":", cwd);
    }
    if let Some((decision, _)) = extra.decision {
        field(out, b"\"decision\":", decision.as_str());
    }
    if let Some(bad) = error {
        field(out, b"\"error\":", bad.message);
    }
    match (at.and_then(|a| a.file), error.and_then(|b| b.file)) {
        (Some(file), _) => out.extend_from_slice(&file.field),
        (None, Some(file)) => field(out, b"\"file\":", file),
        (None, None) => {}
    }
    let names = at.map(|a| a.names).unwrap_or_default();
    if let Some((_, job)) = names.iter().find(|(k, _)| *k == "job") {
        field(out, b"\"job\":", job);
    }
    if let Some(line) = at.map(|a| a.line).or(error.map(|b| b.line)) {
        number(out, b"\"line\":", line);
    }
    if let Some(v) = md.and_then(|m| m.2) {
        field(out, b"\"reason\":", v);
    }
    // The keys after `safety_label`, in order: the names but `job`, and
    // the decision's `source`. Most records have none, and are closed by
    // their label's piece.
    let source = extra.decision.map(|(_, source)| ("source", source));
    let after_label = || names.iter().filter(|(k, _)| *k != "job");
    if source.is_none() && after_label().next().is_none() {
        match md {
            Some((.., class)) => label_closing(class).push_to(out),
            None => close(out),
        }
        return;
    }
    let mut trailing: Vec<(&str, &str)> = after_label()
        .map(|(k, v)| (*k, v.as_str()))
        .chain(source)
        .collect();
    trailing.sort_by_key(|(k, _)| *k);
    if let Some((.., class)) = md {
        // The closing without its `}\n`, then the rest.
        let closing = label_closing(class).as_bytes();
        out.extend_from_slice(&closing[..closing.len() - 2]);
        out.push(b',');
    }
    for (k, v) in trailing {
        key_field(out, k, v);
    }
    close(out);
}

/// Ends a record whose fields each end with a comma: the last one's
/// becomes the brace.
fn close(out: &mut Vec<u8>) {
    out.pop();
    out.extend_from_slice(b"}\n");
}

/// A field whose key is only known at run time (a name's key).
fn key_field(out: &mut Vec<u8>, key: &str, value: &str) {
    push_json_str(out, key);
    out.push(b':');
    push_json_str(out, value);
    out.push(b',');
}

/// A number field, its digits written without the formatting machinery
/// (every record has two). Inlined, so that its key is copied as the
/// constant it is.
#[inline(always)]
fn number(out: &mut Vec<u8>, key: &'static [u8], n: u64) {
    out.extend_from_slice(key);
    match digits_and_comma(n) {
        // A line or a column, nearly always: one eight-byte store, cut.
        Some((word, len)) => {
            let at = out.len();
            out.extend_from_slice(&word.to_le_bytes());
            out.truncate(at + len);
        }
        None => {
            out.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
            out.push(b',');
        }
    }
}

/// The decimal digits of `n` and a comma, when they fit in eight bytes
/// (below ten million): as a word whose little-endian bytes spell them,
/// and their count. Two digits at a time, from the last: each pair goes in
/// below the digits after it.
fn digits_and_comma(mut n: u64) -> Option<(u64, usize)> {
    if n >= 10_000_000 {
        return None;
    }
    // The two digits of `k`, below 100, as they go in below the others.
    let pair = |k: u64| {
        let at = k as usize * 2;
        u64::from(u16::from_le_bytes([PAIRS[at], PAIRS[at + 1]]))
    };
    let mut word = u64::from(b',');
    let mut len = 1;
    while n >= 100 {
        word = (word << 16) | pair(n % 100);
        len += 2;
        n /= 100;
    }
    if n >= 10 {
        word = (word << 16) | pair(n);
        len += 2;
    } else {
        word = (word << 8) | u64::from(b'0' + n as u8);
        len += 1;
    }
    Some((word, len))
}

/// `00` to `99`, two bytes each.
const PAIRS: &[u8; 200] = b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

/// A fixed piece of a record, padded to 32 bytes so that it is copied as a
/// block of constant length (no call to `memcpy`) and then cut to its own.
struct Piece {
    bytes: [u8; 32],
    len: usize,
}

impl Piece {
    const fn new(text: &[u8]) -> Piece {
        let mut bytes = [0u8; 32];
        let mut i = 0;
        while i < text.len() {
            bytes[i] = text[i];
            i += 1;
        }
        Piece {
            bytes,
            len: text.len(),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    fn push_to(&self, out: &mut Vec<u8>) {
        let at = out.len();
        out.extend_from_slice(&self.bytes);
        out.truncate(at + self.len);
    }
}

/// A record's opening brace and its `blast_radius` field.
fn radius_opening(radius: BlastRadius) -> &'static Piece {
    const SAFE: Piece = Piece::new(b"{\"blast_radius\":\"safe\",");
    const LOW: Piece = Piece::new(b"{\"blast_radius\":\"low\",");
    const MEDIUM: Piece = Piece::new(b"{\"blast_radius\":\"medium\",");
    const HIGH: Piece = Piece::new(b"{\"blast_radius\":\"high\",");
    const UNKNOWN: Piece = Piece::new(b"{\"blast_radius\":\"unknown\",");
    match radius {
        BlastRadius::Safe => &SAFE,
        BlastRadius::Low => &LOW,
        BlastRadius::Medium => &MEDIUM,
        BlastRadius::High => &HIGH,
        BlastRadius::Unknown => &UNKNOWN,
    }
}

/// A record's `safety_label` field, its last, and the record's end.
fn label_closing(class: Class) -> &'static Piece {
    const SAFE: Piece = Piece::new(b"\"safety_label\":\"safe\"}\n");
    const DESTRUCTIVE: Piece = Piece::new(b"\"safety_label\":\"destructive\"}\n");
    const UNKNOWN: Piece = Piece::new(b"\"safety_label\":\"unknown\"}\n");
    match class {
        Class::Safe => &SAFE,
        Class::Destructive => &DESTRUCTIVE,
        Class::Unknown => &UNKNOWN,
    }
}

#[inline(always)]
fn field(out: &mut Vec<u8>, key: &'static [u8], value: &str) {
    out.extend_from_slice(key);
    push_json_str(out, value);
    out.push(b',');
}

/// Whether no byte of `bytes` needs a JSON escape (none is `"`, `\\` or a
/// control byte below 0x20). Nearly every string written is such. The
/// bytes are tested sixteen at a time, the last few padded with a letter,
/// with no early exit inside a block, which the compiler turns into vector
/// compares. (Eight bytes at a time in a 64-bit word, measured against
/// the older loop that tested the last few bytes one by one, did worse
/// than this: BENCHMARKS.md, "Tricks".)
fn needs_no_escape(bytes: &[u8]) -> bool {
    let escaped = |b: u8| b < 0x20 || b == b'"' || b == b'\\';
    let any_escaped = |block: &[u8; 16]| block.iter().fold(false, |any, &b| any | escaped(b));
    let (blocks, rest) = bytes.as_chunks::<16>();
    let mut last = [b'a'; 16];
    last[..rest.len()].copy_from_slice(rest);
    !(blocks.iter().any(any_escaped) || any_escaped(&last))
}

/// Appends `s` as a JSON string, escaped as serde_json escapes it (a test
/// holds the two together): in one copy when nothing needs escaping,
/// else run by run between the bytes that do.
fn push_json_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    if needs_no_escape(bytes) {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut run = 0;
    // Without a control byte only quotes and backslashes are escaped:
    // memchr finds them, where the loop below looks at every byte.
    if !bytes.iter().any(|&b| b < 0x20) {
        for i in memchr::memchr2_iter(b'"', b'\\', bytes) {
            out.extend_from_slice(&bytes[run..i]);
            out.push(b'\\');
            out.push(bytes[i]);
            run = i + 1;
        }
        out.extend_from_slice(&bytes[run..]);
        out.push(b'"');
        return;
    }
    for (i, &b) in bytes.iter().enumerate() {
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
        out.extend_from_slice(&bytes[run..i]);
        out.extend_from_slice(escape);
        run = i + 1;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_to_escape_is_seen_at_every_place_of_every_length() {
        for len in 0..40 {
            for at in 0..=len {
                for special in [b'"', b'\\', 0u8, 0x1f, b'\n'] {
                    // Plain, and after bytes that need no escape.
                    for suffix in ["", "é ~\u{7f}"] {
                        let mut bytes = vec![b'a'; len];
                        if at < len {
                            bytes[at] = special;
                        }
                        bytes.extend_from_slice(suffix.as_bytes());
                        assert_eq!(needs_no_escape(&bytes), at == len, "{bytes:?}");
                    }
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
                // Quotes and backslashes alone, at either end and side by
                // side; then with a control byte among them.
                "\"\\\"\"",
                "\\x\"",
                "\"a\tb\\\"",
            ]
            .map(String::from),
        );
        for s in cases {
            let mut ours = Vec::new();
            push_json_str(&mut ours, &s);
            let theirs = serde_json::to_string(&s).unwrap_or_default();
            assert_eq!(String::from_utf8_lossy(&ours), theirs, "{s:?}");
        }
    }

    #[test]
    fn number_fields_spell_every_size_of_number() {
        let mut numbers: Vec<u64> =
            vec![0, 1, 9, 10, 99, 100, 101, 9_999_999, 10_000_000, u64::MAX];
        numbers.extend((0..20).map(|k| 7u64.pow(k)));
        for n in numbers {
            let mut out = Vec::new();
            number(&mut out, b"\"line\":", n);
            assert_eq!(
                String::from_utf8_lossy(&out),
                format!("\"line\":{n},"),
                "{n}"
            );
        }
        assert_eq!(digits_and_comma(10_000_000), None);
        assert_eq!(digits_and_comma(42).map(|(_, len)| len), Some(3));
    }

    #[test]
    fn fixed_pieces_spell_each_radius_and_class_as_the_label_does() {
        use BlastRadius::*;
        for radius in [Safe, Low, Medium, High, Unknown] {
            let want = format!("{{\"blast_radius\":\"{}\",", radius.as_str());
            assert_eq!(radius_opening(radius).as_bytes(), want.as_bytes());
        }
        for class in [Class::Safe, Class::Destructive, Class::Unknown] {
            let want = format!("\"safety_label\":\"{}\"}}\n", class.as_str());
            assert_eq!(label_closing(class).as_bytes(), want.as_bytes());
        }
    }

    #[test]
    fn a_bad_line_names_its_file_and_line() {
        let bad = |file| BadLine {
            file,
            line: 7,
            message: "invalid JSON: \"x\"",
        };
        let mut out = Vec::new();
        push_record(&mut out, "", None, Some(bad(Some("ci/a b.txt"))));
        push_record(&mut out, "", None, Some(bad(None)));
        assert_eq!(
            bad(Some("a.txt")).to_string(),
            "a.txt:7: invalid JSON: \"x\""
        );
        assert_eq!(bad(None).to_string(), "line 7: invalid JSON: \"x\"");
        assert_eq!(
            String::from_utf8_lossy(&out),
            "{\"command\":\"\",\"error\":\"invalid JSON: \\\"x\\\"\",\"file\":\"ci/a b.txt\",\"line\":7}\n\
             {\"command\":\"\",\"error\":\"invalid JSON: \\\"x\\\"\",\"line\":7}\n"
        );
    }

    #[test]
    fn numbers_are_written_as_decimal() {
        for n in [0, 7, 10, 99, 1234567890, u64::MAX] {
            let mut out = Vec::new();
            number(&mut out, b"\"n\":", n);
            assert_eq!(String::from_utf8_lossy(&out), format!("\"n\":{n},"));
        }
    }

    #[test]
    fn a_file_name_is_escaped_once_as_its_field() {
        let file = FileName::new("ci/\"a\"\\b.txt");
        let location = Location {
            file: Some(&file),
            line: 2,
            column: 1,
            names: &[],
        };
        let extra = RecordExtra {
            location: Some(location),
            ..RecordExtra::default()
        };
        let mut out = Vec::new();
        push_record_with(&mut out, "ls", None, None, extra);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap_or_default();
        assert_eq!(v["file"].as_str(), Some("ci/\"a\"\\b.txt"));
        assert_eq!(file.as_str(), "ci/\"a\"\\b.txt");
    }

    #[test]
    fn locations_add_their_keys_in_order() {
        let names = [("step", "Clean".to_string()), ("job", "build".to_string())];
        let file = FileName::new("ci.yml");
        let location = Location {
            file: Some(&file),
            line: 13,
            column: 11,
            names: &names,
        };
        let extra = RecordExtra {
            cwd: None,
            decision: Some((Decision::Ask, "mode_balanced")),
            location: Some(location),
        };
        let mut out = Vec::new();
        let label = toolgate_core::classify("rm -rf build");
        push_record_with(&mut out, "rm -rf build", Some(&label), None, extra);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "{\"blast_radius\":\"high\",\"category\":\"fs-delete\",\"column\":11,\"command\":\"rm -rf build\",\
             \"decision\":\"ask\",\"file\":\"ci.yml\",\"job\":\"build\",\"line\":13,\
             \"reason\":\"recursive delete: whole directory trees are removed with no undo\",\
             \"safety_label\":\"destructive\",\"source\":\"mode_balanced\",\"step\":\"Clean\"}\n"
        );
        // A line not read: its location is the record's.
        let mut out = Vec::new();
        let bad = BadLine {
            file: Some("ci.yml"),
            line: 13,
            message: "x",
        };
        let extra = RecordExtra {
            location: Some(location),
            ..RecordExtra::default()
        };
        push_record_with(&mut out, "", None, Some(bad), extra);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap_or_default();
        assert_eq!(v["file"], "ci.yml");
        assert_eq!(v["step"], "Clean");
        assert_eq!(v["column"], 11);
    }

    #[test]
    fn records_carry_exactly_the_metadata() {
        for cmd in ["git status", "rm -rf /tmp/x", "npm test", "", "ls\u{7}"] {
            let label = toolgate_core::classify(cmd);
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
