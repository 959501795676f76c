//! Exact decimal amounts: `"25.10"` and `"25.1"` are equal, and
//! `"10000.00"` is not above `"10000"`, whatever a float would say.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::Value;

/// A non-negative exact decimal amount.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(Decimal);

impl Amount {
    /// Parses decimal text: digits with an optional fraction, no sign,
    /// exponent, spaces inside or thousands separators.
    ///
    /// ```
    /// use toolgate_policy::action_guard::Amount;
    /// assert_eq!(Amount::parse("25.10"), Amount::parse("25.1"));
    /// assert!(Amount::parse("1e3").is_none());
    /// assert!(Amount::parse("-5").is_none());
    /// ```
    pub fn parse(text: &str) -> Option<Amount> {
        let t = text.trim();
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if int.is_empty() || !digits(int) || !digits(frac) || (t.contains('.') && frac.is_empty()) {
            return None;
        }
        Decimal::from_str_exact(t).ok().map(Amount)
    }

    /// Reads an amount from a JSON value: a string of decimal text, or a
    /// number (as its shortest exact text; send strings for amounts with
    /// more than 15 significant digits).
    pub fn from_json(v: &Value) -> Option<Amount> {
        match v {
            Value::String(s) => Amount::parse(s),
            Value::Number(n) => {
                let text = n.to_string();
                if text.contains(['e', 'E']) {
                    return None;
                }
                Amount::parse(&text)
            }
            _ => None,
        }
    }

    /// Zero.
    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }
}

impl FromStr for Amount {
    type Err = String;
    fn from_str(s: &str) -> Result<Amount, String> {
        Amount::parse(s).ok_or_else(|| format!("`{s}` is not a decimal amount such as \"250.00\""))
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.normalize().fmt(f)
    }
}

/// `a > b`, exactly.
pub(crate) fn above(a: Amount, b: Amount) -> bool {
    a.cmp(&b) == Ordering::Greater
}
