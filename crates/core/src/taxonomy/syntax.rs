//! The pattern syntax every taxonomy regex is written in: checked when a
//! taxonomy is loaded, and the configuration the matcher compiles with.

use regex_automata::util::syntax;

/// The syntax configuration of every pattern.
pub(crate) fn syntax_config() -> syntax::Config {
    syntax::Config::new().unicode(false).utf8(false)
}

/// Checks a pattern's syntax without building it: cheap enough to run on
/// every entry when a taxonomy is loaded.
pub fn check_syntax(pattern: &str) -> Result<(), String> {
    if turns_unicode_on(pattern) {
        // The binary carries no Unicode tables (see Cargo.toml).
        return Err("patterns run with Unicode off; remove the `u` flag".into());
    }
    syntax::parse_with(pattern, &syntax_config())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Does the pattern switch Unicode mode on with an inline flag (`(?u)`,
/// `(?iu:…)`)? An escaped `\(` is a literal and does not count.
fn turns_unicode_on(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'\\', _) => i += 2,
            (b'(', b'?') => {
                let flags: Vec<u8> = bytes[i + 2..]
                    .iter()
                    .copied()
                    .take_while(|b| b.is_ascii_alphabetic() || *b == b'-')
                    .collect();
                let closes = matches!(bytes.get(i + 2 + flags.len()), Some(b':' | b')'));
                // A `u` after `-` turns Unicode off, which is harmless.
                let on = flags.split(|b| *b == b'-').next().unwrap_or(&[]);
                if closes && on.contains(&b'u') {
                    return true;
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicode_mode_is_refused() {
        for p in ["(?u)\\w", "a(?iu:b)", "(?u:x)"] {
            assert!(check_syntax(p).is_err(), "{p}");
        }
        for p in ["(?i)rm", "\\(?u\\)", "(?-u:x)", "(?:u)", "[a-u]"] {
            assert_eq!(check_syntax(p), Ok(()), "{p}");
        }
    }
}
