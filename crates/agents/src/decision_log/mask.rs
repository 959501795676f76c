//! Masking secrets before a command is written to the decision log.
//!
//! The log is local and private (mode 0600), but it outlives the session
//! and gets pasted into bug reports, so a credential an agent put on a
//! command line must not land in it. The masker errs on the side of
//! masking: a value it cannot tell from a secret is replaced. It works on
//! the text as written (no shell parse), because what matters is the bytes
//! that would reach the file, quoted or not.
//!
//! Each secret keeps what says what it was (`ghp_`, `GITHUB_TOKEN=`,
//! `Bearer `, `https://user:`) and loses its value to `***`.
//!
//! ```
//! use toolgate_agents::decision_log::mask_secrets;
//! assert_eq!(
//!     mask_secrets("GITHUB_TOKEN=ghp_0123456789abcdefghij gh pr list"),
//!     "GITHUB_TOKEN=*** gh pr list"
//! );
//! assert_eq!(mask_secrets("git clone https://bob:hunter2@example.com/r.git"),
//!            "git clone https://bob:***@example.com/r.git");
//! ```

use serde_json::Value;
use toolgate_core::secrets;

/// What a masked value becomes.
pub const MASK: &str = "***";

/// The shortest body after a token format's keyword that a mask takes for
/// a token even where no detector does (a short or made-up one): shorter
/// runs are words such as `sk-learn`, not keys.
const MIN_TOKEN_BODY: usize = 16;

/// Words in a variable or option name that make its value a secret.
const SECRET_NAMES: &[&str] = &["TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL"];

/// Words in a long option's name that make its value a secret (`KEY` is
/// left out here: `--key 2` is a sort key far more often than a secret).
const SECRET_OPTIONS: &[&str] = &[
    "password",
    "passwd",
    "token",
    "secret",
    "api-key",
    "api_key",
    "apikey",
    "credential",
];

/// Masks the secrets in a command line (or any text).
///
/// Recognised: every value a secret detector of `taxonomy/secrets/` finds
/// (tokens by their formats, keys, passwords in URLs and config lines,
/// secrets assigned to names: see `toolgate_core::secrets`), and, erring
/// on the side of masking where a detector would want more proof: a
/// detector's format keyword followed by a long token (`ghp_…`, `AKIA…`),
/// `Bearer …`, `Authorization:` header values, the password of a URL
/// (`https://user:pass@host`), `--password=…`/`--token …` style options,
/// `-pVALUE` after `mysql`/`mariadb`, and `NAME=value` assignments whose
/// name contains TOKEN, SECRET, PASSWORD, PASSWD, KEY or CREDENTIAL.
pub fn mask_secrets(text: &str) -> String {
    let text = replace(text, &word_spans(text));
    let text = replace(&text, &header_spans(&text));
    let text = replace(&text, &url_password_spans(&text));
    replace(&text, &token_spans(&text))
}

