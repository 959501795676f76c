//! JSON values that keep their key order: what toolgate reads out of a
//! settings file and the entries it writes into one.
//!
//! `serde_json::Value` sorts object keys (the crate is built without
//! `preserve_order`, and turning that feature on would reorder every JSON
//! answer toolgate prints, including the hook answers docs/clients.md quotes).
//! An entry written with its keys sorted would not read as the clients'
//! documentation shows it, so this small document type keeps keys as they
//! were, duplicates included, and numbers as `serde_json::Number`. The
//! files themselves are edited as text (the private `jsonc` module), never
//! rewritten from one of these.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A JSON value whose objects keep their key order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(serde_json::Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, in file order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// An empty object.
    pub fn object() -> Json {
        Json::Object(Vec::new())
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value under `key` (the first, if the key is repeated).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value under `key`, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(pairs) => pairs.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets `key` (in place when present, else appended). Does nothing
    /// unless this is an object.
    pub fn set(&mut self, key: &str, value: Json) {
        if let Json::Object(pairs) = self {
            match pairs.iter_mut().find(|(k, _)| k == key) {
                Some((_, v)) => *v = value,
                None => pairs.push((key.to_string(), value)),
            }
        }
    }

    /// Removes every `key`.
    pub fn remove(&mut self, key: &str) {
        if let Json::Object(pairs) = self {
            pairs.retain(|(k, _)| k != key);
        }
    }

    /// Is this an empty object or array?
    pub fn is_empty_container(&self) -> bool {
        match self {
            Json::Object(p) => p.is_empty(),
            Json::Array(a) => a.is_empty(),
            _ => false,
        }
    }

    /// Renders on one line, as `{"a": 1, "b": [true, null]}`: how a value
    /// joins a container the file keeps on one line.
    pub fn render_inline(&self) -> String {
        match self {
            Json::Null => "null".into(),
            Json::Bool(b) => b.to_string(),
            Json::Number(n) => n.to_string(),
            // serde_json's Display escapes as JSON does, and cannot fail.
            Json::String(s) => serde_json::Value::String(s.clone()).to_string(),
            Json::Array(items) => {
                let items: Vec<String> = items.iter().map(Json::render_inline).collect();
                format!("[{}]", items.join(", "))
            }
            Json::Object(pairs) => {
                let pairs: Vec<String> = pairs
                    .iter()
                    .map(|(k, v)| {
                        format!(
                            "{}: {}",
                            Json::String(k.clone()).render_inline(),
                            v.render_inline()
                        )
                    })
                    .collect();
                format!("{{{}}}", pairs.join(", "))
            }
        }
    }

    /// Renders as the clients write their files: pretty, with `indent`,
    /// and a final newline when `newline`.
    pub fn render(&self, indent: &str, newline: bool) -> String {
        let mut out = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
        // Writing into a Vec cannot fail, and every key is a string.
        if self.serialize(&mut ser).is_err() {
            return String::new();
        }
        let mut text = String::from_utf8_lossy(&out).into_owned();
        if newline {
            text.push('\n');
        }
        text
    }
}

/// The indentation a file uses: the leading whitespace of its first
/// indented line, else two spaces (what Claude Code, Gemini CLI and the
/// others write).
pub fn indent_of(text: &str) -> String {
    text.lines()
        .map(|l| &l[..l.len() - l.trim_start().len()])
        .find(|w| !w.is_empty())
        .unwrap_or("  ")
        .to_string()
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(t) => s.serialize_str(t),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            Json::Object(pairs) => {
                let mut map = s.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(n)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut pairs = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            pairs.push((k, v));
        }
        Ok(Json::Object(pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_rendering_escapes_strings() {
        let v = Json::Object(vec![
            ("q\"".into(), Json::String("a\nb".into())),
            ("e".into(), Json::Array(Vec::new())),
            ("o".into(), Json::object()),
        ]);
        assert_eq!(v.render_inline(), r#"{"q\"": "a\nb", "e": [], "o": {}}"#);
    }
}
