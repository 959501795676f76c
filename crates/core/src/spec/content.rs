//! Checks of the arguments that are data to a command but say what it does:
//! search patterns that hunt for credentials, `sed` scripts, `jq` filters.

/// Fragments of credential formats: a pattern naming one is looking for
/// keys and tokens to print (`grep -E 'AKIA[0-9A-Z]{16}|ghp_' -r .`).
/// Matched as written: these formats are case-sensitive.
const CREDENTIAL_FORMATS: &[&str] = &[
    "AKIA",
    "ASIA[",
    "ASIA(",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xoxs-",
    "xapp-",
    "sk_live_",
    "rk_live_",
    "sk_test_",
    "sk-proj-",
    "sk-ant-",
    "AIza",
    "ya29.",
    "npm_[",
    "pypi-Ag",
    "dop_v1_",
    "-----BEGIN",
    "PRIVATE KEY",
    "BEGIN RSA",
    "BEGIN OPENSSH",
    "aws_secret_access_key",
    "AWS_SECRET_ACCESS_KEY",
];

/// Words that, followed closely by `=` or `:`, hunt for assignments of
/// secrets (`password\s*=`, `api_key:`), compared in lowercase.
const SECRET_KEYS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "access_key",
    "private_key",
    "client_secret",
    "credential",
    "auth",
    "bearer",
];

/// Why a search pattern hunts for credentials, if it does. A pattern that
/// merely names a secret-sounding word (`password_hash`, `secrets`) is a
/// plain search.
pub fn hunts_credentials(pattern: &str) -> Option<String> {
    // Most patterns hold no two adjacent bytes that start any needle below
    // (in any case, with the regex punctuation taken out): they are let go
    // after one pass, where trying each needle in turn cost 2 k
    // instructions a pattern (4.6 M of a scan of the shared corpus).
    if !NeedlePairs::could_hold(&plain(pattern)) {
        return None;
    }
    hunts_credentials_in_full(pattern)
}

