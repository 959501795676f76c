//! What bytes mean to the shell outside quotes, and byte searches: the
//! leaf the lexer, the parser and the plain-line readers share.

pub(crate) fn is_meta(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

#[cfg(test)]
thread_local! {
    /// Set by tests that compare the fast paths for plain words and plain
    /// lines with the general reader.
    pub(crate) static SLOW_PATHS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether plain words and lines may take their fast paths (always,
/// outside tests).
pub(crate) fn fast_paths() -> bool {
    #[cfg(test)]
    if SLOW_PATHS.with(std::cell::Cell::get) {
        return false;
    }
    true
}

/// Bytes a word made only of them means literally: [`is_plain`] bytes,
/// `=`, and the dots and commas that only braces make special.
pub(crate) const PLAIN_RUN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = is_plain(c) || matches!(c, b'.' | b',' | b'=');
        b += 1;
    }
    table
};

/// Bytes that mean nothing special anywhere inside an unquoted word.
pub(crate) const fn is_plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b':' | b'%' | b'^' | b'~' | b'#')
}

pub(crate) fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

pub(crate) fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

pub(crate) fn memchr_byte(needle: u8, hay: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)
        .and_then(|rest| memchr_pos(needle, rest))
        .map(|i| i + from)
}

fn memchr_pos(needle: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&b| b == needle)
}

pub(crate) fn memchr_newline(hay: &[u8], from: usize) -> usize {
    memchr_byte(b'\n', hay, from).unwrap_or(hay.len())
}
