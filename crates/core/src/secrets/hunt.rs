//! Search patterns that hunt for credentials: the classifier's check of a
//! `grep` or `rg` pattern, judged by the detectors' own keywords.
//!
//! A search is data to the command, but a pattern that spells a token's
//! format (`ghp_`, `AKIA[0-9A-Z]{16}`, `hf_…`) or a secret's name in an
//! assignment (`password\s*=`, `GITHUB_TOKEN`, `AWS_SECRET`) looks for
//! values to print. The keywords come from `taxonomy/secrets/`, so a
//! detector added there is hunted for here too. Two kinds of keyword:
//!
//! - a **format** keyword (a case-sensitive detector's keyword spelled with
//!   more than lower-case letters: `ghp_`, `AKIA`, `PRIVATE KEY`) hunts
//!   where it starts a word of the pattern, in the data's letter case; in
//!   any letter case when it has four bytes or more and the pattern goes on
//!   with a token's byte or ends there (`grep -i akia`, but not
//!   `Asia/Tokyo`); a pattern that ends with five or more bytes that begin
//!   one, past its first word (`pypi-Ag`), hunts too. A short one that
//!   starts with punctuation (`-us`, `://`) joins a token's parts and is no
//!   hunt alone;
//! - a **name** keyword (`password`, `token`, `secret`, `api_key`) hunts
//!   where it starts a word and is assigned (`=` or `:` within a few
//!   bytes: `password\s*=`, `api_key:`), or, five bytes or more, ends a
//!   qualified name (`GITHUB_TOKEN`, `AWS_SECRET`, `db.password`); alone
//!   (`token`, `secrets`, `password_hash`) it is a plain search.
//!
//! "Any spelling": the pattern is read twice, once with the regex
//! punctuation that can spell a literal another way taken out (`AK[I]A`,
//! `g(h)p_`, `gh\p_`), once with it read as a break between words
//! (`x|AKIA`, `\bghp_`). A heuristic, as any such check is: a regex can
//! always find what it does not spell; this catches what it spells.

use super::data::{keywords_at, KeywordData};

/// Regex punctuation that can spell a literal another way, or separate
/// alternatives.
fn is_punct(b: u8) -> bool {
    matches!(
        b,
        b'[' | b']' | b'(' | b')' | b'\\' | b'?' | b'*' | b'+' | b'{' | b'}' | b'|' | b'^' | b'$'
    )
}

/// A form of a pattern, on the stack for a pattern of a usual length.
type Form = smallvec::SmallVec<[u8; 64]>;

/// The pattern with its punctuation taken out (`joined`), and with it read
/// as a space, an escape such as `\b` or `\s` with it (`split`).
fn forms(pattern: &str) -> (Form, Form) {
    let b = pattern.as_bytes();
    let joined: Form = b.iter().copied().filter(|&c| !is_punct(c)).collect();
    let mut split = Form::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
            split.push(b' ');
            i += 2;
            continue;
        }
        split.push(if is_punct(b[i]) { b' ' } else { b[i] });
        i += 1;
    }
    (joined, split)
}

/// Why a search pattern hunts for credentials, if it does (see the module
/// docs); `None` for a plain search.
///
/// ```
/// use toolgate_core::secrets::hunt::hunts_credentials;
/// for hunt in ["AKIA[0-9A-Z]{16}", "ghp_", "hf_[A-Za-z]{34}", "GITHUB_TOKEN", "AWS_SECRET", "password\\s*="] {
///     assert!(hunts_credentials(hunt).is_some(), "{hunt}");
/// }
/// for plain in ["token", "secrets", "password_hash", "Asia/Tokyo", "def handle"] {
///     assert!(hunts_credentials(plain).is_none(), "{plain}");
/// }
/// ```
pub fn hunts_credentials(pattern: &str) -> Option<String> {
    // With no punctuation both forms are the pattern itself: one reading
    // of it says all (most patterns are plain words).
    if !pattern.bytes().any(is_punct) {
        return hunt_in(pattern.as_bytes());
    }
    let (joined, split) = forms(pattern);
    for form in [&joined, &split] {
        if let Some(why) = hunt_in(form) {
            return Some(why);
        }
    }
    None
}

