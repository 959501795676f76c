//! Labelling tool calls that are not (only) shell commands.
//!
//! A shell tool is classified from its command text; any other tool from its
//! MCP annotation hints. The MCP defaults (readOnlyHint false,
//! destructiveHint true) mean "assume the worst", not positive knowledge, so
//! an absent hint gives unknown, never destructive.

use serde_json::Value;

use crate::classify::{Assessment, Classifier, Context};
use crate::label::{BlastRadius, Class, Label, Origin};

/// Tool names treated as the shell tool unless configured otherwise.
pub const DEFAULT_SHELL_TOOLS: &[&str] = &[
    "shell",
    "Bash",
    "bash",
    "run_shell_command",
    "run_background_job",
    "exec_command",
    "shell_command",
];

/// MCP annotation hints of a tool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Hints {
    /// `readOnlyHint`, if the tool declared it.
    #[serde(rename = "readOnlyHint", default)]
    pub read_only: Option<bool>,
    /// `destructiveHint`, if the tool declared it.
    #[serde(rename = "destructiveHint", default)]
    pub destructive: Option<bool>,
}

/// Labels a tool from its hints: destructive wins over read-only; neither
/// gives unknown. The origin is always `annotation`.
///
/// ```
/// use toolgate_core::{label_for_hints, Class};
/// assert_eq!(label_for_hints(true, false).class, Class::Safe);
/// assert_eq!(label_for_hints(true, true).class, Class::Destructive);
/// assert_eq!(label_for_hints(false, false).class, Class::Unknown);
/// ```
pub fn label_for_hints(read_only: bool, destructive: bool) -> Label {
    if destructive {
        Label {
            class: Class::Destructive,
            origin: Origin::Annotation,
            blast_radius: BlastRadius::Unknown,
            category: "annotation".into(),
            reason: "the tool declares destructiveHint".into(),
        }
    } else if read_only {
        Label {
            class: Class::Safe,
            origin: Origin::Annotation,
            blast_radius: BlastRadius::Safe,
            category: "annotation".into(),
            reason: "the tool declares readOnlyHint".into(),
        }
    } else {
        Label {
            origin: Origin::Annotation,
            ..Label::unknown("the tool declares no read-only or destructive hint")
        }
    }
}

/// Labels tool calls: the shell tool (and its aliases) from its command, the
/// rest from hints.
#[derive(Debug)]
pub struct ToolLabeler<'c> {
    classifier: &'c Classifier,
    shell_tools: Vec<String>,
    /// Note what shell commands would read, for a caller that will look.
    reach: bool,
}

impl<'c> ToolLabeler<'c> {
    /// A labeler using the default shell tool names.
    pub fn new(classifier: &'c Classifier) -> ToolLabeler<'c> {
        ToolLabeler {
            classifier,
            shell_tools: DEFAULT_SHELL_TOOLS.iter().map(|s| s.to_string()).collect(),
            reach: false,
        }
    }

    /// Notes what each shell command would read ([`Assessment::reach`]),
    /// for a caller that looks before it allows.
    pub fn reaching(mut self, reach: bool) -> Self {
        self.reach = reach;
        self
    }

    /// Replaces the list of tool names treated as the shell tool.
    pub fn shell_tools(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.shell_tools = names.into_iter().map(Into::into).collect();
        self
    }

    /// The classifier that labels shell commands.
    pub fn classifier(&self) -> &'c Classifier {
        self.classifier
    }

    /// Is this tool the shell tool?
    pub fn is_shell_tool(&self, name: &str) -> bool {
        self.shell_tools.iter().any(|s| s == name)
    }

    /// Labels one call.
    pub fn label(&self, tool: &str, args: &Value, hints: Hints) -> Label {
        self.label_in(tool, args, hints, &Context::default())
    }

    /// Labels one call made in a known place.
    pub fn label_in(&self, tool: &str, args: &Value, hints: Hints, ctx: &Context<'_>) -> Label {
        self.assess_in(tool, args, hints, ctx).label
    }

    /// Labels one call made in a known place, and says whether a compound
    /// shell command's every part is safe ([`Assessment`]).
    pub fn assess_in(
        &self,
        tool: &str,
        args: &Value,
        hints: Hints,
        ctx: &Context<'_>,
    ) -> Assessment {
        let label = if !self.is_shell_tool(tool) {
            label_for_hints(
                hints.read_only.unwrap_or(false),
                hints.destructive.unwrap_or(false),
            )
        } else if let Some(cmd) = shell_command_arg(args) {
            if self.reach {
                return self.classifier.assess_reaching(cmd, ctx);
            }
            return self.classifier.assess_in(cmd, ctx);
        } else {
            Label::unknown("the shell call has no command")
        };
        Assessment {
            label,
            every_part_safe: false,
            look_clears: false,
            reach: None,
        }
    }
}

/// The command of a shell call: `cmd`, or `command` when `cmd` is missing,
/// not a string, or blank.
pub fn shell_command_arg(args: &Value) -> Option<&str> {
    let pick = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    pick("cmd").or_else(|| pick("command"))
}

/// Labels a tool call with the embedded taxonomy and the default shell tool
/// names.
///
/// ```
/// use serde_json::json;
/// use toolgate_core::{label_tool_call, Class, Hints, Origin};
/// let l = label_tool_call("shell", &json!({"cmd": " ", "command": "rm -rf /tmp/x"}), Hints::default());
/// assert_eq!(l.class, Class::Destructive);
/// let l = label_tool_call("read_file", &json!({"cmd": "rm -rf /"}),
///     Hints { read_only: Some(true), destructive: None });
/// assert_eq!((l.class, l.origin), (Class::Safe, Origin::Annotation));
/// ```
pub fn label_tool_call(tool: &str, args: &Value, hints: Hints) -> Label {
    match Classifier::embedded() {
        Ok(c) => ToolLabeler::new(c).label(tool, args, hints),
        Err(e) => Label::unknown(e.to_string()),
    }
}
