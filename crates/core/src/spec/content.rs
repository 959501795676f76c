//! Checks of the arguments that are data to a command but say what it does:
//! search patterns that hunt for credentials, `sed` scripts, `jq` filters.

/// Why a search pattern hunts for credentials, if it does: it spells a
/// token's format (`ghp_`, `AKIA[0-9A-Z]{16}`) or assigns a secret's name
/// (`password\s*=`, `GITHUB_TOKEN`). A pattern that merely names a
/// secret-sounding word (`password_hash`, `secrets`) is a plain search.
///
/// The keywords are the secret detectors' (`taxonomy/secrets/`): see
/// [`crate::secrets::hunt`] for the rules.
pub fn hunts_credentials(pattern: &str) -> Option<String> {
    crate::secrets::hunt::hunts_credentials(pattern)
}

/// `hay.contains(needle)` for the short words here: a plain scan, where
/// `str::contains` would first build a searcher for every needle.
pub(crate) fn has(hay: &str, needle: &str) -> bool {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = needle.first() else {
        return true;
    };
    hay.len() >= needle.len()
        && (0..=hay.len() - needle.len())
            .any(|i| hay[i] == first && &hay[i..i + needle.len()] == needle)
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
    // Hold-space commands: appending to or from the hold space (`H`, `G`)
    // together with another hold command copies a buffer that grows with
    // every line, once a line (`G;h` prints the input reversed, in time
    // quadratic in it): not linear in the input.
    let (mut holds, mut appends) = (0, false);
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
            b'G' | b'H' => {
                holds += 1;
                appends = true;
            }
            b'g' | b'h' | b'x' => holds += 1,
            b'p' | b'P' | b'=' | b'l' | b'd' | b'n' | b'N' | b'z' => {}
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
    if appends && holds >= 2 {
        return Err(
            "appends to or from the hold space and copies it again, which takes time or memory growing faster than the input"
                .into(),
        );
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
    jq_ends_in_linear_time(filter)
}

/// Whether a jq filter ends in time linear in its input, as far as its
/// words show: no loop or generator whose length is its own (`repeat`,
/// `while`, `until`, `range`, `limit` of one, recursion through `def` or
/// `recurse(f)`, `combinations`), and no number literal so large that
/// arithmetic on it grows a value without bound (`"x" * 1e9`). `..` and
/// `recurse` with no argument walk the input once and stay.
fn jq_ends_in_linear_time(filter: &str) -> Result<(), String> {
    for word in [
        "repeat",
        "while",
        "until",
        "range",
        "def",
        "combinations",
        "getpath_recurse",
    ] {
        if has_identifier(filter, word) {
            return Err(format!(
                "`{word}` can run or grow without bound, whatever the input"
            ));
        }
    }
    if let Some(at) = filter.find("recurse") {
        if filter[at + "recurse".len()..].trim_start().starts_with('(') {
            return Err("`recurse(f)` can run without bound, whatever the input".into());
        }
    }
    if has_large_number(filter) {
        return Err(format!(
            "a number of {MAX_NUMBER_DIGITS} digits or more, which can grow a value without bound"
        ));
    }
    Ok(())
}

/// Digits from which a number in a program (jq, a printf width) is large
/// enough to grow an output past any useful size.
pub const MAX_NUMBER_DIGITS: usize = 7;

/// Whether `text` holds a run of [`MAX_NUMBER_DIGITS`] digits or more, or
/// an exponent (`1e9`).
fn has_large_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut run = 0;
    for (i, &c) in b.iter().enumerate() {
        if c.is_ascii_digit() {
            run += 1;
            if run >= MAX_NUMBER_DIGITS {
                return true;
            }
        } else {
            if run > 0 && matches!(c, b'e' | b'E') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                return true;
            }
            run = 0;
        }
    }
    false
}

/// Why a text a command formats (`printf`'s format, `seq -f`) could print
/// without bound, if it could: a width or precision of
/// [`MAX_NUMBER_DIGITS`] digits or more (`%999999999d`), or one taken
/// from the arguments (`%*d`).
pub fn format_width(text: &str) -> Result<(), String> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if b.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len()
            && (b[i].is_ascii_digit()
                || matches!(b[i], b'-' | b'+' | b' ' | b'#' | b'.' | b'*' | b'\''))
        {
            i += 1;
        }
        let spec = &b[start..i];
        if spec.contains(&b'*') {
            return Err("a `*` width or precision, taken from the arguments".into());
        }
        let longest = spec
            .split(|c| !c.is_ascii_digit())
            .map(<[u8]>::len)
            .max()
            .unwrap_or(0);
        if longest >= MAX_NUMBER_DIGITS {
            return Err("a width or precision so large that the output has no useful bound".into());
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
    use super::*;

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
            "GITHUB_TOKEN",
            "github_[t]oken",
            "AWS_SECRET",
            "aws_secret_access_key",
            "hf_[A-Za-z]{34}",
            "g(h)p_",
            "x|AKIA",
            "\\bAKIA",
            "akia",
            "pypi-Ag",
            "BEGIN RSA",
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
            "monkey-patch",
            "task-runner",
            "is_authenticated",
            "https://",
            "max_tokens",
            "def rebuild_auth",
            "secret",
            "-user",
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
