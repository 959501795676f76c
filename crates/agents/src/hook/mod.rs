//! The hook: one payload in on stdin, one answer out, for every client
//! of [`crate::client::CLIENTS`].
//!
//! Most clients let a call run when a hook crashes, stays silent or prints
//! something unexpected, so [`respond`] never fails: a payload that cannot
//! be read, is too large, is not JSON or has no command gets a well-formed
//! fail-closed answer with a reason. That answer is the one *this* client
//! treats as a block ([`Client::fail_closed`]): ask where the client is
//! known to hold an ask for a person, else deny; Cline has no deny and
//! cancels, Windsurf reads only exit 2.

mod bare_repo;
pub mod client_mode;
pub mod config;
pub mod look;
pub mod policy;

use std::io::Read;

use serde_json::Value;

use crate::client::{detect, session_id, Call, Client, Request};
use crate::decision_log::Trace;
use client_mode::ClientMode;
use toolgate_core::gate::{Decision, Gate, Verdict};
use toolgate_core::guard_paths::is_file_edit_tool;
use toolgate_core::label::Class;
use toolgate_core::tools::{shell_command_arg, DEFAULT_SHELL_TOOLS};

pub use crate::client::{Answer, OPENCODE_PLUGIN};
pub use bare_repo::bare_repository_above;
pub use config::{add_rule, ConfigError, HookConfig};
pub use policy::{IgnoredSetting, PolicyError, ProjectGate, ProjectPolicy};

/// The largest payload read. Real payloads are a few kilobytes; a larger
/// one is answered fail-closed without being parsed.
pub const MAX_PAYLOAD: usize = 1 << 20;

/// How the hook answers.
#[derive(Clone, Copy, Debug, Default)]
pub struct HookOptions {
    /// The client, when not detected from the payload.
    pub client: Option<&'static dyn Client>,
    /// Turn ask into deny (headless runs where nobody can answer).
    pub headless: bool,
    /// The docker-agent protocol only: attach the label, decide nothing.
    pub label_only: bool,
}

/// Turns an ask into a deny in a headless run, saying so.
fn settle(decision: Decision, reason: &str, opts: HookOptions) -> (Decision, String) {
    if opts.headless && decision == Decision::Ask {
        (
            Decision::Deny,
            format!(
                "{reason} (needs confirmation and nobody can answer in a headless run: denied)"
            ),
        )
    } else {
        (decision, reason.to_string())
    }
}

fn render(
    client: &dyn Client,
    decision: Decision,
    reason: &str,
    request: Option<&Request>,
    label: Option<&toolgate_core::Label>,
    opts: HookOptions,
) -> Answer {
    // Headless: nobody can answer an ask, so it is a deny, said so.
    let (decision, reason) = settle(decision, reason, opts);
    let call = Call {
        request,
        label,
        label_only: opts.label_only,
    };
    client.render(decision, &reason, &call)
}

/// A fail-closed answer for a payload that could not be used.
pub fn fail_closed(client: Option<&'static dyn Client>, reason: &str, opts: HookOptions) -> Answer {
    fail_closed_traced(client, reason, opts).0
}

/// [`fail_closed`], with what it decided for the decision log.
pub fn fail_closed_traced(
    client: Option<&'static dyn Client>,
    reason: &str,
    opts: HookOptions,
) -> (Answer, Trace) {
    let reason = format!("toolgate could not check this call: {reason}");
    let (answer, decision) = match client {
        Some(p) => {
            let decision = p.fail_closed(opts.headless);
            let answer = render(p, decision, &reason, None, None, opts);
            (answer, settle(decision, &reason, opts).0)
        }
        None => (Answer::blocked(&reason), Decision::Deny),
    };
    let trace = Trace {
        client,
        decision: Some(decision),
        source: "fail_closed".into(),
        reason,
        ..Trace::default()
    };
    (answer, trace)
}

