//! Secrets and the identifiers keyed by them. Every identifier the store
//! keeps is an HMAC under the store secret, so order ids and customer ids
//! cannot be read back from the file; idempotency keys are HMACs under a
//! second secret, the same in every process and after restarts.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// A secret key of at least 32 bytes.
#[derive(Clone)]
pub struct Secret(Vec<u8>);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// Why a secret was refused. The message never contains the secret.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    /// Not hexadecimal text.
    #[error("the secret is not hexadecimal text")]
    NotHex,
    /// Shorter than 32 bytes.
    #[error("the secret is {0} bytes; at least 32 are needed (64 hex digits, e.g. from `openssl rand -hex 32`)")]
    TooShort(usize),
    /// Too regular to be random.
    #[error("the secret is not random (too few distinct bytes); generate one with `openssl rand -hex 32`")]
    NotRandom,
}

impl Secret {
    /// A secret from raw bytes, refused when short or obviously not random.
    pub fn new(bytes: Vec<u8>) -> Result<Secret, SecretError> {
        if bytes.len() < 32 {
            return Err(SecretError::TooShort(bytes.len()));
        }
        // 32 random bytes have about 30 distinct values; fewer than 16 is
        // a pattern (all zeros, "abab…", a repeated short word).
        let mut seen = [false; 256];
        for b in &bytes {
            seen[*b as usize] = true;
        }
        let distinct = seen.iter().filter(|s| **s).count();
        let ascending = bytes.windows(2).all(|w| w[1] == w[0].wrapping_add(1));
        if distinct < 16 || ascending {
            return Err(SecretError::NotRandom);
        }
        Ok(Secret(bytes))
    }

    /// A secret from hexadecimal text (surrounding whitespace ignored).
    pub fn from_hex(text: &str) -> Result<Secret, SecretError> {
        let bytes = hex::decode(text.trim()).map_err(|_| SecretError::NotHex)?;
        Secret::new(bytes)
    }

    /// HMAC-SHA-256 of the parts, each length-prefixed so that no two
    /// different lists of parts give the same input; hex.
    pub fn mac(&self, parts: &[&[u8]]) -> String {
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.0) else {
            // HMAC takes keys of any length; this arm cannot run.
            return String::new();
        };
        for p in parts {
            mac.update(&(p.len() as u64).to_be_bytes());
            mac.update(p);
        }
        hex::encode(mac.finalize().into_bytes())
    }
}
