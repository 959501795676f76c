//! GitHub Actions: the `run:` steps of a workflow's jobs, and of a
//! composite action's `runs.steps` (`action.yml`).
//!
//! The runner fills in every `${{ … }}` before the shell reads the script,
//! so an expression is never literal text, inside quotes neither: it is a
//! placeholder the classifier cannot know (script injection is exactly
//! this), and the step's command is never safe.

use super::yaml::{self, Node};
use super::{shell, Extract, Problem};

/// Adds the commands of every `run:` step of a workflow or action.
pub(super) fn read(text: &str, out: &mut Extract) {
    let docs = match yaml::parse(text) {
        Ok(docs) => docs,
        Err(p) => return out.problems.push(p),
    };
    for doc in &docs {
        let workflow_shell = default_shell(doc);
        for (id, job) in doc.get("jobs").map(Node::entries).unwrap_or_default() {
            let job_id = id.as_str().unwrap_or_default().to_string();
            let job_shell = default_shell(job).or(workflow_shell.clone());
            let steps = job.get("steps");
            for (i, step) in steps
                .map(Node::items)
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let names = vec![("job", job_id.clone()), ("step", step_name(step, i))];
                read_step(text, step, job_shell.as_deref(), names, out);
            }
        }
        // A composite action.
        let runs = doc.get("runs");
        let steps = runs.and_then(|r| r.get("steps"));
        for (i, step) in steps
            .map(Node::items)
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let names = vec![("step", step_name(step, i))];
            read_step(text, step, None, names, out);
        }
    }
}

/// `defaults.run.shell` of a workflow or job.
fn default_shell(node: &Node) -> Option<String> {
    let shell = node.get("defaults")?.get("run")?.get("shell")?;
    shell.as_str().map(String::from)
}

/// What a report calls a step: its `name`, else its `id`, else its number
/// among the job's steps (from 1).
fn step_name(step: &Node, index: usize) -> String {
    ["name", "id"]
        .iter()
        .find_map(|k| step.get(k).and_then(Node::as_str).map(String::from))
        .unwrap_or_else(|| format!("#{}", index + 1))
}

fn read_step(
    text: &str,
    step: &Node,
    default: Option<&str>,
    names: Vec<(&'static str, String)>,
    out: &mut Extract,
) {
    let Some(run) = step.get("run") else {
        return;
    };
    if run.as_str().is_none() {
        out.problems.push(Problem {
            line: run.line,
            column: run.column,
            message: "`run` is not a string".into(),
        });
        return;
    }
    let shell = step.get("shell").and_then(Node::as_str).or(default);
    let snippet = yaml::scalar_snippet(text, run, true);
    match shell.map(program) {
        None | Some("bash" | "sh") => shell::read(&snippet, &names, out),
        Some(other) => shell::not_shell(
            &snippet,
            &names,
            format!(
                "the step runs with `shell: {other}`, not a POSIX shell: its script is not read"
            ),
            out,
        ),
    }
}

/// The program of a `shell:` value: `bash`, `pwsh`, or the first word of a
/// custom command (`bash --noprofile --norc -eo pipefail {0}`).
fn program(shell: &str) -> &str {
    let first = shell.split_whitespace().next().unwrap_or_default();
    first.rsplit('/').next().unwrap_or(first)
}

#[cfg(test)]
mod tests {
    use super::super::{extract, Kind};

    /// (line, column, names, command, substituted, not shell) of each
    /// command.
    fn found(src: &str) -> Vec<(u64, u64, String, String, bool, bool)> {
        let e = extract(Kind::GithubActions, src);
        assert!(e.problems.is_empty(), "{:?}", e.problems);
        e.found
            .into_iter()
            .map(|f| {
                let names: Vec<String> = f.names.iter().map(|(k, v)| format!("{k}={v}")).collect();
                (
                    f.line,
                    f.column,
                    names.join(" "),
                    f.command,
                    f.substituted,
                    f.not_shell.is_some(),
                )
            })
            .collect()
    }

    const WORKFLOW: &str = "\
name: ci
on: [push, pull_request]
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Build
        run: cargo build --locked
      - name: Clean
        run: |
          # never rm -rf / here
          rm -rf target \\
            dist
          cat <<EOF
          rm -rf / is only text
          EOF
      - id: greet
        run: echo 'Hello ${{ github.event.issue.title }}'
      - run: \"git status\"
      - shell: pwsh
        run: Remove-Item -Recurse build
";

    #[test]
    fn run_steps_at_their_lines_and_columns() {
        let got = found(WORKFLOW);
        let want: Vec<(u64, u64, String, String, bool, bool)> = vec![
            (
                9,
                14,
                "job=build step=Build",
                "cargo build --locked",
                false,
                false,
            ),
            (
                13,
                11,
                "job=build step=Clean",
                "rm -rf target \\\n  dist",
                false,
                false,
            ),
            (
                15,
                11,
                "job=build step=Clean",
                "cat <<EOF\nrm -rf / is only text\nEOF\n",
                false,
                false,
            ),
            (
                19,
                14,
                "job=build step=greet",
                "echo 'Hello ${{ github.event.issue.title }}'",
                true,
                false,
            ),
            (20, 15, "job=build step=#5", "git status", false, false),
            (
                22,
                14,
                "job=build step=#6",
                "Remove-Item -Recurse build",
                false,
                true,
            ),
        ]
        .into_iter()
        .map(|(l, c, n, s, sub, ns)| (l, c, n.to_string(), s.to_string(), sub, ns))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn composite_actions_and_default_shells() {
        let src = "runs:\n  using: composite\n  steps:\n    - run: make test\n      shell: bash\n";
        let got = found(src);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].0, got[0].1, got[0].2.as_str()), (4, 12, "step=#1"));
        let src = "defaults:\n  run:\n    shell: python\njobs:\n  a:\n    steps:\n      - run: print(1)\n";
        let got = found(src);
        assert!(got[0].5, "{got:?}");
    }

    #[test]
    fn not_a_workflow_is_a_problem_not_a_panic() {
        let e = extract(Kind::GithubActions, "jobs: [\n");
        assert!(e.found.is_empty());
        assert_eq!(e.problems.len(), 1);
        let e = extract(
            Kind::GithubActions,
            "jobs:\n  a:\n    steps:\n      - run: [x]\n",
        );
        assert_eq!(e.problems[0].message, "`run` is not a string");
        assert_eq!((e.problems[0].line, e.problems[0].column), (4, 14));
    }
}