/// Reads a payload of at most [`MAX_PAYLOAD`] bytes; a larger one is drained
/// (so the client's pipe does not break) and refused.
pub fn read_payload(mut input: impl Read) -> Result<Vec<u8>, String> {
    let mut buf = Vec::with_capacity(8192);
    let limit = u64::try_from(MAX_PAYLOAD).unwrap_or(u64::MAX) + 1;
    (&mut input)
        .take(limit)
        .read_to_end(&mut buf)
        .map_err(|e| format!("reading the payload failed: {e}"))?;
    if buf.len() > MAX_PAYLOAD {
        let _ = std::io::copy(&mut input.take(256 << 20), &mut std::io::sink());
        return Err(format!(
            "the payload is larger than {} MiB",
            MAX_PAYLOAD >> 20
        ));
    }
    Ok(buf)
}

/// Answers one payload. Never fails: every problem becomes a fail-closed
/// answer with a reason.
pub fn respond(gate: &Gate<'_>, payload: &[u8], opts: HookOptions) -> Answer {
    respond_traced(gate, None, payload, opts).0
}

/// [`respond`] under a project's policy as well (each call gets the more
/// restrictive of the two verdicts, [`ProjectGate::tighten`]), with what
/// the answer decided for the decision log.
pub fn respond_traced(
    gate: &Gate<'_>,
    project: Option<&ProjectGate<'_>>,
    payload: &[u8],
    opts: HookOptions,
) -> (Answer, Trace) {
    let value: Value = match serde_json::from_slice(payload) {
        Ok(v) => v,
        Err(e) => {
            let why = if payload.iter().all(u8::is_ascii_whitespace) {
                "the payload is empty".to_string()
            } else {
                format!("the payload is not valid JSON ({e})")
            };
            return fail_closed_traced(opts.client, &why, opts);
        }
    };
    let client = opts.client.unwrap_or_else(|| detect(&value));
    let session = session_id(&value);
    // A fail-closed answer that still says which call it was about.
    let refuse = |why: &str, request: Option<&Request>| {
        let (answer, mut trace) = fail_closed_traced(Some(client), why, opts);
        trace.session.clone_from(&session);
        if let Some(r) = request {
            trace.cwd.clone_from(&r.cwd);
            trace.tool = Some(r.tool_name.clone());
        }
        (answer, trace)
    };
    if opts.label_only && client.name() != "docker-agent" {
        return refuse(
            "--label-only works with the docker-agent protocol only",
            None,
        );
    }
    let request = match client.parse(&value) {
        Ok(r) => r,
        Err(why) => return refuse(&why, None),
    };
    let ctx = toolgate_core::Context {
        cwd: request.cwd.as_deref(),
    };
    let mut trace = Trace {
        client: Some(client),
        session: session.clone(),
        cwd: request.cwd.clone(),
        tool: Some(request.tool_name.clone()),
        ..Trace::default()
    };
    let verdict = match &request.commands {
        Some(commands) => {
            trace.command = Some(commands.join("\n"));
            match decide_commands(gate, project, &request.tool_name, commands, &ctx) {
                Some(verdict) => verdict,
                // The readers never hand over an empty list; should one, it
                // is not a call toolgate checked.
                None => return refuse("the shell call has no command", Some(&request)),
            }
        }
        None => {
            let shell = gate.is_shell_tool(&request.tool_name);
            match shell_command_arg(&request.tool_input) {
                Some(command) if shell => trace.command = Some(command.to_string()),
                Some(_) | None if !shell => trace.args = Some(request.tool_input.clone()),
                _ => return refuse("the shell call has no command", Some(&request)),
            }
            // The client's own file-reading tools, routed to the hook where
            // the client allows: a read of a secret is judged as `cat` of
            // it would be; any other read is the client's to decide.
            let read = (!shell && client.hooks_file_edits())
                .then(|| read_targets(&request.tool_name, &request.tool_input))
                .flatten();
            let secret = read
                .iter()
                .flatten()
                .find_map(|path| secret_read(gate, path, &ctx));
            let mut assessed = gate.assess_in(&request.tool_name, &request.tool_input, None, &ctx);
            // A secret read is decided as the destructive call it is, by
            // the rules, the profile or the mode's row alike.
            let reads_secret = secret.is_some();
            if let Some(label) = secret {
                assessed.label = label;
                assessed.every_part_safe = false;
            }
            let shell_assessed = shell.then(|| assessed.clone());
            let verdict = gate.decide_assessed(
                &request.tool_name,
                &request.tool_input,
                None,
                None,
                assessed,
            );
            let verdict = look::before_allowing(
                gate,
                verdict,
                shell_assessed.as_ref(),
                &request.tool_name,
                &request.tool_input,
                request.cwd.as_deref(),
            );
            // A file edit that does not touch the guard's own files, and
            // that no rule decided, is not toolgate's to judge.
            let edit_elsewhere = is_file_edit_tool(&request.tool_name)
                && verdict.source != "self_protection"
                && !verdict.source.starts_with("rule_");
            // So is a file tool's read of no secret that no rule decided,
            // unless the mode or profile named is one toolgate does not
            // know (it is then strict, fail-closed).
            let read_elsewhere = read.is_some()
                && !reads_secret
                && gate.unrecognised().is_none()
                && verdict.source != "self_protection"
                && !verdict.source.starts_with("rule_");
            if read_elsewhere {
                if let Some(answer) = client.no_opinion() {
                    trace.label = Some(verdict.label.class);
                    trace.source = "no_opinion".into();
                    trace.reason = "a read of no secret file: left to the client".into();
                    return (answer, trace);
                }
            }
            if !shell && edit_elsewhere && client.hooks_file_edits() {
                if let Some(answer) = client.no_opinion() {
                    trace.label = Some(verdict.label.class);
                    trace.category = category_of(&verdict.label);
                    trace.source = "no_opinion".into();
                    trace.reason =
                        "a file edit away from the guard's own files: left to the client".into();
                    return (answer, trace);
                }
            }
            // A tool toolgate knows nothing about, sent only because the
            // client cannot be told to send the shell tool alone. A default
            // shell tool name is never one, even when the configuration's
            // `shell_tools` leaves it out. A project's rules are not looked
            // at: leaving the call to the client is not an allow.
            let unknown_to_toolgate = !DEFAULT_SHELL_TOOLS.contains(&request.tool_name.as_str())
                && verdict.label.class == Class::Unknown
                && !verdict.source.starts_with("rule_");
            let verdict = match project {
                Some(p) => p.tighten(
                    verdict,
                    &request.tool_name,
                    &request.tool_input,
                    &ctx,
                    shell_assessed.as_ref(),
                ),
                None => verdict,
            };
            if !shell
                && unknown_to_toolgate
                && client.sees_every_tool()
                && !verdict.source.starts_with("project_rule_")
            {
                if let Some(answer) = client.no_opinion() {
                    trace.label = Some(verdict.label.class);
                    trace.category = category_of(&verdict.label);
                    trace.source = "no_opinion".into();
                    trace.reason = "a tool toolgate knows nothing about: left to the client".into();
                    return (answer, trace);
                }
            }
            verdict
        }
    };
    let verdict = refuse_git_in_bare_repository(gate, verdict, trace.command.as_deref(), &ctx);
    // The call's shell commands, each whole (a here-document spans lines).
    let commands: Vec<&str> = match (&request.commands, &trace.command) {
        (Some(list), _) => list.iter().map(String::as_str).collect(),
        (None, Some(one)) => vec![one.as_str()],
        (None, None) => Vec::new(),
    };
    let verdict = client_mode::apply(
        ClientMode::from_payload(request.permission_mode.as_deref()),
        request.permission_mode.as_deref().unwrap_or_default(),
        verdict,
        &commands,
        request.cwd.as_deref(),
    );
    let verdict = how_to_stop_asking(gate, verdict, trace.command.as_deref(), &ctx);
    finish(client, &request, verdict, trace, opts)
}

