//! Values that stand for a secret without being one (`changeme`,
//! `<your-key>`, `${API_KEY}`, `xxxxxxxx`): the rules of
//! `taxonomy/secrets/placeholders.toml`, applied as the reference
//! (`tests/secrets_data_check.py`) applies them.
//!
//! Values are compared in ASCII lower case. (The reference lower-cases
//! with Unicode's rules; no word, value or wrapper of the data has a
//! letter outside ASCII, so the two differ only on values such as one
//! holding the Kelvin sign, where the reference sees a placeholder and
//! this does not: stricter, never looser.)

use super::data::PLACEHOLDERS;

/// Whether `value` reads as a placeholder: empty, one character repeated,
/// equal to a listed value, holding a listed word, or wrapped whole in a
/// listed pair (`<…>`, `${…}`, `$…`).
pub fn is_placeholder(value: &[u8]) -> bool {
    if value.is_empty() || one_char_repeated(value) {
        return true;
    }
    let lower: smallvec::SmallVec<[u8; 64]> = value.iter().map(u8::to_ascii_lowercase).collect();
    if PLACEHOLDERS
        .values
        .names()
        .binary_search_by(|v| v.bytes().cmp(&lower[..]))
        .is_ok()
    {
        return true;
    }
    if PLACEHOLDERS
        .words
        .iter()
        .any(|w| contains(&lower, w.as_bytes()))
    {
        return true;
    }
    let chars = char_count(value);
    PLACEHOLDERS.wrappers.names().chunks_exact(2).any(|pair| {
        let (start, end) = (pair[0].get(), pair[1].get());
        chars >= start.len() + end.len()
            && value.starts_with(start.as_bytes())
            && value.ends_with(end.as_bytes())
    })
}

/// Whether every character of `value` is the same one (`********`,
/// `•••`): by characters where the value is UTF-8, else by bytes.
fn one_char_repeated(value: &[u8]) -> bool {
    match std::str::from_utf8(value) {
        Ok(s) => {
            let mut chars = s.chars();
            let first = chars.next();
            chars.all(|c| Some(c) == first)
        }
        Err(_) => value.iter().all(|&b| b == value[0]),
    }
}

/// The characters of `value` where it is UTF-8 (its bytes that start one).
fn char_count(value: &[u8]) -> usize {
    value.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// Whether `needle` occurs in `hay`.
pub(crate) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::is_placeholder;

    #[test]
    fn placeholders_by_each_rule() {
        for p in [
            "",
            "xxxxxxxx",
            "********",
            "•••",
            "changeme",
            "CHANGEME",
            "Password",
            "<your-key>",
            "${API_KEY}",
            "$GITHUB_TOKEN",
            "{{ .Values.token }}",
            "AKIAIOSFODNN7EXAMPLE",
            "sk_live_***",
        ] {
            assert!(is_placeholder(p.as_bytes()), "{p:?}");
        }
        for s in [
            "k3J9xQ2mP8vL5nR7",
            "sk_test_51Nq8ZkLm3Rt7VwYb2Hc9Xd4Pe",
            "Tr0ub4dor&3x",
            "<unclosed",
        ] {
            assert!(!is_placeholder(s.as_bytes()), "{s:?}");
        }
    }
}