/// Masks a tool call's arguments: a string under a key that names a secret
/// (`password`, `api_key`, `token`, …) is replaced whole, and every other
/// string is masked as text.
///
/// ```
/// use serde_json::json;
/// use toolgate_agents::decision_log::mask_value;
/// let masked = mask_value(&json!({"url": "https://a:b@h", "api_key": "k1"}));
/// assert_eq!(masked, json!({"url": "https://a:***@h", "api_key": "***"}));
/// ```
pub fn mask_value(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(mask_secrets(s)),
        Value::Array(items) => Value::Array(items.iter().map(mask_value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = match v {
                        Value::String(_) if is_secret_key(k) => Value::String(MASK.into()),
                        other => mask_value(other),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn is_secret_key(key: &str) -> bool {
    let upper = key.to_ascii_uppercase();
    SECRET_NAMES.iter().any(|n| upper.contains(n)) || upper == "AUTHORIZATION" || upper == "AUTH"
}

/// Rebuilds `text` with each byte range of `spans` (sorted, disjoint, on
/// character boundaries) replaced by [`MASK`].
fn replace(text: &str, spans: &[(usize, usize)]) -> String {
    if spans.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for &(start, end) in spans {
        out.push_str(&text[last..start]);
        out.push_str(MASK);
        last = end;
    }
    out.push_str(&text[last..]);
    out
}

/// A byte that can end a shell word or open one.
fn is_word_break(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b';' | b'&' | b'|' | b'(' | b')' | b'"' | b'\'' | b'`')
}

/// Where a value starting at `at` ends: after its closing quote when it is
/// quoted (or at the end), else at the first byte that ends a word.
fn value_end(b: &[u8], at: usize) -> usize {
    match b.get(at) {
        Some(&q @ (b'"' | b'\'')) => b[at + 1..]
            .iter()
            .position(|&c| c == q)
            .map_or(b.len(), |p| at + 2 + p),
        _ => b[at..]
            .iter()
            .position(|&c| is_word_break(c))
            .map_or(b.len(), |p| at + p),
    }
}

/// Secret-named assignments, secret-named long options and mysql's
/// `-pVALUE`, each at the start of a word.
fn word_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut mysql = false;
    let mut i = 0;
    while i < b.len() {
        let starts_word = i == 0 || is_word_break(b[i - 1]);
        if !starts_word || is_word_break(b[i]) {
            i += 1;
            continue;
        }
        let word_end = value_end(b, i);
        let word = &text[i..word_end];
        let name_len = word
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        let span = if name_len > 0
            && !word.as_bytes()[0].is_ascii_digit()
            && word.as_bytes().get(name_len) == Some(&b'=')
        {
            // NAME=value
            let upper = word[..name_len].to_ascii_uppercase();
            let at = i + name_len + 1;
            SECRET_NAMES
                .iter()
                .any(|n| upper.contains(n))
                .then(|| (at, value_end(b, at)))
        } else if let Some(opt) = word.strip_prefix("--") {
            let name_len = opt
                .bytes()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_'))
                .count();
            let lower = opt[..name_len].to_ascii_lowercase();
            let secret = lower == "pass" || SECRET_OPTIONS.iter().any(|n| lower.contains(n));
            match opt.as_bytes().get(name_len) {
                Some(b'=') if secret => {
                    let at = i + 2 + name_len + 1;
                    Some((at, value_end(b, at)))
                }
                // `--password VALUE`: the next word is the value.
                None if secret && name_len > 0 => {
                    let mut at = word_end;
                    while b.get(at).is_some_and(|c| *c == b' ' || *c == b'\t') {
                        at += 1;
                    }
                    let end = value_end(b, at);
                    (end > at && b.get(at) != Some(&b'-')).then_some((at, end))
                }
                _ => None,
            }
        } else if mysql && word.len() > 2 && word.starts_with("-p") {
            Some((i + 2, word_end))
        } else {
            let base = match word.as_bytes().iter().rposition(|&c| c == b'/') {
                Some(slash) => &word[slash + 1..],
                None => word,
            };
            if base.starts_with("mysql") || base.starts_with("mariadb") {
                mysql = true;
            }
            None
        };
        match span {
            Some((start, end)) if end > start => {
                spans.push((start, end));
                i = end;
            }
            _ => i = word_end.max(i + 1),
        }
    }
    spans
}

/// ASCII case-insensitive search for `needle` (not empty) in `hay` from
/// `from`: compared only where its first byte stands, in either case.
fn find_ci(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let (lower, upper) = (first.to_ascii_lowercase(), first.to_ascii_uppercase());
    let mut at = from;
    while at + needle.len() <= hay.len() {
        at += memchr::memchr2(lower, upper, &hay[at..hay.len() - rest.len()])?;
        if hay[at + 1..at + needle.len()].eq_ignore_ascii_case(rest) {
            return Some(at);
        }
        at += 1;
    }
    None
}

/// `Authorization:` header values (to the closing quote or the end of the
/// line: a header's value may hold spaces) and `Bearer` tokens.
fn header_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let skip_blanks = |mut at: usize| {
        while b.get(at).is_some_and(|c| *c == b' ' || *c == b'\t') {
            at += 1;
        }
        at
    };
    let mut i = 0;
    while let Some(at) = find_ci(b, b"authorization:", i) {
        let v = skip_blanks(at + 14);
        let end = b[v..]
            .iter()
            .position(|c| matches!(c, b'"' | b'\'' | b'\n'))
            .map_or(b.len(), |p| v + p);
        if end > v {
            spans.push((v, end));
        }
        i = end.max(at + 14);
    }
    let mut i = 0;
    while let Some(at) = find_ci(b, b"bearer", i) {
        let bounded = at == 0 || !b[at - 1].is_ascii_alphanumeric();
        let v = skip_blanks(at + 6);
        let end = value_end(b, v);
        let inside = spans.iter().any(|&(s, e)| at >= s && at < e);
        if bounded && v > at + 6 && end > v && !inside {
            spans.push((v, end));
        }
        i = at + 6;
    }
    spans.sort_unstable();
    spans
}

/// The password in `scheme://user:password@host`.
fn url_password_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while let Some(at) = memchr::memmem::find(&b[i..], b"://").map(|at| i + at) {
        let start = at + 3;
        let stop = b[start..]
            .iter()
            .position(|&c| matches!(c, b'/' | b'?' | b'#' | b'@') || is_word_break(c))
            .map_or(b.len(), |p| start + p);
        if b.get(stop) == Some(&b'@') {
            if let Some(colon) = b[start..stop].iter().position(|&c| c == b':') {
                let from = start + colon + 1;
                if stop > from {
                    spans.push((from, stop));
                }
            }
        }
        i = stop.max(start);
    }
    spans
}