/// Renders `verdict` for `client` and records it in `trace`.
fn finish(
    client: &dyn Client,
    request: &Request,
    verdict: Verdict,
    mut trace: Trace,
    opts: HookOptions,
) -> (Answer, Trace) {
    let answer = render(
        client,
        verdict.decision,
        &verdict.reason,
        Some(request),
        Some(&verdict.label),
        opts,
    );
    let (decision, reason) = settle(verdict.decision, &verdict.reason, opts);
    trace.label = Some(verdict.label.class);
    trace.category = category_of(&verdict.label);
    trace.decision = (!opts.label_only).then_some(decision);
    trace.source = verdict.source;
    trace.reason = reason;
    (answer, trace)
}

/// The file-reading and listing tools and the fields that name what they
/// read, by client: Claude Code's `Read`, `NotebookRead`, `Grep`, `Glob`
/// and `LS`; Gemini CLI's `read_file`, `read_many_files` (a list of paths
/// or globs in `include`), `glob`, `grep_search` (once
/// `search_file_content`) and `list_directory`, whose directory is
/// `dir_path`; Qwen Code's `read_file`, `glob`, `grep_search` and
/// `list_directory`, whose directory is `path`. Codex has no file-reading
/// tool: it reads through its shell.
const FILE_READ_TOOLS: &[(&str, &[&str])] = &[
    ("Read", &["file_path"]),
    ("NotebookRead", &["notebook_path"]),
    ("Grep", &["path"]),
    ("Glob", &["path"]),
    ("LS", &["path"]),
    ("read_file", &["file_path", "absolute_path", "path"]),
    ("read_many_files", &["include"]),
    ("glob", &["dir_path", "path"]),
    ("grep_search", &["dir_path", "path"]),
    ("search_file_content", &["dir_path", "path"]),
    ("list_directory", &["dir_path", "path"]),
];

