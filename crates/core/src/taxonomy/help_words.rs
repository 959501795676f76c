//! Every command path's help words together (`help` in `commands.toml`):
//! a command with none of them among its words asks for no help, which
//! settles nearly every command without a lookup of its own.

use std::borrow::Cow;

/// The help words, with a filter of their (length, last byte) pairs: an
/// option word shares no pair with any of them for nearly every command,
/// and is then settled without comparing a text (set against each help
/// word in turn, option words were 2% of a scan).
#[derive(Clone, Debug, Default)]
pub struct HelpWords {
    words: Vec<Cow<'static, str>>,
    /// Bit [`HelpWords::pair_bit`] of each word.
    pairs: [u64; 4],
}

impl HelpWords {
    /// Adds `word`, once.
    pub fn add(&mut self, word: Cow<'static, str>) {
        if !self.words.contains(&word) {
            let bit = Self::pair_bit(&word);
            self.pairs[bit / 64] |= 1 << (bit % 64);
            self.words.push(word);
        }
    }

    /// Whether `word` is one of them.
    pub fn contains(&self, word: &str) -> bool {
        let bit = Self::pair_bit(word);
        self.pairs[bit / 64] & (1 << (bit % 64)) != 0 && self.words.iter().any(|h| h == word)
    }

    /// Each of them, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.words.iter().map(AsRef::as_ref)
    }

    /// A word's place in the filter, from its length and its last byte.
    fn pair_bit(word: &str) -> usize {
        let last = word.as_bytes().last().copied().unwrap_or(0);
        (word.len().wrapping_mul(31) ^ usize::from(last)) & 255
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_found_only_when_added() {
        let mut help = HelpWords::default();
        for w in ["-h", "--help", "-V", "--version", "-?", "-help", "-h"] {
            help.add(Cow::Borrowed(w));
        }
        assert_eq!(help.iter().count(), 6, "each word once");
        for w in ["-h", "--help", "-V", "--version", "-?", "-help"] {
            assert!(help.contains(w), "{w}");
        }
        // Same length, same last byte, or both, as some help word.
        for w in [
            "-l", "-n", "-H", "--hel", "-x?", "--helpp", "--versio", "", "-",
        ] {
            assert!(!help.contains(w), "{w}");
        }
        assert!(!HelpWords::default().contains("-h"));
    }
}
