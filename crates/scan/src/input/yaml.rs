//! YAML read into a tree that keeps where every node starts, and the
//! shell text of a scalar with the place of each of its lines.
//!
//! The parser is yaml-rust2's event parser (a maintained YAML 1.2 parser
//! that reports positions). Anchors are resolved by copying the anchored
//! node, positions and all: an aliased `script:` is reported where its text
//! is written.

use std::collections::HashMap;

use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::{Problem, Snippet};

/// A node and where it starts (line and column from 1): a mapping at its
/// first key; a block scalar (`|`, `>`) where its first non-blank line's
/// text starts, as the parser marks it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Node {
    pub line: u64,
    pub column: u64,
    pub value: Value,
}

/// What a node holds.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    Scalar(String, TScalarStyle),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Node {
    /// The scalar's text, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar(s, _) => Some(s),
            _ => None,
        }
    }

    /// A mapping's entries (none for another node). A merge key's (`<<`)
    /// mappings come after the node's own keys, so that its own win.
    pub fn entries(&self) -> Vec<(&Node, &Node)> {
        let Value::Map(entries) = &self.value else {
            return Vec::new();
        };
        let mut own: Vec<(&Node, &Node)> = Vec::new();
        let mut merged: Vec<(&Node, &Node)> = Vec::new();
        for (k, v) in entries {
            if k.as_str() == Some("<<") {
                let maps: Vec<&Node> = match &v.value {
                    Value::Seq(items) => items.iter().collect(),
                    _ => vec![v],
                };
                for m in maps {
                    merged.extend(m.entries());
                }
            } else {
                own.push((k, v));
            }
        }
        for (k, v) in merged {
            if !own.iter().any(|(o, _)| o.as_str() == k.as_str()) {
                own.push((k, v));
            }
        }
        own
    }

    /// A mapping's value for `key`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries()
            .into_iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// A sequence's items (none for another node).
    pub fn items(&self) -> &[Node] {
        match &self.value {
            Value::Seq(items) => items,
            _ => &[],
        }
    }
}

/// Builds the tree from the parser's events.
#[derive(Default)]
struct Builder {
    /// Open sequences and mappings: the node, and for a mapping the key
    /// read and waiting for its value.
    stack: Vec<(Node, Option<Node>)>,
    anchors: HashMap<usize, Node>,
    /// Anchor ids of the open nodes, by stack depth, and whether each is a
    /// GitLab `!reference [job, key]`: a pointer to text written elsewhere
    /// (and read there), not a list of commands.
    open_anchors: Vec<(usize, bool)>,
    documents: Vec<Node>,
}

impl Builder {
    fn finish(&mut self, node: Node, anchor: usize) {
        if anchor > 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => self.documents.push(node),
            Some((parent, key)) => match &mut parent.value {
                Value::Seq(items) => items.push(node),
                Value::Map(entries) => match key.take() {
                    None => *key = Some(node),
                    Some(k) => entries.push((k, node)),
                },
                Value::Scalar(..) => {}
            },
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let (line, column) = (mark.line() as u64, mark.col() as u64 + 1);
        let at = |value| Node {
            line,
            column,
            value,
        };
        match ev {
            Event::Scalar(s, style, anchor, _) => self.finish(at(Value::Scalar(s, style)), anchor),
            Event::Alias(id) => {
                let node = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .unwrap_or_else(|| at(Value::Scalar(String::new(), TScalarStyle::Plain)));
                self.finish(node, 0);
            }
            Event::SequenceStart(anchor, tag) => {
                self.stack.push((at(Value::Seq(Vec::new())), None));
                let reference = tag.is_some_and(|t| t.suffix == "reference");
                self.open_anchors.push((anchor, reference));
            }
            Event::MappingStart(anchor, _) => {
                self.stack.push((at(Value::Map(Vec::new())), None));
                self.open_anchors.push((anchor, false));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((mut node, _)) = self.stack.pop() {
                    // A block mapping is marked after its first key: it
                    // starts where that key does.
                    if let Value::Map(entries) = &node.value {
                        if let Some((k, _)) = entries.first() {
                            (node.line, node.column) = (k.line, k.column);
                        }
                    }
                    let (anchor, reference) = self.open_anchors.pop().unwrap_or((0, false));
                    if reference {
                        node.value = Value::Seq(Vec::new());
                    }
                    self.finish(node, anchor);
                }
            }
            _ => {}
        }
    }
}

/// The documents of a YAML text, or where and why it is not YAML.
pub(super) fn parse(text: &str) -> Result<Vec<Node>, Problem> {
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    match parser.load(&mut builder, true) {
        Ok(()) => Ok(builder.documents),
        Err(e) => Err(Problem {
            line: e.marker().line() as u64,
            column: e.marker().col() as u64 + 1,
            message: format!("YAML: {}", e.info()),
        }),
    }
}