/// The paths a file-reading tool call reads, from every field of it the
/// call has (a string, or a list of strings); none when it names none, as
/// a `Glob` in the working directory. `None` when `tool` is not one of the
/// [`FILE_READ_TOOLS`].
fn read_targets(tool: &str, input: &Value) -> Option<Vec<String>> {
    let (_, keys) = FILE_READ_TOOLS.iter().find(|(name, _)| *name == tool)?;
    let strings = |v: &Value| -> Vec<String> {
        match v {
            Value::String(path) => vec![path.clone()],
            Value::Array(list) => list
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
            _ => Vec::new(),
        }
    };
    Some(
        keys.iter()
            .filter_map(|k| input.get(*k))
            .flat_map(strings)
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect(),
    )
}

/// The label of a file tool's read of `path` when it reads a secret: the
/// label `cat PATH` gets when that is destructive, else one for the path's
/// secret class. `None` when it reads no secret.
fn secret_read(
    gate: &Gate<'_>,
    path: &str,
    ctx: &toolgate_core::Context<'_>,
) -> Option<toolgate_core::Label> {
    if path.is_empty() {
        return None;
    }
    let cat = format!("cat -- {}", shell_words::quote(path));
    let args = serde_json::json!({ "command": cat });
    let tool = DEFAULT_SHELL_TOOLS
        .iter()
        .copied()
        .find(|t| gate.is_shell_tool(t))?;
    let label = gate.assess_in(tool, &args, None, ctx).label;
    let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
    match (
        label.class,
        toolgate_core::spec::paths::secret_class(&parts),
    ) {
        (Class::Destructive, _) => Some(toolgate_core::Label {
            reason: format!("a file tool's read judged as `{cat}`: {}", label.reason).into(),
            ..label
        }),
        (_, Some(class)) => Some(toolgate_core::Label {
            class: Class::Destructive,
            origin: toolgate_core::label::Origin::Classifier,
            blast_radius: toolgate_core::BlastRadius::Medium,
            category: "credential-access".into(),
            reason: format!("reads `{path}`, a secret file ({class})").into(),
        }),
        _ => None,
    }
}

