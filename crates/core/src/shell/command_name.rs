//! The name a command word runs: `/usr/bin/rm` is `rm`, `C:\\…\\git.exe`
//! is `git`.

use std::borrow::Cow;

use super::Word;

/// Directories whose commands are the system's own, so `/usr/bin/rm` is `rm`
/// and may still be judged safe; other paths (`./cat`) name local programs.
const SYSTEM_DIRS: &[&str] = &[
    "/bin/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/sbin/",
    "/usr/sbin/",
    "/usr/local/sbin/",
    "/opt/homebrew/bin/",
];

/// Normalises a command word: `/usr/bin/rm` → `rm`, `C:\…\git.exe` → `git`,
/// `Remove-Item` → `remove-item`. Returns the name and whether the word was a
/// bare name or a system path.
pub fn command_name(word: &Word) -> (Cow<'_, str>, bool) {
    let text = word.text.as_str();
    // Most command words (`git`, `ls`) hold no separator, capital or
    // non-ASCII byte: the word is then its name, less a `.exe`, in one look
    // at each byte.
    if !text.bytes().any(|b| NOT_BARE[usize::from(b)]) {
        let base = text.strip_suffix(".exe").unwrap_or(text);
        return (Cow::Borrowed(base), word.literal && !base.is_empty());
    }
    command_name_in_full(word)
}

/// [`command_name`] for any word: a path's directory cut off, a `.exe` or
/// `.EXE` suffix too, and the rest lowercased.
fn command_name_in_full(word: &Word) -> (Cow<'_, str>, bool) {
    let text = word.text.as_str();
    // Byte loops: separators and the suffix are ASCII, so every cut falls
    // on a character boundary (a `char` pattern search cost a scan a few
    // percent).
    let cut = text
        .bytes()
        .rposition(|b| b == b'/' || b == b'\\')
        .map_or(0, |i| i + 1);
    let base = &text[cut..];
    let base = match base.len().checked_sub(4) {
        Some(stem) if matches!(&base.as_bytes()[stem..], b".exe" | b".EXE") => &base[..stem],
        _ => base,
    };
    let plain = word.literal
        && !base.is_empty()
        && (cut == 0
            || text
                .strip_suffix(base)
                .is_some_and(|dir| SYSTEM_DIRS.contains(&dir)));
    let name = if base
        .bytes()
        .any(|b| b.is_ascii_uppercase() || !b.is_ascii())
    {
        Cow::Owned(base.to_lowercase())
    } else {
        Cow::Borrowed(base)
    };
    (name, plain)
}

/// Whether the system that runs `word` finds its program whatever the
/// case of its name: Windows does (and a `.exe` name or a path with a
/// drive letter or `\` is a Windows word); Linux does not, so there
/// `HEAD` (libwww-perl's HTTP client) is not `head`. Destructive matching
/// folds case everywhere (on macOS's default file system `RM` is `rm`);
/// a safe verdict is given only to the name as the system reads it.
pub fn folds_case(word: &str) -> bool {
    let b = word.as_bytes();
    let exe = b.len() >= 4 && b[b.len() - 4..].eq_ignore_ascii_case(b".exe");
    let drive = b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    exe || drive || b.contains(&b'\\')
}

/// Whether a command word's name has a capital that [`command_name`]
/// folded, where the system would not fold it ([`folds_case`]).
pub fn case_folded_away(word: &str) -> bool {
    let base = match word.as_bytes().iter().rposition(|&b| b == b'/') {
        Some(slash) => &word[slash + 1..],
        None => word,
    };
    base.bytes().any(|b| b.is_ascii_uppercase()) && !folds_case(word)
}

/// Bytes that make a command word more than its name: path separators,
/// capitals (folded) and non-ASCII bytes (folded, as Unicode).
const NOT_BARE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c == b'/' || c == b'\\' || c.is_ascii_uppercase() || !c.is_ascii();
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capital_in_the_name_is_folded_away_where_the_system_keeps_case() {
        for (word, away) in [
            ("HEAD", true),
            ("/usr/bin/HEAD", true),
            ("./Ls", true),
            ("head", false),
            ("/USR/BIN/head", false),
            ("HEAD.EXE", false),
            ("C:\\Tools\\HEAD", false),
            ("", false),
        ] {
            assert_eq!(case_folded_away(word), away, "{word}");
        }
    }

    #[test]
    fn command_words_lose_their_directory_suffix_and_case() {
        for (word, name, plain) in [
            ("rm", "rm", true),
            ("/usr/bin/rm", "rm", true),
            ("./rm", "rm", false),
            ("/opt/x/rm", "rm", false),
            ("C:\\Windows\\System32\\cmd.exe", "cmd", false),
            ("GIT.EXE", "git", true),
            ("git.Exe", "git.exe", true),
            ("git.exe", "git", true),
            (".exe", "", false),
            ("tools/", "", false),
            ("Remove-Item", "remove-item", true),
            ("Ré.exe", "ré", true),
        ] {
            let word = Word::literal(word);
            let (got, got_plain) = command_name(&word);
            assert_eq!((got.as_ref(), got_plain), (name, plain), "{:?}", word.text);
        }
        let expanded = Word {
            literal: false,
            ..Word::literal("rm")
        };
        assert_eq!(command_name(&expanded), (Cow::Borrowed("rm"), false));
    }

    proptest::proptest! {
        /// The shortcut for bare lowercase words names every word as the
        /// full reading does.
        #[test]
        fn the_shortcut_names_words_as_the_full_reading_does(
            text in "[a/\\\\A.eExX\u{e9}-]{0,10}(\\.exe|\\.EXE)?",
            literal in proptest::bool::ANY,
        ) {
            let word = Word { literal, ..Word::literal(text) };
            proptest::prop_assert_eq!(command_name(&word), command_name_in_full(&word));
        }
    }
}