/// The values the secret detectors find, and tokens that start with a
/// detector's format keyword and run on for [`MIN_TOKEN_BODY`] bytes; each
/// keeps the format keyword it starts with (`ghp_***`). Sorted, disjoint
/// and on character boundaries.
fn token_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let is_body = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    let keep = |start: usize, end: usize| {
        let kept = secrets::leading_format_keyword(&b[start..end]).map_or(0, str::len);
        (start + kept.min(end - start), end)
    };
    let mut spans: Vec<(usize, usize)> = secrets::scan(b)
        .map(|h| keep(h.range.start, h.range.end))
        .collect();
    // A keyword's token needs a run of body bytes that long: most command
    // lines hold none, and need no keyword looked up at every byte.
    let longest_run = b
        .split(|c| !is_body(*c))
        .map(<[u8]>::len)
        .max()
        .unwrap_or(0);
    let mut i = if longest_run >= MIN_TOKEN_BODY {
        0
    } else {
        b.len()
    };
    while i < b.len() {
        if i > 0 && is_body(b[i - 1]) {
            i += 1;
            continue;
        }
        let rest = &b[i..];
        // (A keyword that starts with no word byte starts no word.)
        let keywords = is_body(rest[0])
            .then(|| secrets::format_keywords_starting(rest[0]))
            .into_iter()
            .flatten();
        let found = keywords
            .filter(|k| rest.starts_with(k.as_bytes()))
            .map(|k| {
                let body = rest[k.len()..].iter().take_while(|c| is_body(**c)).count();
                (k.len(), body)
            })
            .filter(|&(_, body)| body >= MIN_TOKEN_BODY)
            .max();
        match found {
            Some((k, body)) => {
                spans.push((i + k, i + k + body));
                i += k + body;
            }
            None => i += 1,
        }
    }
    // A detector's value is bytes: one that starts or ends inside a
    // character grows to the whole character, so that the text can be cut
    // there.
    for (s, e) in &mut spans {
        while *s > 0 && !text.is_char_boundary(*s) {
            *s -= 1;
        }
        while *e < b.len() && !text.is_char_boundary(*e) {
            *e += 1;
        }
    }
    // One span for values that overlap (two detectors, or a detector and
    // the keyword rule, on one token).
    spans.retain(|(s, e)| e > s);
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_masked() {
        for (input, want) in [
            (
                "gh auth login --with-token ghp_abcdefghijklmnop0123",
                "gh auth login --with-token ***",
            ),
            (
                "echo github_pat_11ABCDEFG0123456789_xyz",
                "echo github_pat_***",
            ),
            ("aws s3 ls # AKIAIOSFODNN7EXAMPLE", "aws s3 ls # AKIA***"),
            (
                "curl -d key=sk-proj-abcdefghijklmnopqrst",
                "curl -d key=***",
            ),
            (
                "OPENAI=sk-proj-abcdefghijklmnopqrst run",
                "OPENAI=sk-proj-*** run",
            ),
            // Found by the detectors, whatever the name they are given to.
            (
                "deploy --with aws_secret_access_key=q1CLrnXp20d8yip6eHZlPEZraMB6Bwr3Yx6Z9Cts",
                "deploy --with aws_secret_access_key=***",
            ),
            (
                "curl -H 'X-Api: Bearer pcknp9U5r12G1ieecIy-12696PE3tNnONa07gjkaJ7rWDjINTI' u",
                "curl -H 'X-Api: Bearer ***' u",
            ),
            ("echo hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "echo hf_***"),
            ("echo 'x ¶AKIAJHXJO7GP6FHU37CX¶'", "echo 'x ¶AKIA***¶'"),
            ("echo ghp_abcdefghijklmnop0123", "echo ghp_***"),
            ("slack xoxb-1234-5678-abcdef", "slack xoxb-***"),
            (
                "curl -H 'Authorization: Bearer abc.def' https://x",
                "curl -H 'Authorization: ***' https://x",
            ),
            (
                "curl -H \"authorization: token abc\" u",
                "curl -H \"authorization: ***\" u",
            ),
            ("http get u Bearer eyJhbGci.x.y", "http get u Bearer ***"),
            (
                "git clone https://bob:hunter2@example.com/r.git",
                "git clone https://bob:***@example.com/r.git",
            ),
            (
                "psql postgres://app:s3cr%40t@db:5432/x",
                "psql postgres://app:***@db:5432/x",
            ),
            (
                "docker login --password=hunter2 reg",
                "docker login --password=*** reg",
            ),
            (
                "docker login --password hunter2 reg",
                "docker login --password *** reg",
            ),
            ("tool --api-key=\"a b c\" x", "tool --api-key=*** x"),
            ("mysql -u root -phunter2 db", "mysql -u root -p*** db"),
            (
                "export GITHUB_TOKEN=abc123; gh pr list",
                "export GITHUB_TOKEN=***; gh pr list",
            ),
            (
                "AWS_SECRET_ACCESS_KEY='x y' aws s3 ls",
                "AWS_SECRET_ACCESS_KEY=*** aws s3 ls",
            ),
            ("db_password=pw ./run", "db_password=*** ./run"),
        ] {
            assert_eq!(mask_secrets(input), want, "{input:?}");
        }
    }

    proptest::proptest! {
        /// The search by first byte finds what comparing at every byte does.
        #[test]
        fn find_ci_finds_the_first_match(
            hay in "[aAbB:/ ]{0,24}",
            needle in "[aAbB:/]{1,4}",
            from in 0usize..26,
        ) {
            let (h, n) = (hay.as_bytes(), needle.as_bytes());
            let naive = (from..h.len().saturating_sub(n.len() - 1))
                .find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n));
            proptest::prop_assert_eq!(find_ci(h, n, from), naive);
        }
    }

    #[test]
    fn ordinary_commands_are_left_alone() {
        for input in [
            "git status",
            "mkdir -pv build/out",
            "ssh -p 2222 host",
            "pip install scikit-learn sk-video",
            "sort --key 2 file",
            "FOO=bar make",
            "curl https://example.com/a:b@c",
            "echo AKIAshort",
            "cat ~/.ssh/id_ed25519.pub",
            "echo 'naïve café' && ls",
        ] {
            assert_eq!(mask_secrets(input), input, "{input:?}");
        }
    }
}