/// A label's category, when it has one.
fn category_of(label: &toolgate_core::Label) -> Option<String> {
    (!label.category.is_empty()).then(|| label.category.to_string())
}

/// An ask that the mode's row gave an unknown shell command says how to
/// stop being asked: the exact `toolgate allow` line for one plain
/// command, and for a list or pipeline why no rule covers it and what
/// would ([`compound_advice`]). Only for unknown commands: a destructive
/// one is asked about for a reason, and a rule that allowed it would be
/// the false allow toolgate exists to prevent.
fn how_to_stop_asking(
    gate: &Gate<'_>,
    mut verdict: Verdict,
    command: Option<&str>,
    ctx: &toolgate_core::Context<'_>,
) -> Verdict {
    let Some(command) = command.filter(|c| !c.contains('\n')) else {
        return verdict;
    };
    if verdict.decision == Decision::Ask
        && verdict.label.class == Class::Unknown
        && verdict.source.starts_with("mode_")
    {
        let how = match compound_advice(gate.classifier(), command, ctx) {
            Some(advice) => Some(advice),
            None => rule_for(command),
        };
        if let Some(how) = how {
            verdict
                .reason
                .push_str(&format!("; to stop being asked for it: {how}"));
        }
    }
    verdict
}

/// For a shell command of more than one command (a list, a pipeline, a
/// substitution), what to do instead of an allow rule, which covers one
/// plain command only: each part is judged on its own, so either every
/// part is safe and `compound = "every-part-safe"` lets the whole through,
/// or the parts not safe on their own are named, each with the rule that
/// allows it when run alone. `None` for a single command (its rule is
/// [`allow_line`](crate::rule_line::allow_line)).
///
/// ```
/// use toolgate_agents::hook::compound_advice;
/// let c = toolgate_core::Classifier::embedded()?;
/// let ctx = toolgate_core::Context::default();
/// assert_eq!(compound_advice(&c, "npm test", &ctx), None);
/// let advice = compound_advice(&c, "git status && npm test", &ctx).unwrap_or_default();
/// assert!(advice.ends_with("not safe on its own: `npm test` (`toolgate allow 'shell:cmd=npm test'` allows it run alone)"));
/// # Ok::<(), toolgate_core::EmbeddedTaxonomyError>(())
/// ```
pub fn compound_advice(
    classifier: &toolgate_core::Classifier,
    command: &str,
    ctx: &toolgate_core::Context<'_>,
) -> Option<String> {
    let analysis = classifier.analyze_in(command, ctx);
    if analysis.commands.len() < 2 {
        return None;
    }
    let lead = "no allow rule covers more than one command (each part is judged on its own)";
    if analysis.every_part_safe {
        return Some(format!(
            "{lead}; every part of this one is safe, and `compound = \"every-part-safe\"` in your \
             config (always on in the guard mode) lets such a list through"
        ));
    }
    // The parts written at the top level that are not safe on their own.
    let unsafe_parts: Vec<String> = analysis
        .commands
        .iter()
        .filter(|c| c.depth == 0)
        .filter_map(|c| c.span.and_then(|[start, end]| command.get(start..end)))
        .map(str::trim)
        .filter(|part| classifier.assess_in(part, ctx).label.class == Class::Unknown)
        .map(|part| match rule_for(part) {
            Some(rule) => format!("`{part}` (`{rule}` allows it run alone)"),
            None => format!("`{part}`"),
        })
        .collect();
    if unsafe_parts.is_empty() {
        return Some(format!(
            "{lead}; this one also has a substitution, redirection or nesting that no rule covers"
        ));
    }
    Some(format!(
        "{lead}; not safe on its own: {}",
        unsafe_parts.join(", ")
    ))
}