/// A byte that goes on a token (letters, digits, `_`, `-`).
fn token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// A byte that goes on a name (a token's, and `.`).
fn name_byte(b: u8) -> bool {
    token_byte(b) || b == b'.'
}

fn hunt_in(f: &[u8]) -> Option<String> {
    for i in 0..f.len() {
        let word_start = i == 0 || !f[i - 1].is_ascii_alphanumeric();
        if !word_start {
            continue;
        }
        for kw in keywords_at(f, i).1 {
            let why = if kw.format {
                format_hunt(f, i, kw)
            } else {
                name_hunt(f, i, kw)
            };
            if why.is_some() {
                return why;
            }
        }
    }
    None
}

/// A format keyword at `f[i..]`, a word's start.
fn format_hunt(f: &[u8], i: usize, kw: &KeywordData) -> Option<String> {
    let spelled = kw.spelled.get();
    let k = spelled.as_bytes();
    // One that starts with punctuation (`-us`, `:AA`, `://`) ends or
    // joins a token's parts: short, it is no search for tokens.
    if k.len() < 4 && !k.first().is_some_and(u8::is_ascii_alphanumeric) {
        return None;
    }
    let rest = &f[i..];
    let why = || Some(format!("the pattern looks for credentials (`{}`)", spelled));
    if rest.starts_with(k) {
        return why();
    }
    if k.len() >= 4 && rest.len() >= k.len() && rest[..k.len()].eq_ignore_ascii_case(k) {
        let next = rest.get(k.len()).copied();
        if next.is_none_or(token_byte) {
            return Some(format!(
                "the pattern looks for credentials (`{}`, in any letter case)",
                spelled
            ));
        }
    }
    // The pattern ends with a format's start, past its first word
    // (`pypi-Ag`, but not `secret` of `secret_`).
    if rest.len() >= 5
        && rest.len() < k.len()
        && k.starts_with(rest)
        && !rest.iter().all(u8::is_ascii_alphabetic)
    {
        return why();
    }
    None
}

/// A name keyword at `f[i..]`, a word's start.
fn name_hunt(f: &[u8], i: usize, kw: &KeywordData) -> Option<String> {
    let lower = kw.lower.get();
    let k = lower.as_bytes();
    if !k.iter().all(|&b| name_byte(b)) {
        return None;
    }
    let rest = &f[i..];
    if rest.len() < k.len() || !rest[..k.len()].eq_ignore_ascii_case(k) {
        return None;
    }
    let end = i + k.len();
    // Assigned: `=` or `:` within eight bytes, with nothing but a plural
    // `s` and punctuation between (`password\s*=`, `api_key:`, `tokens=`).
    let window = &f[end..f.len().min(end + 8)];
    if let Some(at) = window.iter().position(|b| matches!(b, b'=' | b':')) {
        if !window[..at]
            .iter()
            .any(|b| b.is_ascii_alphanumeric() && *b != b's')
        {
            return Some(format!(
                "the pattern looks for values assigned to `{}`",
                lower
            ));
        }
    }
    // A scheme word and its token (`Bearer `).
    if lower == "bearer" && f.get(end) == Some(&b' ') {
        return Some("the pattern looks for bearer tokens".into());
    }
    // The end of a qualified name (`GITHUB_TOKEN`, `AWS_SECRET`), by a
    // keyword of five bytes or more: `rebuild_auth`, `old_pwd` are names
    // of code as often as of secrets.
    let ends_name = k.len() >= 5 && f.get(end).is_none_or(|&b| !name_byte(b));
    let qualified =
        i >= 2 && matches!(f[i - 1], b'_' | b'-' | b'.') && f[i - 2].is_ascii_alphanumeric();
    if ends_name && qualified {
        return Some(format!(
            "the pattern looks for a secret's name (`…{}`)",
            String::from_utf8_lossy(&f[i - 1..end])
        ));
    }
    None
}
