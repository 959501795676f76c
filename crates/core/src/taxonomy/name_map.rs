//! A map keyed by command names that settles most absent names without
//! hashing them.
//!
//! Every command of a scan asks the taxonomy whether its name is a wrapper
//! and whether it has argument conventions; four in five names are in
//! neither table. A bit per (first byte, last byte, length) of the names
//! held answers "not here" for most of them in a few instructions, where a
//! hash lookup cost about seventy (about 7 M instructions of a scan of the
//! shared corpus for the two tables).

use std::borrow::Cow;
use std::ops::Index;

use rustc_hash::FxHashMap;

/// Bits of the filter: a few hundred names leave most of them clear.
const FILTER_BITS: usize = 1024;

/// A map from command names (or paths, `gh run list`) to `V`.
#[derive(Clone, Debug)]
pub struct NameMap<V> {
    map: FxHashMap<Cow<'static, str>, V>,
    /// A bit for each [`filter_bit`] of a name held: a clear bit means no
    /// name held has that bit, so the name is absent.
    filter: [u64; FILTER_BITS / 64],
}

impl<V> Default for NameMap<V> {
    fn default() -> NameMap<V> {
        NameMap {
            map: FxHashMap::default(),
            filter: [0; FILTER_BITS / 64],
        }
    }
}

/// The filter bit of a name: its first and last bytes and its length.
#[inline]
fn filter_bit(name: &[u8]) -> usize {
    let (first, last) = match (name.first(), name.last()) {
        (Some(&f), Some(&l)) => (usize::from(f), usize::from(l)),
        _ => (0, 0),
    };
    (first.wrapping_mul(31) ^ last.wrapping_mul(7) ^ name.len().wrapping_mul(131)) % FILTER_BITS
}

impl<V> NameMap<V> {
    /// Room for `more` names.
    pub fn reserve(&mut self, more: usize) {
        self.map.reserve(more);
    }

    /// Holds `value` under `name`; returns the value it replaced.
    pub fn insert(&mut self, name: Cow<'static, str>, value: V) -> Option<V> {
        let bit = filter_bit(name.as_bytes());
        self.filter[bit / 64] |= 1 << (bit % 64);
        self.map.insert(name, value)
    }

    /// Could `name` be held? False settles that it is not.
    #[inline]
    fn may_hold(&self, name: &str) -> bool {
        let bit = filter_bit(name.as_bytes());
        self.filter[bit / 64] & (1 << (bit % 64)) != 0
    }

    /// The value held under `name`. (Inlined, so that the common answer,
    /// absent, costs the caller a few instructions and no call.)
    #[inline]
    pub fn get(&self, name: &str) -> Option<&V> {
        if !self.may_hold(name) {
            return None;
        }
        self.lookup(name)
    }

    /// The hash lookup, for a name the filter let through.
    #[inline(never)]
    fn lookup(&self, name: &str) -> Option<&V> {
        self.map.get(name)
    }

    /// Whether a value is held under `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// How many names are held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether no name is held.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The names and values, in no order.
    pub fn iter(&self) -> std::collections::hash_map::Iter<'_, Cow<'static, str>, V> {
        self.map.iter()
    }

    /// The names, in no order.
    pub fn keys(&self) -> std::collections::hash_map::Keys<'_, Cow<'static, str>, V> {
        self.map.keys()
    }

    /// The values, in no order.
    pub fn values(&self) -> std::collections::hash_map::Values<'_, Cow<'static, str>, V> {
        self.map.values()
    }
}

impl<V> Index<&str> for NameMap<V> {
    type Output = V;

    /// The value under `name`; panics when there is none, like a map's
    /// index (for tests and callers that have just listed the names).
    fn index(&self, name: &str) -> &V {
        match self.get(name) {
            Some(v) => v,
            None => panic!("no entry named `{name}`"),
        }
    }
}

impl<'a, V> IntoIterator for &'a NameMap<V> {
    type Item = (&'a Cow<'static, str>, &'a V);
    type IntoIter = std::collections::hash_map::Iter<'a, Cow<'static, str>, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.map.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The filter never hides a name held, and answers what the map alone
    /// answers for names held and not held alike.
    #[test]
    fn the_filter_answers_what_the_map_does() {
        let held: Vec<String> = (0..300)
            .map(|i| format!("cmd{i}"))
            .chain(["git", "gh run list", "x", "sudo", "é"].map(String::from))
            .collect();
        let mut m = NameMap::default();
        let mut plain: FxHashMap<String, usize> = FxHashMap::default();
        for (i, name) in held.iter().enumerate() {
            assert_eq!(m.insert(Cow::Owned(name.clone()), i), None);
            plain.insert(name.clone(), i);
        }
        assert_eq!(m.len(), held.len());
        let mut rejected = 0;
        for probe in held
            .iter()
            .cloned()
            .chain((0..2000).map(|i| format!("other{i}")))
            .chain(["", "gi", "gitt", "Git", "gh run"].map(String::from))
        {
            assert_eq!(m.get(&probe), plain.get(&probe), "{probe:?}");
            assert_eq!(m.contains_key(&probe), plain.contains_key(&probe));
            rejected += usize::from(!m.may_hold(&probe));
        }
        // (And it does its job: most absent names never reach the map.)
        assert!(rejected > 1000, "{rejected}");
        assert_eq!(m["git"], 300);
        assert_eq!(m.insert(Cow::Borrowed("git"), 7), Some(300));
        assert_eq!(m.get("git"), Some(&7));
        assert!(NameMap::<u8>::default().get("").is_none());
    }
}
