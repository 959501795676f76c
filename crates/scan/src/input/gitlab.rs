//! GitLab CI: the `script:`, `before_script:` and `after_script:` lists of
//! every job (hidden `.template` jobs too, which others extend), of
//! `default:` and of the top level. Each item is shell text the runner
//! runs in one shell session; nested lists (from `!reference` or anchors)
//! are flattened.

use super::yaml::{self, Node, Value};
use super::{shell, Extract, Problem};

/// Top-level keys that are not jobs.
const GLOBAL: &[&str] = &[
    "stages",
    "variables",
    "include",
    "workflow",
    "image",
    "services",
    "cache",
    "before_script",
    "after_script",
    "spec",
];

const SCRIPTS: [&str; 3] = ["before_script", "script", "after_script"];

/// Adds the commands of every script list.
pub(super) fn read(text: &str, out: &mut Extract) {
    let docs = match yaml::parse(text) {
        Ok(docs) => docs,
        Err(p) => return out.problems.push(p),
    };
    for doc in &docs {
        for (key, value) in doc.entries() {
            let Some(name) = key.as_str() else { continue };
            if GLOBAL.contains(&name) {
                if SCRIPTS.contains(&name) {
                    read_list(text, value, &[("job", "(global)".to_string())], out);
                }
                continue;
            }
            // `default:` and each job.
            for list in SCRIPTS {
                if let Some(items) = value.get(list) {
                    read_list(text, items, &[("job", name.to_string())], out);
                }
            }
        }
    }
}

/// Adds the commands of a script value: one string, or a list of strings
/// and lists.
fn read_list(text: &str, node: &Node, names: &[(&'static str, String)], out: &mut Extract) {
    match &node.value {
        Value::Scalar(..) => {
            let snippet = yaml::scalar_snippet(text, node, false);
            shell::read(&snippet, names, out);
        }
        Value::Seq(items) => {
            for item in items {
                read_list(text, item, names, out);
            }
        }
        Value::Map(_) => out.problems.push(Problem {
            line: node.line,
            column: node.column,
            message: "a script item is a mapping, not a string or a list".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{extract, Kind};

    #[test]
    fn script_lists_at_their_lines_and_columns() {
        let src = "\
stages: [test]
variables:
  GIT_DEPTH: 1
default:
  before_script:
    - echo start
.cleanup: &cleanup
  - rm -rf build/
test:
  stage: test
  script:
    - cargo test
    - |
      # comment
      make check \\
        V=1
  after_script: *cleanup
deploy:
  script: \"kubectl delete ns review\"
lint:
  script:
    - !reference [test, script]
    - shellcheck *.sh
";
        let e = extract(Kind::GitlabCi, src);
        assert!(e.problems.is_empty(), "{:?}", e.problems);
        let got: Vec<(u64, u64, String, String)> = e
            .found
            .into_iter()
            .map(|f| (f.line, f.column, f.names[0].1.clone(), f.command))
            .collect();
        let want = [
            (6, 7, "default", "echo start"),
            (12, 7, "test", "cargo test"),
            (15, 7, "test", "make check \\\n  V=1"),
            (8, 5, "test", "rm -rf build/"),
            (19, 12, "deploy", "kubectl delete ns review"),
            // A `!reference` points at text read where it is written.
            (23, 7, "lint", "shellcheck *.sh"),
        ];
        let want: Vec<(u64, u64, String, String)> = want
            .iter()
            .map(|(l, c, j, s)| (*l, *c, j.to_string(), s.to_string()))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_mapping_where_a_script_belongs_is_a_problem() {
        let e = extract(Kind::GitlabCi, "job:\n  script:\n    - run: x\n");
        assert!(e.found.is_empty());
        assert_eq!((e.problems[0].line, e.problems[0].column), (3, 7));
    }
}
