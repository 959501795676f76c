// toolgate for OpenCode: every shell call is checked by `toolgate hook`
// before it runs.
//
// OpenCode has no command hooks for tool calls. A plugin's
// `tool.execute.before(input, output)` is where a call can be stopped: a
// throw blocks it, and the tool part ends as an error with the message. So
// this plugin runs `toolgate hook --protocol opencode` with
// `{input, output, directory}` as JSON on stdin and lets the call run only
// when toolgate exits 0 with `{"decision": "allow", ...}` on stdout, or
// leaves it to OpenCode's own permissions (`bash` in the `permission`
// settings) when toolgate has no opinion (`{"decision": "no_opinion"}`).
// Everything else blocks: ask (a plugin cannot ask a person), deny, output
// that is not that JSON, a non-zero exit, a toolgate that cannot be
// started, and a toolgate that does not answer in time. A hook that never
// settles would hang the whole run, so the wait has a limit: the child is
// killed and the call blocked.
//
// Put this file in `.opencode/plugins/` (one project) or
// `~/.config/opencode/plugins/` (every project). Settings come from the
// environment OpenCode runs in:
//   TOOLGATE_BIN         the toolgate executable (default: `toolgate` on PATH)
//   TOOLGATE_TIMEOUT_MS  how long to wait for an answer (default 5000)
// and toolgate reads its own: TOOLGATE_MODE, TOOLGATE_PROFILE,
// TOOLGATE_CONFIG (or ~/.config/toolgate/config.toml).

import { spawn } from "node:child_process";

// The tools checked. Only `bash` runs commands; the others (read, edit,
// grep, …) go on to OpenCode's own permissions, as a `Bash` matcher would
// leave them in Claude Code.
const CHECKED_TOOLS = new Set(["bash"]);
const DEFAULT_TIMEOUT_MS = 5000;
// An answer is one short line; more than this is not an answer.
const MAX_OUTPUT = 64 * 1024;

function settings(env) {
  const timeout = Number.parseInt(env.TOOLGATE_TIMEOUT_MS ?? "", 10);
  return {
    bin: env.TOOLGATE_BIN || "toolgate",
    timeoutMs: Number.isInteger(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
  };
}

// Runs toolgate once; resolves with its stdout when it exits 0, rejects
// with the reason otherwise. Settles exactly once, by the time limit at
// the latest.
function runToolgate(payload, { bin, timeoutMs }) {
  return new Promise((resolve, reject) => {
    let settled = false;
    let timer;
    let child;
    let stdout = "";
    let stderr = "";
    const settle = (fn, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn(value);
    };
    const fail = (why) => {
      if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      settle(reject, new Error(why));
    };
    try {
      child = spawn(bin, ["hook", "--protocol", "opencode"], {
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (e) {
      settle(reject, new Error(`toolgate could not be started (${e.message})`));
      return;
    }
    timer = setTimeout(() => fail(`toolgate gave no answer within ${timeoutMs} ms`), timeoutMs);
    child.on("error", (e) => fail(`toolgate could not be started (${e.message})`));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.length > MAX_OUTPUT) fail("toolgate's answer is too long");
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      if (stderr.length < MAX_OUTPUT) stderr += chunk;
    });
    child.on("close", (code, signal) => {
      if (code === 0) {
        settle(resolve, stdout);
      } else {
        const status = signal ? `was killed by ${signal}` : `exited with status ${code}`;
        const detail = stderr.trim() ? `: ${stderr.trim()}` : "";
        settle(reject, new Error(`toolgate ${status}${detail}`));
      }
    });
    // A toolgate that exits before reading all of stdin must not crash
    // OpenCode with an unhandled EPIPE; its exit status says what happened.
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// Reads the answer: a reason to block, or null for a clean allow or no
// opinion (OpenCode's own permissions then decide).
function blockReason(stdout) {
  let answer;
  try {
    answer = JSON.parse(stdout);
  } catch {
    return "toolgate's answer is not JSON";
  }
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) {
    return "toolgate's answer is not a JSON object";
  }
  const reason = typeof answer.reason === "string" && answer.reason ? answer.reason : "no reason given";
  switch (answer.decision) {
    case "allow":
    case "no_opinion":
      return null;
    case "deny":
      return `denied: ${reason}`;
    case "ask":
      return `needs confirmation, which an OpenCode plugin cannot ask for: ${reason}`;
    default:
      return "toolgate's answer has no decision";
  }
}

export const ToolgatePlugin = async ({ directory }) => {
  const config = settings(process.env);
  return {
    "tool.execute.before": async (input, output) => {
      if (!CHECKED_TOOLS.has(input?.tool)) return;
      let why;
      try {
        why = blockReason(await runToolgate({ input, output, directory }, config));
      } catch (e) {
        why = `could not check this call: ${e.message}`;
      }
      if (why !== null) throw new Error(`toolgate blocked this call: ${why}`);
    },
  };
};