/// The shell text of a scalar, each line placed where the file has it.
///
/// A literal block (`|`) keeps its lines: line k of the text is line k of
/// the block, indented by the block's indentation. A one-line plain or
/// quoted scalar starts at its node (after the quote). A folded block or a
/// scalar folded over several lines has no line-for-line place: its text is
/// placed at its first line. In every form, `${{ … }}` is a placeholder
/// (see [`Snippet`]) when `expressions` is set.
pub(super) fn scalar_snippet(source: &str, node: &Node, expressions: bool) -> Snippet {
    let mut snippet = Snippet::new();
    let Value::Scalar(value, style) = &node.value else {
        return snippet;
    };
    let lines: Vec<&str> = source.split('\n').collect();
    match style {
        TScalarStyle::Literal | TScalarStyle::Folded => {
            // The block's lines start on the line after its indicator, the
            // nearest non-blank line above the one the parser marks; its
            // indentation is the first non-blank line's.
            let marked = (node.line as usize).saturating_sub(1);
            let indicator = (0..marked)
                .rev()
                .find(|&i| lines.get(i).is_some_and(|l| !l.trim().is_empty()))
                .unwrap_or(0);
            let first = indicator + 1; // 0-based index of the block's first line
            let start = first as u64 + 1; // and its line
            let indent = lines
                .iter()
                .skip(first)
                .find(|l| !l.trim().is_empty())
                .map_or(0, |l| l.len() - l.trim_start_matches(' ').len());
            if *style == TScalarStyle::Literal {
                for (k, text_line) in value.split_inclusive('\n').enumerate() {
                    let line = start + k as u64;
                    push_line(
                        &mut snippet,
                        text_line,
                        line,
                        indent as u64 + 1,
                        expressions,
                    );
                }
            } else {
                let line = start + leading_blank_lines(&lines, first);
                push_line(&mut snippet, value, line, indent as u64 + 1, expressions);
            }
        }
        TScalarStyle::Plain => push_line(&mut snippet, value, node.line, node.column, expressions),
        TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted => {
            push_line(&mut snippet, value, node.line, node.column + 1, expressions)
        }
    }
    snippet
}

fn leading_blank_lines(lines: &[&str], first: usize) -> u64 {
    lines
        .iter()
        .skip(first)
        .take_while(|l| l.trim().is_empty())
        .count() as u64
}

/// Appends one line of text at `line`, `column`, with each `${{ … }}` a
/// placeholder when `expressions` is set.
fn push_line(snippet: &mut Snippet, text: &str, line: u64, column: u64, expressions: bool) {
    if !expressions {
        snippet.push(text, line, column);
        return;
    }
    let mut rest = text;
    let mut col = column;
    while let Some(open) = rest.find("${{") {
        let Some(close) = rest[open..].find("}}").map(|c| open + c + 2) else {
            break;
        };
        snippet.push(&rest[..open], line, col);
        col += rest[..open].chars().count() as u64;
        let expr = &rest[open..close];
        snippet.push_substituted(expr, line, col);
        col += expr.chars().count() as u64;
        rest = &rest[close..];
    }
    snippet.push(rest, line, col);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_keep_their_places_and_aliases_their_text() {
        let src = "a: 1\nb:\n  - x\n  - &t 'y z'\nc: *t\nd: |\n  echo hi\n";
        let docs = parse(src).unwrap_or_default();
        let root = &docs[0];
        let b = root.get("b").map(Node::items).unwrap_or_default();
        assert_eq!((b[1].line, b[1].column), (4, 8));
        assert_eq!(b[1].as_str(), Some("y z"));
        let c = root.get("c").cloned();
        assert_eq!(
            c.map(|n| (n.line, n.as_str().map(String::from))),
            Some((4, Some("y z".into())))
        );
        let d = root.get("d").cloned().map(|n| (n.line, n.column));
        assert_eq!(d, Some((7, 3)));
        // A block mapping in a sequence starts at its first key.
        let docs = parse("s:\n  - run: x\n    shell: sh\n").unwrap_or_default();
        let item = docs[0]
            .get("s")
            .map(|s| (s.items()[0].line, s.items()[0].column));
        assert_eq!(item, Some((2, 5)));
    }

    #[test]
    fn merge_keys_add_what_a_mapping_lacks() {
        let src = ".base: &base\n  script: [make]\n  image: x\njob:\n  <<: *base\n  image: y\n";
        let docs = parse(src).unwrap_or_default();
        let job = docs[0].get("job").cloned().unwrap_or(Node {
            line: 0,
            column: 0,
            value: Value::Seq(vec![]),
        });
        assert_eq!(job.get("image").and_then(Node::as_str), Some("y"));
        let script = job.get("script").map(|s| s.items().len());
        assert_eq!(script, Some(1));
    }

    #[test]
    fn a_syntax_error_says_where() {
        let e = parse("a: [1, 2\nb: c\n");
        assert!(
            matches!(
                e,
                Err(Problem { line: 3, .. }) | Err(Problem { line: 2, .. })
            ),
            "{e:?}"
        );
    }

    #[test]
    fn literal_blocks_keep_lines_and_quoted_scalars_their_column() {
        let src = "run: |\n    ls\n\n    echo ${{ x }} 'a'\nq: \"echo b\"\n";
        let docs = parse(src).unwrap_or_default();
        let run = docs[0].get("run").cloned();
        let s = run
            .map(|r| scalar_snippet(src, &r, true))
            .unwrap_or_default();
        assert_eq!(s.text(), "ls\n\necho ${__toolgate_substituted_0} 'a'\n");
        assert_eq!(s.position(0), (2, 5));
        assert_eq!(s.position(4), (4, 5));
        let after = s.text().find(" 'a'").unwrap_or(0);
        assert_eq!(s.position(after), (4, 18));
        let q = docs[0].get("q").cloned();
        let s = q.map(|r| scalar_snippet(src, &r, true)).unwrap_or_default();
        assert_eq!(s.position(5), (5, 10));
    }
}