/// The `toolgate allow` line to offer for `command`: only when that rule
/// would allow it run alone, and never for a command that carries a
/// secret, which a rule would copy into a config file (and the decision
/// log, whose masking reads the command, not a rule quoted around it).
fn rule_for(command: &str) -> Option<String> {
    if crate::decision_log::mask_secrets(command) != command {
        return None;
    }
    let rule = crate::rule_line::shell_rule(command);
    toolgate_core::gate::Rule::parse(&rule)
        .is_ok_and(|r| r.grants("shell", &serde_json::json!({ "cmd": command }), true))
        .then(|| crate::rule_line::allow_rule_line(&rule))
}

/// An allowed call that runs git where git would take a committed bare
/// repository's config ([`bare_repository_above`]) is decided as an
/// unknown call instead: ask at least, deny where the mode denies unknown.
fn refuse_git_in_bare_repository(
    gate: &Gate<'_>,
    verdict: Verdict,
    command: Option<&str>,
    ctx: &toolgate_core::Context<'_>,
) -> Verdict {
    let (Some(command), Some(cwd)) = (command, ctx.cwd) else {
        return verdict;
    };
    if verdict.decision != Decision::Allow
        || verdict.source.starts_with("rule_")
        || verdict.source == "yolo"
        || !bare_repo::may_run_git(command)
    {
        return verdict;
    }
    let Some(bare) = bare_repository_above(std::path::Path::new(cwd)) else {
        return verdict;
    };
    let why = format!(
        "git here would take {} for a bare repository, whose committed config can name programs that a read runs",
        bare.display()
    );
    let decision = gate
        .mode()
        .decide(&toolgate_core::Label::unknown(why.clone()))
        .max(Decision::Ask);
    Verdict {
        decision,
        reason: why,
        label: toolgate_core::Label::unknown("git in a directory laid out as a bare repository"),
        source: "bare_repository".into(),
    }
}

/// Decides a shell call the protocol read itself: each command as a call
/// of the gate's shell tool, and the most restrictive verdict (the first
/// of equals) for the call; `None` for no command. With several commands
/// the reason names the one that decided.
fn decide_commands(
    gate: &Gate<'_>,
    project: Option<&ProjectGate<'_>>,
    client_tool: &str,
    commands: &[String],
    ctx: &toolgate_core::Context<'_>,
) -> Option<Verdict> {
    // The client's own name for its shell tool if the configuration lists
    // it, else the first default shell tool name the gate knows. With
    // neither (a `shell_tools` list of other names only), the call is
    // decided as the unknown tool it then is: not safe.
    let tool = std::iter::once(client_tool)
        .chain(DEFAULT_SHELL_TOOLS.iter().copied())
        .find(|t| gate.is_shell_tool(t))
        .unwrap_or(client_tool);
    let mut decisive: Option<(Verdict, &str)> = None;
    for command in commands {
        let args = serde_json::json!({ "command": command });
        let assessed = gate.assess_in(tool, &args, None, ctx);
        let shell_assessed = gate.is_shell_tool(tool).then(|| assessed.clone());
        let verdict = gate.decide_assessed(tool, &args, None, None, assessed);
        let verdict =
            look::before_allowing(gate, verdict, shell_assessed.as_ref(), tool, &args, ctx.cwd);
        let verdict = match project {
            Some(p) => p.tighten(verdict, tool, &args, ctx, shell_assessed.as_ref()),
            None => verdict,
        };
        if decisive
            .as_ref()
            .is_none_or(|(d, _)| verdict.decision > d.decision)
        {
            decisive = Some((verdict, command));
        }
    }
    let (mut verdict, command) = decisive?;
    if commands.len() > 1 {
        verdict.reason = format!("`{command}`: {}", verdict.reason);
    }
    Some(verdict)
}