/// [`hunts_credentials`] without the pair filter: every needle tried.
fn hunts_credentials_in_full(pattern: &str) -> Option<String> {
    let bytes = Bytes::of(pattern);
    if let Some(f) = CREDENTIAL_FORMATS
        .iter()
        .find(|f| bytes.may_have(f) && has(pattern, f))
    {
        return Some(format!("the pattern looks for credentials (`{f}`)"));
    }
    // The same in any letter case (`grep -i akia`) and with the regex
    // punctuation that spells a literal another way (`AK[I]A`, `gh\p_`)
    // taken out. (A heuristic: a regex can always find what it does not
    // spell; this catches the plain respellings.) Byte by byte: the
    // punctuation and the folding are ASCII, and a pattern's forms are kept
    // in place (three allocations per pattern were 1% of a corpus scan).
    static FOLDED: std::sync::OnceLock<Vec<(&'static str, Folded)>> = std::sync::OnceLock::new();
    let formats = FOLDED.get_or_init(|| {
        CREDENTIAL_FORMATS
            .iter()
            // (`ASIA[` means a regex: folded, it would be any Asia/…)
            .filter(|f| f.len() >= 4 && !f.contains(['[', '(']))
            .map(|f| (*f, plain(f)))
            .collect()
    });
    let folded = plain(pattern);
    let folded_bytes = Bytes::of(&folded);
    if let Some((f, _)) = formats
        .iter()
        .find(|(_, p)| folded_bytes.may_have(p) && has_bytes(&folded, p))
    {
        return Some(format!(
            "the pattern looks for credentials (`{f}`, in any spelling)"
        ));
    }
    let lower: Folded = pattern.bytes().map(|b| b.to_ascii_lowercase()).collect();
    let lower_bytes = Bytes::of(&lower);
    for key in SECRET_KEYS {
        let key_bytes = key.as_bytes();
        if !lower_bytes.may_have(key_bytes) || !has_bytes(&lower, key_bytes) {
            continue;
        }
        let mut from = 0;
        while let Some(at) = find_bytes(&lower[from..], key_bytes) {
            let end = from + at + key.len();
            let window = &lower[end..lower.len().min(end + 8)];
            let assigns = window.iter().position(|b| matches!(b, b'=' | b':'));
            let word_goes_on = window
                .iter()
                .take(assigns.unwrap_or(window.len()))
                .any(|b| b.is_ascii_alphanumeric() && *b != b's');
            if assigns.is_some() && !word_goes_on {
                return Some(format!("the pattern looks for values assigned to `{key}`"));
            }
            if *key == "bearer" && lower[end..].starts_with(b" ") {
                return Some("the pattern looks for bearer tokens".into());
            }
            from = end;
        }
    }
    None
}

/// The first two bytes of every needle [`hunts_credentials`] looks for,
/// lowercased and cut to seven bits, as a set of pairs. Each check finds
/// its needle in the pattern, its lowercase, or its folded form ([`plain`]);
/// a needle's first two bytes are never punctuation that folding removes,
/// so wherever a check would find one, the folded pattern holds the pair
/// (cut to seven bits, many pairs share a bit: a superset, never a miss).
struct NeedlePairs;

/// The pair set, built at compile time from the needle lists.
static NEEDLE_PAIRS: [u64; 256] = NeedlePairs::table();

impl NeedlePairs {
    const fn bit(a: u8, b: u8) -> usize {
        (((a.to_ascii_lowercase() & 0x7f) as usize) << 7)
            | ((b.to_ascii_lowercase() & 0x7f) as usize)
    }

    const fn table() -> [u64; 256] {
        let mut t = [0u64; 256];
        let lists: [&[&str]; 2] = [CREDENTIAL_FORMATS, SECRET_KEYS];
        let mut l = 0;
        while l < lists.len() {
            let mut i = 0;
            while i < lists[l].len() {
                let n = lists[l][i].as_bytes();
                // (Every needle has two bytes: a test holds it so.)
                if n.len() >= 2 {
                    let bit = NeedlePairs::bit(n[0], n[1]);
                    t[bit / 64] |= 1 << (bit % 64);
                }
                i += 1;
            }
            l += 1;
        }
        t
    }

    /// Could the folded pattern `folded` hold a needle?
    fn could_hold(folded: &[u8]) -> bool {
        folded.windows(2).any(|w| {
            let bit = NeedlePairs::bit(w[0], w[1]);
            NEEDLE_PAIRS[bit / 64] & (1 << (bit % 64)) != 0
        })
    }
}

/// The bytes a text holds, as a set: a needle whose first or last byte is
/// not among them is not in the text, which settles most of the sixty-odd
/// needles [`hunts_credentials`] tries on a pattern with two lookups
/// instead of a pass over the pattern each (8.5 M instructions of a scan of
/// the shared corpus).
struct Bytes([u64; 4]);

impl Bytes {
    fn of(text: impl AsRef<[u8]>) -> Bytes {
        let mut set = [0u64; 4];
        for &b in text.as_ref() {
            set[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        Bytes(set)
    }

    fn holds(&self, b: u8) -> bool {
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    /// False only if `needle` cannot be in the text.
    fn may_have(&self, needle: impl AsRef<[u8]>) -> bool {
        let needle = needle.as_ref();
        match (needle.first(), needle.last()) {
            (Some(&first), Some(&last)) => self.holds(first) && self.holds(last),
            _ => true,
        }
    }
}

/// `hay.contains(needle)` for the short words here: a plain scan, where
/// `str::contains` would first build a searcher for every needle.
pub(crate) fn has(hay: &str, needle: &str) -> bool {
    has_bytes(hay.as_bytes(), needle.as_bytes())
}

/// [`has`] for bytes.
fn has_bytes(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || find_bytes(hay, needle).is_some()
}

/// Where `needle` first starts in `hay`.
fn find_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    if hay.len() < needle.len() {
        return None;
    }
    (0..=hay.len() - needle.len()).find(|&i| hay[i] == first && &hay[i..i + needle.len()] == needle)
}

/// A pattern's bytes, folded: short ones in place.
type Folded = smallvec::SmallVec<[u8; 96]>;

/// `text` lowercased (ASCII) with the regex punctuation that can spell a
/// literal another way taken out.
fn plain(text: &str) -> Folded {
    text.bytes()
        .filter(|b| {
            !matches!(
                b,
                b'[' | b']'
                    | b'('
                    | b')'
                    | b'\\'
                    | b'?'
                    | b'*'
                    | b'+'
                    | b'{'
                    | b'}'
                    | b'|'
                    | b'^'
                    | b'$'
            )
        })
        .map(|b| b.to_ascii_lowercase())
        .collect()
}

/// Why a `sed` script is not print-only, if it is not. Allowed: addresses
/// (`10`, `$`, `/re/`, `1,5`, `0~2`, `addr,+N`), `!`, and the commands `p`,
/// `P`, `=`, `l`, `q`, `Q`, `d`, `n`, `N`, `g`, `G`, `h`, `H`, `x`,
/// `s/…/…/FLAGS` and `y/…/…/` whose flags never write or run (`w`, `e`),
/// separated by `;` or newlines, in `{…}` blocks. Refused: `w`, `W`, `r`,
/// `R`, `e`, `s///w`, `s///e`, `F`, labels and branches (a loop could run
/// for ever), and anything else.
pub fn sed_script(script: &str) -> Result<(), String> {
    let b = script.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    loop {
        while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b';') {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        if b[i] == b'}' {
            depth = depth.checked_sub(1).ok_or("an unmatched `}`")?;
            i += 1;
            continue;
        }
        // Up to two addresses.
        for n in 0..2 {
            i = address(b, i)?;
            if n == 0 && i < b.len() && b[i] == b',' {
                i += 1;
                if i < b.len() && (b[i] == b'+' || b[i] == b'~') {
                    i += 1;
                }
                continue;
            }
            break;
        }
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        if i < b.len() && b[i] == b'!' {
            i += 1;
        }
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        let Some(&cmd) = b.get(i) else {
            return Err("an address with no command".into());
        };
        i += 1;
        match cmd {
            b'p' | b'P' | b'=' | b'l' | b'd' | b'n' | b'N' | b'g' | b'G' | b'h' | b'H' | b'x'
            | b'z' => {}
            // `D` starts the next cycle without reading a line: `G;D`
            // loops for ever.
            b'D' => return Err("the `D` command can loop for ever".into()),
            b'q' | b'Q' => {
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            b'{' => depth += 1,
            b's' | b'y' => {
                let delim = *b.get(i).ok_or("`s` with no delimiter")?;
                if delim == b'\\' || delim == b'\n' || delim.is_ascii_alphanumeric() {
                    return Err("an unusual `s` delimiter".into());
                }
                i += 1;
                for _ in 0..2 {
                    while i < b.len() && b[i] != delim {
                        if b[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    if i >= b.len() {
                        return Err("an unterminated `s` command".into());
                    }
                    i += 1;
                }
                while i < b.len() && !matches!(b[i], b';' | b'\n' | b'}' | b' ') {
                    match b[i] {
                        b'g' | b'p' | b'i' | b'I' | b'm' | b'M' | b'0'..=b'9' if cmd == b's' => {}
                        b'w' | b'W' => return Err("`s///w` writes a file".into()),
                        b'e' => return Err("`s///e` runs the pattern space as a command".into()),
                        other => {
                            return Err(format!("the `{}` flag of `s`", char::from(other)));
                        }
                    }
                    i += 1;
                }
            }
            b'w' | b'W' => return Err("the `w` command writes a file".into()),
            b'r' | b'R' => return Err("the `r` command reads a file the script names".into()),
            b'e' => return Err("the `e` command runs a shell command".into()),
            other => {
                return Err(format!(
                    "the `{}` command is not one of sed's print-only commands",
                    char::from(other)
                ))
            }
        }
        // A command ends at `;`, a newline, `}` or blanks (sed refuses
        // `xp`: extra characters after a command).
        while i < b.len() && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        if i < b.len() && cmd != b'{' && !matches!(b[i], b';' | b'\n' | b'}') {
            return Err("extra characters after a command".into());
        }
    }
    if depth != 0 {
        return Err("an unclosed `{`".into());
    }
    Ok(())
}

/// Skips one sed address at `i`: a number (`1`, `0~2`), `$`, or `/re/`
/// (`\cREc` too) with an optional `I`/`M`.
fn address(b: &[u8], mut i: usize) -> Result<usize, String> {
    match b.get(i) {
        Some(c) if c.is_ascii_digit() => {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'~') {
                i += 1;
            }
        }
        Some(b'$') => i += 1,
        Some(&d) if d == b'/' || d == b'\\' => {
            let delim = if d == b'\\' {
                i += 1;
                *b.get(i).ok_or("an unterminated address")?
            } else {
                d
            };
            i += 1;
            while i < b.len() && b[i] != delim {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            if i >= b.len() {
                return Err("an unterminated `/re/` address".into());
            }
            i += 1;
            while i < b.len() && matches!(b[i], b'I' | b'M') {
                i += 1;
            }
        }
        _ => {}
    }
    Ok(i)
}

/// Why a git `--format`/`--pretty` string is not plain text, if it is not:
/// `%G…` placeholders and `%(signature…)` verify signatures, which runs gpg.
pub fn git_format(format: &str) -> Result<(), String> {
    if format.contains("%G") || format.contains("%(signature") {
        return Err("a signature placeholder, which runs gpg to verify it".into());
    }
    Ok(())
}

/// Why a `jq` filter is not a plain query, if it is not: it reads the
/// environment (`env`, `$ENV`) or other files (`import`, `include`,
/// `modulemeta`, `input_filename` is harmless), or names the program's
/// arguments (`$__prog_args`).
pub fn jq_filter(filter: &str) -> Result<(), String> {
    // jq's lexer lets blanks and `#` comments stand between `$` and `ENV`
    // (`$ ENV.X`, `$ # c⏎ENV`): read the filter without them.
    let mut squeezed = String::with_capacity(filter.len());
    let mut comment = false;
    for c in filter.chars() {
        match c {
            '\n' => comment = false,
            '#' => comment = true,
            _ if comment || c.is_whitespace() => {}
            _ => squeezed.push(c),
        }
    }
    if squeezed.contains("$ENV") || squeezed.contains("$__prog_args") {
        return Err("`$ENV` prints the environment".into());
    }
    if filter.contains("$ENV") {
        return Err("`$ENV` prints the environment".into());
    }
    if filter.contains("$__prog_args") {
        return Err("`$__prog_args` reads the command line".into());
    }
    for word in [
        "env",
        "import",
        "include",
        "modulemeta",
        "get_search_list",
        "input_filename_of",
    ] {
        if has_identifier(filter, word) {
            return Err(match word {
                "env" => "`env` prints the environment".into(),
                w => format!("`{w}` reads other files"),
            });
        }
    }
    Ok(())
}

/// Whether `word` occurs as a whole identifier (not `.env` the field, which
/// is a key lookup, nor `environment`).
fn has_identifier(text: &str, word: &str) -> bool {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find(word) {
        let start = from + at;
        let end = start + word.len();
        let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
        let before_ok = start == 0 || (!ident(b[start - 1]) && b[start - 1] != b'.');
        let after_ok = end == b.len() || !ident(b[end]);
        if before_ok && after_ok {
            return true;
        }
        from = end;
    }
    false
}

#[cfg(test)]
mod tests {

    /// The byte-set filter rules out only needles that `has` does not
    /// find: over every word of the embedded spec examples and near misses
    /// (and the needles themselves, folded and not), with every needle.
    #[test]
    fn the_byte_filter_never_hides_a_needle() {
        let mut hays: Vec<String> = CREDENTIAL_FORMATS
            .iter()
            .chain(SECRET_KEYS)
            .flat_map(|n| [n.to_string(), n.to_ascii_lowercase(), format!("x{n}=")])
            .collect();
        for (_, text) in crate::taxonomy::embedded_sources() {
            hays.extend(
                text.split(|c: char| c.is_whitespace() || c == '"' || c == '\'')
                    .map(String::from),
            );
        }
        let mut found = 0;
        for hay in &hays {
            let set = Bytes::of(hay);
            for needle in CREDENTIAL_FORMATS.iter().chain(SECRET_KEYS) {
                if has(hay, needle) {
                    found += 1;
                    assert!(set.may_have(needle), "{needle:?} in {hay:?}");
                }
            }
        }
        assert!(found > 100, "{found}");
    }

    use super::*;

    /// The pair filter lets through every pattern the full check finds a
    /// hunt in: the needles themselves in every case and spelling, inside
    /// words and regexes, and every word of the embedded taxonomy.
    #[test]
    fn the_pair_filter_never_hides_a_hunt() {
        for n in CREDENTIAL_FORMATS.iter().chain(SECRET_KEYS) {
            assert!(n.len() >= 2, "{n}");
            let [a, b, ..] = n.as_bytes() else { continue };
            assert!(
                !matches!(
                    a,
                    b'[' | b']'
                        | b'('
                        | b')'
                        | b'\\'
                        | b'?'
                        | b'*'
                        | b'+'
                        | b'{'
                        | b'}'
                        | b'|'
                        | b'^'
                        | b'$'
                ),
                "{n}"
            );
            assert!(
                !matches!(
                    b,
                    b'[' | b']'
                        | b'('
                        | b')'
                        | b'\\'
                        | b'?'
                        | b'*'
                        | b'+'
                        | b'{'
                        | b'}'
                        | b'|'
                        | b'^'
                        | b'$'
                ),
                "{n}"
            );
        }
        let mut patterns: Vec<String> = Vec::new();
        for n in CREDENTIAL_FORMATS.iter().chain(SECRET_KEYS) {
            let spelled: String = n.chars().flat_map(|c| ['[', c, ']']).collect();
            for p in [
                n.to_string(),
                n.to_ascii_lowercase(),
                n.to_ascii_uppercase(),
                format!("x{n}="),
                format!("({n}):"),
                format!("{n} "),
                format!("a|{}\\s*=", n.to_ascii_uppercase()),
                spelled,
            ] {
                patterns.push(p);
            }
        }
        for (_, text) in crate::taxonomy::embedded_sources() {
            patterns.extend(
                text.split(|c: char| c.is_whitespace() || c == '"' || c == '\'')
                    .map(String::from),
            );
        }
        let mut hunts = 0;
        let mut let_go = 0;
        for p in &patterns {
            let full = hunts_credentials_in_full(p);
            assert_eq!(hunts_credentials(p), full, "{p:?}");
            hunts += usize::from(full.is_some());
            let_go += usize::from(!NeedlePairs::could_hold(&plain(p)));
        }
        assert!(hunts > 100, "{hunts}");
        // (And it does its job: most words are let go by the filter.)
        assert!(
            let_go * 2 > patterns.len(),
            "{let_go} of {}",
            patterns.len()
        );
    }

    #[test]
    fn credential_hunts_are_told_from_plain_searches() {
        for hunt in [
            "AKIA[0-9A-Z]{16}|ghp_",
            "ghp_[A-Za-z0-9]{36}",
            "-----BEGIN",
            "password\\s*=",
            "PASSWORD=",
            "api_key:",
            "secret\\s*:",
            "Bearer ",
            "token=",
        ] {
            assert!(hunts_credentials(hunt).is_some(), "{hunt}");
        }
        for plain in [
            "password_hash",
            "secrets",
            "def handle",
            "TODO",
            "token",
            "Asia/Tokyo",
            "authors",
        ] {
            assert_eq!(hunts_credentials(plain), None, "{plain}");
        }
    }

    #[test]
    fn sed_scripts_are_print_only_or_refused() {
        for ok in [
            "1,5p",
            "10p",
            "$p",
            "/foo/p",
            "/a/,/b/p",
            "s/a/b/g",
            "s|a|b|gp",
            "1d;3q",
            "0~2p",
            "=",
            "10,+3p",
            "/x/!d",
            "y/abc/xyz/",
            "1{p;q}",
            "s/a\\/b/c/",
        ] {
            assert_eq!(sed_script(ok), Ok(()), "{ok}");
        }
        for bad in [
            "w out",
            "1w out",
            "s/a/b/w out",
            "s/a/b/e",
            "e ls",
            "r /etc/passwd",
            "1R x",
            "bx",
            ":a;ba",
            "s/a/b",
            "F",
            "1{p",
        ] {
            assert!(sed_script(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn jq_filters_that_read_the_environment_are_refused() {
        for ok in [
            ".name",
            ".dependencies | keys[]",
            ".env",
            ".environment",
            "map(.a)",
            "input_filename",
        ] {
            assert_eq!(jq_filter(ok), Ok(()), "{ok}");
        }
        for bad in [
            "env",
            "env.HOME",
            "$ENV.AWS_SECRET_ACCESS_KEY",
            "import \"a\" as a; .",
            "include \"x\"; .",
            "[env[]]",
            "$__prog_args",
        ] {
            assert!(jq_filter(bad).is_err(), "{bad}");
        }
    }
}
