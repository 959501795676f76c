#!/usr/bin/env python3
"""Drive real agent CLIs against a fake model and see what their hooks do.

For each client (Claude Code, Codex CLI, Gemini CLI, Copilot CLI, Qwen Code,
Cline, OpenCode) the harness installs a hook in a throwaway HOME / project,
points the client at fake_model.py on loopback, runs it headless with one
prompt, and reports as JSON whether the hook was called, with what payload,
whether the tool call really ran (evidence on disk) and what the client said.

    python3 tests/clients/run_clients.py --all --report
    python3 tests/clients/run_clients.py --client claude --answer none --perm allow
    python3 tests/clients/run_clients.py --client codex --hook-cmd 'toolgate hook' \\
        --perm default --action shell

The hook is stub_hook.py answering a preset (--answer NAME, see ANSWERS) or a
literal answer (--answer '{"exit":0,"stdout":"{}"}'); with --hook-cmd CMD the
stub only records and relays what CMD answers, so the same matrix can run the
real `toolgate hook`.

Clients are installed with npm into $TOOLGATE_CLIENTS_PREFIX (default
/tmp/clients) when missing; a client whose package cannot be had is skipped
with a message.  Runs live under $TOOLGATE_CLIENTS_WORK (default
/tmp/toolgate-clients), each in its own directory, wiped before it starts.
Standard library only.
"""

import argparse
import json
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fake_model import FakeModel  # noqa: E402

PREFIX = Path(os.environ.get("TOOLGATE_CLIENTS_PREFIX", "/tmp/clients"))
WORK = Path(os.environ.get("TOOLGATE_CLIENTS_WORK", "/tmp/toolgate-clients"))
STUB = HERE / "stub_hook.py"
PROMPT = "Do the one thing you were asked to do."
SECRET = "SECRET-TOKEN-4f8a1c"  # content of the file a read scenario reads
COMPOUND_MARKER = "compound-marker-7c1e"  # what a safe compound prints

CLIENT_ORDER = ["claude", "codex", "gemini", "copilot", "qwen", "cline", "opencode"]
PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
    "copilot": "@github/copilot",
    "qwen": "@qwen-code/qwen-code",
    "cline": "cline",
    "opencode": "opencode-ai",
}

# ------------------------------------------------------------------ answers

def hso(decision=None, event="PreToolUse"):
    out = {"hookEventName": event}
    if decision:
        out["permissionDecision"] = decision
        out["permissionDecisionReason"] = "stub hook says " + decision
    return json.dumps({"hookSpecificOutput": out})


GENERIC_ANSWERS = {
    "none": {"exit": 0, "stdout": ""},
    "empty-json": {"exit": 0, "stdout": "{}"},
    "continue": {"exit": 0, "stdout": json.dumps({"continue": True})},
    "exit2": {"exit": 2, "stdout": "", "stderr": "stub hook blocks (exit 2)"},
    "exit1": {"exit": 1, "stdout": "", "stderr": "stub hook failed (exit 1)"},
}


def answer_for(client, name):
    """The stub's answer for a preset name (or a literal JSON answer)."""
    if name.startswith("{"):
        return json.loads(name)
    if name in GENERIC_ANSWERS:
        return dict(GENERIC_ANSWERS[name])
    event = {"gemini": "BeforeTool"}.get(client, "PreToolUse")
    if name == "hso-empty":
        return {"exit": 0, "stdout": hso(None, event)}
    if client in ("claude", "codex", "qwen"):
        if name in ("allow", "ask", "deny", "defer"):
            return {"exit": 0, "stdout": hso(name, event)}
    if client == "gemini":
        if name in ("allow", "ask", "deny"):
            return {"exit": 0, "stdout": json.dumps({"decision": name,
                                                     "reason": "stub hook says " + name})}
    if client == "copilot":
        if name in ("allow", "ask", "deny"):
            return {"exit": 0, "stdout": json.dumps({
                "permissionDecision": name,
                "permissionDecisionReason": "stub hook says " + name})}
    if client == "cline":
        if name in ("cancel-false", "allow"):
            return {"exit": 0, "stdout": json.dumps({"cancel": False})}
        if name in ("cancel-true", "deny"):
            return {"exit": 0, "stdout": json.dumps({"cancel": True,
                                                     "errorMessage": "stub hook says deny"})}
    if client == "opencode":  # read by the bridge plugin below
        if name in ("allow", "ask", "deny"):
            return {"exit": 0, "stdout": hso(name, event)}
    raise SystemExit("no answer %r for client %s" % (name, client))


# ------------------------------------------------------------------ installs

def npm_available():
    return shutil.which("npm") is not None and shutil.which("node") is not None


def package_dir(pkg):
    return PREFIX / "node_modules" / pkg


def installed_version(client):
    pj = package_dir(PACKAGES[client]) / "package.json"
    try:
        return json.loads(pj.read_text()).get("version")
    except Exception:
        return None


def ensure_installed(clients, update=False, log=print):
    """Install missing client packages; returns {client: reason} for skips."""
    skips = {}
    if not npm_available():
        return {c: "npm/node not found on PATH" for c in clients}
    missing = [c for c in clients if update or not installed_version(c)]
    if missing:
        PREFIX.mkdir(parents=True, exist_ok=True)
        pkgs = [PACKAGES[c] + "@latest" for c in missing]
        log("installing %s into %s" % (" ".join(pkgs), PREFIX))
        try:
            p = subprocess.run(["npm", "install", "--prefix", str(PREFIX), "--no-audit",
                                "--no-fund", "--loglevel=error"] + pkgs,
                               capture_output=True, text=True, timeout=900)
            if p.returncode != 0:
                log("npm install failed: %s" % p.stderr[-2000:])
        except subprocess.TimeoutExpired:
            log("npm install timed out")
    for c in clients:
        if not installed_version(c):
            skips[c] = "package %s is not installed and npm could not install it" % PACKAGES[c]
        elif not client_argv0(c):
            skips[c] = "no runnable binary found for %s on this platform" % PACKAGES[c]
    return skips


def _plat():
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine().lower())
    return {"linux": "linux", "darwin": "darwin"}.get(sys.platform, sys.platform), arch


def _real_binary(path):
    """A native binary, not the small placeholder some wrappers ship."""
    try:
        return path.is_file() and path.stat().st_size > 1_000_000
    except OSError:
        return False


def client_argv0(client):
    """The argv prefix that starts a client, or None."""
    nm = PREFIX / "node_modules"
    osname, arch = _plat()
    node = shutil.which("node") or "node"
    if client == "claude":
        for cand in (nm / "@anthropic-ai" / ("claude-code-%s-%s" % (osname, arch)) / "claude",
                     nm / "@anthropic-ai/claude-code/bin/claude.exe"):
            if _real_binary(cand):
                return [str(cand)]
        return None
    if client == "opencode":
        avx2 = True
        try:
            avx2 = "avx2" in Path("/proc/cpuinfo").read_text()
        except OSError:
            pass
        names = ["opencode-%s-%s" % (osname, arch)]
        if not avx2:
            names.insert(0, "opencode-%s-%s-baseline" % (osname, arch))
        for n in names:
            cand = nm / n / "bin" / "opencode"
            if _real_binary(cand):
                return [str(cand)]
        cand = nm / "opencode-ai/bin/opencode.exe"
        return [str(cand)] if _real_binary(cand) else None
    if client == "cline":
        cand = nm / ".bin" / "cline"
        return [str(cand)] if cand.exists() else None
    scripts = {
        "codex": nm / "@openai/codex/bin/codex.js",
        "gemini": nm / "@google/gemini-cli/bundle/gemini.js",
        "copilot": nm / "@github/copilot/npm-loader.js",
        "qwen": nm / "@qwen-code/qwen-code/cli-entry.js",
    }
    s = scripts.get(client)
    return [node, str(s)] if s and s.exists() else None


# ------------------------------------------------------------------ one run

class Run:
    """Paths and facts of one client run."""

    def __init__(self, client, name, action, answer, perm, mode, hook_cmd, timeout):
        self.client = client
        self.name = name
        self.dir = WORK / client / name
        self.home = self.dir / "home"
        self.proj = self.dir / "proj"
        self.hook_log = self.dir / "hook.jsonl"
        self.model_log = self.dir / "model.jsonl"
        self.answer_file = self.dir / "answer.json"
        self.action_kind = action
        self.answer = answer
        self.perm = perm
        self.mode = mode
        self.hook_cmd = hook_cmd
        self.timeout = timeout
        self.marker = self.proj / ("ran-" + name)
        self.build = self.proj / "build"
        self.read_file = self.proj / "notes.txt"
        self.write_file = self.proj / ("written-" + name + ".txt")

    def prepare(self):
        if self.dir.exists():
            shutil.rmtree(self.dir)
        self.home.mkdir(parents=True)
        self.proj.mkdir(parents=True)
        (self.proj / "README.md").write_text("a throwaway project\n")
        if self.action_kind == "read":
            self.read_file.write_text(SECRET + "\n")
        if self.action_kind == "destructive":
            self.build.mkdir()
            (self.build / "out.o").write_text("object\n")
        if self.action_kind == "compound":
            self.read_file.write_text(COMPOUND_MARKER + "\n")
        if self.hook_cmd:
            hook = "python3 %s --log %s --exec %s" % (
                shlex.quote(str(STUB)), shlex.quote(str(self.hook_log)),
                shlex.quote(self.hook_cmd))
        else:
            self.answer_file.write_text(json.dumps(answer_for(self.client, self.answer)))
            hook = "python3 %s --log %s --answer %s" % (
                shlex.quote(str(STUB)), shlex.quote(str(self.hook_log)),
                shlex.quote(str(self.answer_file)))
        self.hook_command = hook

    @property
    def command(self):
        if self.action_kind == "destructive":
            return "rm -rf %s" % self.build
        if self.action_kind == "compound":
            # two safe reads joined: a list whose every part is safe
            return "cat %s && ls %s" % (self.read_file, self.proj)
        return "touch %s" % self.marker

    def action(self):
        if self.action_kind in ("shell", "destructive", "compound"):
            return {"kind": "shell", "command": self.command}
        if self.action_kind == "read":
            return {"kind": "read", "path": str(self.read_file)}
        if self.action_kind == "write":
            return {"kind": "write", "path": str(self.write_file),
                    "content": "written by the fake model"}
        raise ValueError(self.action_kind)

    def evidence(self, model_log_text):
        if self.action_kind == "shell":
            return self.marker.exists()
        if self.action_kind == "compound":
            # the file's content came back to the model in the tool result
            return model_log_text.count(COMPOUND_MARKER) > 0
        if self.action_kind == "destructive":
            return not self.build.exists()
        if self.action_kind == "write":
            return self.write_file.exists()
        if self.action_kind == "read":
            # the file's content came back to the model in a tool result
            return model_log_text.count(SECRET) > 0

    def base_env(self):
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "USER": os.environ.get("USER", "root"),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "CI": "1",
            "TMPDIR": str(self.dir / "tmp"),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local/share"),
            "XDG_STATE_HOME": str(self.home / ".local/state"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "npm_config_cache": str(PREFIX / "npm-cache"),
            "npm_config_update_notifier": "false",
        }
        (self.dir / "tmp").mkdir(exist_ok=True)
        for k in ("PYENV_ROOT", "PYENV_VERSION"):
            if k in os.environ:
                env[k] = os.environ[k]
        return env


# ------------------------------------------------------------------ clients
# Each adapter: setup(run, base_url) writes config; argv(run) the command;
# env(run, base_url) extra environment.

def write_json(path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2))


class Claude:
    name = "claude"
    modes = ["default", "plan", "acceptEdits", "bypassPermissions", "dontAsk", "auto"]

    def setup(self, run, base):
        perms = {}
        tool_rule = {"shell": "Bash(%s)" % run.command,
                     "destructive": "Bash(%s)" % run.command,
                     "compound": "Bash(%s)" % run.command,
                     "read": "Read(%s)" % run.read_file,
                     "write": "Write(%s)" % run.write_file}[run.action_kind]
        if run.perm == "allow":
            perms = {"allow": [tool_rule]}
        elif run.perm == "allow-prefix":
            perms = {"allow": ["Bash(touch:*)", "Bash(rm:*)"]}
        elif run.perm == "deny":
            perms = {"deny": [tool_rule]}
        elif run.perm == "ask":
            perms = {"ask": [tool_rule]}
        elif run.perm == "allow-all":
            perms = {"allow": ["Bash", "Read", "Write", "Edit"]}
        settings = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": run.hook_command, "timeout": 60}]}]}}
        if perms:
            settings["permissions"] = perms
        write_json(run.home / ".claude" / "settings.json", settings)

    def argv(self, run):
        a = client_argv0("claude") + ["-p", PROMPT, "--output-format", "json"]
        if run.mode:
            a += ["--permission-mode", run.mode]
        return a

    def env(self, run, base):
        return {"ANTHROPIC_BASE_URL": base, "ANTHROPIC_API_KEY": "sk-ant-fake",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1",
                "DISABLE_ERROR_REPORTING": "1",
                # bypassPermissions refuses to start as root outside a sandbox
                "IS_SANDBOX": "1"}

    def notes(self, run, stdout):
        try:
            j = json.loads(stdout.strip().splitlines()[-1])
        except Exception:
            return {}
        return {"permission_denials": [d.get("tool_name") for d in
                                       j.get("permission_denials") or []],
                "result": str(j.get("result"))[:300], "is_error": j.get("is_error")}


class Codex:
    name = "codex"
    modes = ["default", "workspace-write", "danger-full-access", "approve-for-me",
             "on-request", "on-failure", "bypass"]

    def setup(self, run, base):
        codex_home = run.home / ".codex"
        codex_home.mkdir(parents=True)
        lines = [
            'model = "gpt-5.5"',
            'model_provider = "fake"',
            'check_for_update_on_startup = false',
            '[analytics]', 'enabled = false',
            '[feedback]', 'enabled = false',
            '[model_providers.fake]',
            'name = "fake"',
            'base_url = "%s/v1"' % base,
            'wire_api = "responses"',
            'env_key = "FAKE_OPENAI_API_KEY"',
            '[[hooks.PreToolUse]]',
            'matcher = "*"',
            '[[hooks.PreToolUse.hooks]]',
            'type = "command"',
            'command = %s' % json.dumps(run.hook_command),
            'timeout = 60',
        ]
        (codex_home / "config.toml").write_text("\n".join(lines) + "\n")
        words = shlex.split(run.command)
        if run.perm == "allow-word":  # the user allowed the command word alone
            words = words[:1]
        if run.perm in ("allow", "allow-word", "deny", "prompt"):
            decision = {"allow": "allow", "allow-word": "allow", "deny": "forbidden",
                        "prompt": "prompt"}[run.perm]
            rules = codex_home / "rules"
            rules.mkdir()
            (rules / "default.rules").write_text(
                "prefix_rule(pattern=%s, decision=%s)\n"
                % (json.dumps(words), json.dumps(decision)))

    def argv(self, run):
        a = client_argv0("codex") + ["exec", "--json", "--skip-git-repo-check",
                                     "--dangerously-bypass-hook-trust"]
        m = run.mode
        if m in ("workspace-write", "danger-full-access"):
            a += ["--sandbox", m]
        elif m == "approve-for-me":
            a += ["--approve-for-me"]
        elif m in ("on-request", "untrusted", "on-failure"):
            a += ["-c", 'approval_policy="%s"' % m]
        elif m == "bypass":
            a += ["--dangerously-bypass-approvals-and-sandbox"]
        return a + [PROMPT]

    def env(self, run, base):
        return {"FAKE_OPENAI_API_KEY": "sk-fake", "CODEX_HOME": str(run.home / ".codex")}

    def notes(self, run, stdout):
        out = []
        for line in stdout.splitlines():
            try:
                e = json.loads(line)
            except Exception:
                continue
            item = e.get("item") or {}
            if e.get("type") == "item.completed" and item.get("type") not in (
                    "agent_message", "reasoning"):
                out.append({k: item.get(k) for k in ("type", "command", "status",
                                                       "exit_code", "changes")
                            if k in item} | {"output": str(item.get(
                                "aggregated_output", ""))[:300]})
        return {"items": out}


class Gemini:
    name = "gemini"
    modes = ["default", "auto_edit", "yolo", "plan"]

    def setup(self, run, base):
        settings = {
            "hooks": {"BeforeTool": [{"matcher": ".*", "hooks": [
                {"type": "command", "command": run.hook_command, "timeout": 60000}]}]},
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        }
        tool = {"shell": "run_shell_command(%s)" % run.command,
                "destructive": "run_shell_command(%s)" % run.command,
                "compound": "run_shell_command(%s)" % run.command,
                "read": "read_file", "write": "write_file"}[run.action_kind]
        if run.perm == "allow":
            settings["tools"] = {"allowed": [tool]}
        elif run.perm == "allow-word":  # the user allowed the command word alone
            settings["tools"] = {"allowed": ["run_shell_command(%s)" % run.command.split()[0]]}
        elif run.perm == "allow-all":
            settings["tools"] = {"allowed": ["run_shell_command", "read_file", "write_file",
                                             "replace"]}
        write_json(run.home / ".gemini" / "settings.json", settings)
        if run.perm in ("deny", "allow-policy"):
            pol = run.home / ".gemini" / "policies"
            pol.mkdir(parents=True)
            tname = tool.split("(")[0]
            rule = ['[[rule]]', 'toolName = "%s"' % tname]
            if "(" in tool:
                rule.append('commandPrefix = %s' % json.dumps(run.command.split()[0]))
            rule += ['decision = "%s"' % ("deny" if run.perm == "deny" else "allow"),
                     'priority = 900']
            (pol / "user.toml").write_text("\n".join(rule) + "\n")

    def argv(self, run):
        a = client_argv0("gemini") + ["-p", PROMPT, "--output-format", "json",
                                      "-m", "gemini-2.5-pro"]
        if run.mode:
            a += ["--approval-mode", run.mode]
        return a

    def env(self, run, base):
        return {"GEMINI_API_KEY": "fake-key", "GOOGLE_GEMINI_BASE_URL": base,
                "GEMINI_CLI_TRUST_WORKSPACE": "true"}

    def notes(self, run, stdout):
        try:
            j = json.loads(stdout)
        except Exception:
            return {}
        tools = (j.get("stats") or {}).get("tools") or {}
        return {"response": str(j.get("response"))[:300],
                "tool_decisions": tools.get("totalDecisions"),
                "tool_calls": {k: {kk: v.get(kk) for kk in ("count", "success", "fail")}
                               for k, v in (tools.get("byName") or {}).items()},
                "error": j.get("error")}


class Copilot:
    name = "copilot"
    modes = ["default", "allow-all-tools", "plan", "autopilot"]

    def setup(self, run, base):
        write_json(run.home / ".copilot" / "hooks" / "stub.json", {
            "version": 1, "hooks": {"preToolUse": [
                {"type": "command", "bash": run.hook_command, "timeoutSec": 60}]}})

    def argv(self, run):
        a = client_argv0("copilot") + ["-p", PROMPT, "--output-format", "json",
                                       "--no-auto-update"]
        word = run.command.split()[0]
        if run.perm == "allow":
            a += ["--allow-tool", "shell(%s)" % word]
        elif run.perm == "deny":
            a += ["--deny-tool", "shell(%s)" % word]
        elif run.perm == "allow-all":
            a += ["--allow-all-tools"]
        if run.mode == "allow-all-tools":
            a += ["--allow-all-tools"]
        elif run.mode in ("plan", "autopilot"):
            a += ["--mode", run.mode]
        return a

    def env(self, run, base):
        cache = str(PREFIX / "copilot-cache")
        return {"COPILOT_OFFLINE": "true", "COPILOT_PROVIDER_BASE_URL": base + "/v1",
                "COPILOT_PROVIDER_API_KEY": "fake", "COPILOT_MODEL": "gpt-4.1",
                "COPILOT_AUTO_UPDATE": "false", "COPILOT_CACHE_HOME": cache,
                "COPILOT_PKG_CACHE_HOME": cache + "/pkg"}

    def notes(self, run, stdout):
        out = []
        for line in stdout.splitlines():
            try:
                e = json.loads(line)
            except Exception:
                continue
            t = e.get("type", "")
            if t.startswith(("tool.", "permission", "hook")):
                d = e.get("data") or {}
                out.append({"type": t} | {k: (str(v)[:200] if not isinstance(v, (bool, int))
                                              else v)
                                          for k, v in d.items()
                                          if k in ("toolName", "success", "error", "result",
                                                   "kind", "decision", "message")})
        return {"events": out[:12]}


class Qwen:
    name = "qwen"
    modes = ["default", "plan", "auto-edit", "auto", "yolo"]

    def setup(self, run, base):
        rule = {"shell": "Bash(%s)" % run.command, "destructive": "Bash(%s)" % run.command,
                "compound": "Bash(%s)" % run.command,
                "read": "Read(%s)" % run.read_file,
                "write": "Write(%s)" % run.write_file}[run.action_kind]
        settings = {
            "hooks": {"PreToolUse": [{"matcher": ".*", "hooks": [
                {"type": "command", "command": run.hook_command, "timeout": 60000}]}]},
            "security": {"auth": {"selectedType": "openai"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "model": {"name": "fake-model"},
        }
        if run.perm == "settings-allow":
            settings["permissions"] = {"allow": [rule]}
        elif run.perm == "deny":
            settings["permissions"] = {"deny": [rule]}
        elif run.perm == "allow-all":
            settings["permissions"] = {"allow": ["Bash", "Read", "Write", "Edit"]}
        write_json(run.home / ".qwen" / "settings.json", settings)

    def argv(self, run):
        a = client_argv0("qwen") + ["-p", PROMPT, "--output-format", "json"]
        if run.perm in ("allow", "allowed-tools"):
            a += ["--allowed-tools", "run_shell_command(%s)" % run.command]
        elif run.perm == "allowed-tools-bare":
            a += ["--allowed-tools", "run_shell_command"]
        elif run.perm == "allowed-tools-bash":
            a += ["--allowed-tools", "Bash(%s *)" % run.command.split()[0]]
        if run.mode:
            a += ["--approval-mode", run.mode]
        return a

    def env(self, run, base):
        return {"OPENAI_API_KEY": "fake", "OPENAI_BASE_URL": base + "/v1",
                "OPENAI_MODEL": "fake-model", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}

    def notes(self, run, stdout):
        try:
            arr = json.loads(stdout)
            res = [e for e in arr if e.get("type") == "result"][-1]
        except Exception:
            return {}
        tools = ((res.get("stats") or {}).get("tools") or {})
        return {"result": str(res.get("result"))[:300],
                "permission_denials": res.get("permission_denials"),
                "tool_calls": {k: {kk: v.get(kk) for kk in ("count", "success", "fail")}
                               for k, v in (tools.get("byName") or {}).items()}}


class Cline:
    name = "cline"
    modes = ["default", "plan", "no-auto-approve"]

    def setup(self, run, base):
        write_json(run.home / ".cline" / "data" / "settings" / "providers.json", {
            "version": 1, "lastUsedProvider": "openai-compatible", "modes": {},
            "providers": {"openai-compatible": {
                "settings": {"provider": "openai-compatible", "apiKey": "fake",
                             "model": "fake-model", "baseUrl": base + "/v1"},
                "updatedAt": "2026-01-01T00:00:00.000Z", "tokenSource": "manual"}}})
        hooks = run.home / ".cline" / "hooks"
        hooks.mkdir(parents=True)
        h = hooks / "PreToolUse"
        h.write_text("#!/bin/sh\nexec %s\n" % run.hook_command)
        h.chmod(0o755)

    def argv(self, run):
        a = client_argv0("cline") + ["--json"]
        if run.mode == "plan":
            a += ["--plan"]
        if run.mode == "no-auto-approve" or run.perm == "no-auto-approve":
            a += ["--auto-approve", "false"]
        return a + [PROMPT]

    def env(self, run, base):
        return {}

    def notes(self, run, stdout):
        out = {}
        for line in stdout.splitlines():
            try:
                e = json.loads(line)
            except Exception:
                continue
            if e.get("type") == "run_result":
                out["finishReason"] = e.get("finishReason")
            ev = e.get("event") or {}
            if ev.get("type") == "content_end" and ev.get("contentType") == "tool":
                out.setdefault("tool_results", []).append(str(ev.get("output"))[:300])
        return out


OPENCODE_BRIDGE = r"""
// Written by tests/clients/run_clients.py: bridges OpenCode's tool.execute.before
// to a command hook.  The hook gets {"input":…, "output":…} on stdin; exit 2, or
// a JSON answer whose decision is deny/block (hookSpecificOutput.permissionDecision,
// permissionDecision, decision) or {"cancel": true}, makes the plugin throw, which
// blocks the call.  Any other answer returns without touching output: no opinion.
import { spawnSync } from "node:child_process";
const HOOK = __HOOK__;
export const ToolgateBridge = async () => ({
  "tool.execute.before": async (input, output) => {
    const r = spawnSync("/bin/sh", ["-c", HOOK], {
      input: JSON.stringify({ input, output }), encoding: "utf8", timeout: 60000 });
    let ans = null;
    try { ans = JSON.parse(r.stdout || "null"); } catch (e) { ans = null; }
    const hs = (ans && ans.hookSpecificOutput) || {};
    const decision = hs.permissionDecision || (ans && (ans.permissionDecision || ans.decision));
    const reason = hs.permissionDecisionReason || (ans && (ans.permissionDecisionReason ||
      ans.reason)) || (r.stderr || "").trim() || "blocked by hook";
    if (r.status === 2 || decision === "deny" || decision === "block" || (ans && ans.cancel === true)) {
      throw new Error(reason);
    }
  },
});
"""


class OpenCode:
    name = "opencode"
    modes = ["build", "plan"]

    def setup(self, run, base):
        cfg = {
            "$schema": "https://opencode.ai/config.json",
            "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                                  "options": {"baseURL": base + "/v1", "apiKey": "fake"},
                                  "models": {"fake-model": {"name": "fake-model",
                                                            "tool_call": True}}}},
            "model": "fake/fake-model", "autoupdate": False, "share": "disabled",
        }
        tool = {"shell": "bash", "destructive": "bash", "compound": "bash", "read": "read",
                "write": "edit"}[run.action_kind]
        if run.perm in ("allow", "deny", "ask"):
            if tool == "bash":
                cfg["permission"] = {"bash": {run.command: run.perm}}
            else:
                cfg["permission"] = {tool: run.perm}
        elif run.perm == "allow-all":
            cfg["permission"] = {"bash": "allow", "edit": "allow", "read": "allow"}
        write_json(run.proj / "opencode.json", cfg)
        plug = run.proj / ".opencode" / "plugin"
        plug.mkdir(parents=True)
        (plug / "toolgate_bridge.js").write_text(
            OPENCODE_BRIDGE.replace("__HOOK__", json.dumps(run.hook_command)))

    def argv(self, run):
        a = client_argv0("opencode") + ["run", "--format", "json"]
        if run.mode:
            a += ["--agent", run.mode]
        return a + [PROMPT]

    def env(self, run, base):
        return {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
                "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1"}

    def notes(self, run, stdout):
        out = []
        for line in stdout.splitlines():
            try:
                e = json.loads(line)
            except Exception:
                continue
            if e.get("type") == "tool_use":
                st = (e.get("part") or {}).get("state") or {}
                out.append({"tool": (e.get("part") or {}).get("tool"),
                            "status": st.get("status"), "error": st.get("error"),
                            "output": str(st.get("output"))[:200] if st.get("output") else None})
        return {"tool_parts": out}


ADAPTERS = {c.name: c() for c in (Claude, Codex, Gemini, Copilot, Qwen, Cline, OpenCode)}


# ------------------------------------------------------------------ running

def end_leftovers(home):
    """SIGTERM the processes whose environment has HOME=<home> (started by this run)."""
    needle = ("HOME=%s" % home).encode()
    ended = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        try:
            env = (d / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if needle in env:
            try:
                os.kill(int(d.name), signal.SIGTERM)
                ended.append(int(d.name))
            except OSError:
                pass
    return ended


def run_one(client, name, action="shell", answer="none", perm="default", mode=None,
            hook_cmd=None, timeout=120, save_payload_dir=None):
    ad = ADAPTERS[client]
    run = Run(client, name, action, answer, perm, mode, hook_cmd, timeout)
    run.prepare()
    fm = FakeModel(run.action(), str(run.model_log))
    fm.start()
    base = fm.base
    try:
        ad.setup(run, base)
        argv = ad.argv(run)
        env = run.base_env()
        env.update(ad.env(run, base))
        t0 = time.time()
        timed_out = False
        with open(run.dir / "stdout.txt", "wb") as so, open(run.dir / "stderr.txt", "wb") as se:
            p = subprocess.Popen(argv, cwd=str(run.proj), env=env, stdin=subprocess.DEVNULL,
                                 stdout=so, stderr=se, start_new_session=True)
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                    rc = p.wait(timeout=10)
                except (subprocess.TimeoutExpired, ProcessLookupError):
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    rc = p.wait()
        seconds = round(time.time() - t0, 1)
        # a client may leave a daemon behind (cline's hub detaches into its own
        # session): end every process still running with this run's HOME
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
        end_leftovers(run.home)
    finally:
        fm.stop()
    stdout = (run.dir / "stdout.txt").read_text(errors="replace")
    stderr = (run.dir / "stderr.txt").read_text(errors="replace")
    model_text = run.model_log.read_text(errors="replace") if run.model_log.exists() else ""
    calls = []
    if run.hook_log.exists():
        for line in run.hook_log.read_text().splitlines():
            try:
                calls.append(json.loads(line))
            except Exception:
                pass
    tool_calls = 0
    for line in model_text.splitlines():
        try:
            if (json.loads(line).get("answer") or [""])[0] == "tool":
                tool_calls += 1
        except Exception:
            pass
    res = {
        "client": client, "version": installed_version(client), "run": name,
        "action": action,
        "command": run.command if action in ("shell", "destructive", "compound") else None,
        "answer": "exec:" + hook_cmd if hook_cmd else answer,
        "answer_sent": calls[0]["answer"] if calls else None,
        "perm": perm, "mode": mode,
        "argv": [a if a != PROMPT else "<prompt>" for a in argv],
        "exit_code": rc, "timed_out": timed_out, "seconds": seconds,
        "tool_calls_served": tool_calls,
        "hook_called": len(calls),
        "payload": calls[0]["payload"] if calls else None,
        "payloads": [c["payload"] for c in calls[1:4]],
        "ran": run.evidence(model_text),
        "notes": ad.notes(run, stdout),
        "stdout_tail": stdout[-1500:],
        "stderr_tail": stderr[-800:],
        "dir": str(run.dir),
    }
    (run.dir / "result.json").write_text(json.dumps(res, indent=2))
    if save_payload_dir and calls:
        Path(save_payload_dir).mkdir(parents=True, exist_ok=True)
        for c in calls:
            p = c.get("payload") or {}
            tname = (p.get("tool_name") or p.get("toolName") or
                     (p.get("preToolUse") or {}).get("toolName") or
                     (p.get("input") or {}).get("tool") or "unknown")
            fn = "%s-%s-%s-%s.json" % (client, res["version"], action, tname)
            (Path(save_payload_dir) / fn).write_text(json.dumps(p, indent=2) + "\n")
    return res


# ------------------------------------------------------------------ matrix

def matrix(client):
    """The runs of the standard matrix for a client: (name, kwargs)."""
    R = []

    def add(name, **kw):
        R.append((name, kw))

    if client == "claude":
        for a in ["none", "empty-json", "continue", "hso-empty", "defer", "allow", "ask", "deny"]:
            add("default-" + a, answer=a, perm="default")
        for a in ["none", "empty-json", "continue", "hso-empty", "defer", "ask", "deny"]:
            add("allow-" + a, answer=a, perm="allow")
        for a in ["none", "allow"]:
            add("deny-" + a, answer=a, perm="deny")
        add("askrule-allow", answer="allow", perm="ask")
        for m in Claude.modes:
            add("mode-" + m, answer="none", mode=m)
        add("destructive-none", action="destructive", answer="none", perm="allow-prefix")
        add("read-none", action="read", answer="none", perm="default")
        add("write-none", action="write", answer="none", perm="allow-all")
    elif client == "codex":
        for a in ["none", "empty-json", "continue", "hso-empty", "allow", "ask", "deny"]:
            add("default-" + a, answer=a, perm="default")
        for a in ["none", "hso-empty", "ask", "deny"]:
            add("allow-" + a, answer=a, perm="allow")
        for a in ["none", "allow"]:
            add("deny-" + a, answer=a, perm="deny")
        add("prompt-none", answer="none", perm="prompt")
        add("prompt-allow", answer="allow", perm="prompt")
        for m in Codex.modes:
            add("mode-" + m, answer="none", mode=m)
        add("destructive-none", action="destructive", answer="none", mode="workspace-write")
        add("write-none", action="write", answer="none", mode="workspace-write")
        add("read-none", action="read", answer="none")
    elif client == "gemini":
        for a in ["none", "empty-json", "allow"]:
            add("default-" + a, answer=a, perm="default")
        for a in ["none", "empty-json", "continue", "hso-empty", "ask", "deny"]:
            add("allow-" + a, answer=a, perm="allow", timeout=60)
        add("policyallow-none", answer="none", perm="allow-policy")
        for a in ["none", "allow"]:
            add("deny-" + a, answer=a, perm="deny", mode="yolo")
        for m in Gemini.modes:
            add("mode-" + m, answer="none", mode=m)
        add("destructive-none", action="destructive", answer="none", perm="allow")
        add("read-none", action="read", answer="none")
        add("write-none", action="write", answer="none", perm="allow-all")
    elif client == "copilot":
        for a in ["none", "empty-json", "continue", "allow", "ask", "deny"]:
            add("default-" + a, answer=a, perm="default")
        for a in ["none", "empty-json", "continue", "ask", "deny"]:
            add("allow-" + a, answer=a, perm="allow")
        for a in ["none", "allow"]:
            add("deny-" + a, answer=a, perm="deny")
        for m in Copilot.modes:
            add("mode-" + m, answer="none", mode=m)
        add("destructive-none", action="destructive", answer="none", perm="allow")
        add("read-none", action="read", answer="none")
        add("write-none", action="write", answer="none", perm="allow-all")
    elif client == "qwen":
        # headless -p registers the shell tool only in yolo, or when --allowed-tools
        # names it; in default mode a writing command is then still denied by the
        # built-in "edit" rule, so the allow-list rows run in auto-edit mode.
        for a in ["none", "allow"]:
            add("default-" + a, answer=a, perm="default", mode="auto-edit")
        for a in ["none", "empty-json", "continue", "hso-empty", "ask", "deny"]:
            add("allow-" + a, answer=a, perm="allow", mode="auto-edit")
        add("allowdefault-none", answer="none", perm="allow")
        add("allowdefault-allow", answer="allow", perm="allow")
        add("settingsallow-none", answer="none", perm="settings-allow", mode="auto-edit")
        for a in ["none", "allow"]:
            add("deny-" + a, answer=a, perm="deny", mode="yolo")
        for m in Qwen.modes:  # read_file is registered in every mode
            add("mode-" + m, action="read", answer="none", mode=m)
        add("mode-unset", action="read", answer="none")
        add("destructive-none", action="destructive", answer="none", perm="allow",
            mode="auto-edit")
        add("read-none", action="read", answer="none")
        add("write-none", action="write", answer="none", mode="auto-edit")
    elif client == "cline":
        for a in ["none", "empty-json", "cancel-false", "cancel-true"]:
            add("default-" + a, answer=a, perm="default")
        for a in ["none", "cancel-false", "cancel-true"]:
            add("noauto-" + a, answer=a, perm="no-auto-approve")
        add("mode-plan", answer="none", mode="plan")
        add("destructive-none", action="destructive", answer="none")
        add("read-none", action="read", answer="none")
        add("write-none", action="write", answer="none")
    elif client == "opencode":
        for a in ["none", "deny"]:
            add("default-" + a, answer=a, perm="default")
        for a in ["none", "allow"]:
            add("ask-" + a, answer=a, perm="ask")
        for a in ["none", "deny"]:
            add("allow-" + a, answer=a, perm="allow")
        for a in ["none", "allow"]:
            add("deny-" + a, answer=a, perm="deny")
        add("mode-plan", answer="none", mode="plan")
        add("destructive-none", action="destructive", answer="none")
        add("read-none", action="read", answer="none")
        add("write-none", action="write", answer="none")
    return R


def short(res):
    return "%-9s %-22s hook=%d ran=%-5s rc=%s%s %5.1fs" % (
        res["client"], res["run"], res["hook_called"], res["ran"], res["exit_code"],
        " TIMEOUT" if res["timed_out"] else "", res["seconds"])


def report_md(results, skips, total_seconds):
    lines = ["# Client hook matrix (generated by run_clients.py)", "",
             "Total wall time: %.0f s" % total_seconds, ""]
    for c, why in skips.items():
        lines.append("- %s: skipped (%s)" % (c, why))
    by = {}
    for r in results:
        by.setdefault(r["client"], []).append(r)
    for c, rs in by.items():
        lines += ["", "## %s %s" % (c, rs[0]["version"]), "",
                  "| run | action | answer | user rule | mode | hook called | ran | exit | s |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in rs:
            lines.append("| %s | %s | %s | %s | %s | %d | %s | %s%s | %.1f |" % (
                r["run"], r["action"], r["answer"], r["perm"], r["mode"] or "",
                r["hook_called"], r["ran"], r["exit_code"],
                " (timeout)" if r["timed_out"] else "", r["seconds"]))
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description="drive agent CLIs against a fake model")
    ap.add_argument("--all", action="store_true", help="run the standard matrix for every client")
    ap.add_argument("--client", action="append", choices=CLIENT_ORDER,
                    help="client(s) to run (repeatable)")
    ap.add_argument("--only", help="with --all/--client matrix: run names containing this")
    ap.add_argument("--name", help="name of a single run (default: derived)")
    ap.add_argument("--action", default=None,
                    choices=["shell", "read", "write", "destructive", "compound"])
    ap.add_argument("--answer", default=None, help="answer preset or literal JSON")
    ap.add_argument("--perm", default=None, help="user permission setup")
    ap.add_argument("--mode", default=None, help="client mode")
    ap.add_argument("--hook-cmd", default=None,
                    help="real hook command to run (the stub records and relays it)")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--report", action="store_true",
                    help="write report.json and report.md under the work dir and print the table")
    ap.add_argument("--save-payloads", default=None, help="copy each hook payload here")
    ap.add_argument("--update", action="store_true", help="reinstall clients at npm latest")
    args = ap.parse_args(argv)

    clients = CLIENT_ORDER if args.all else (args.client or [])
    if not clients:
        ap.error("name a --client or use --all")
    single = any(v is not None for v in (args.action, args.answer, args.perm, args.mode,
                                         args.name)) and not args.all
    t_start = time.time()
    skips = ensure_installed(clients, update=args.update,
                             log=lambda m: print(m, file=sys.stderr))
    for c, why in skips.items():
        print("SKIP %s: %s" % (c, why), file=sys.stderr)
    results = []
    for c in clients:
        if c in skips:
            continue
        if single:
            runs = [(args.name or "%s-%s-%s-%s" % (args.action or "shell", args.perm or "default",
                                                   args.answer or "none", args.mode or "x"),
                     {"action": args.action or "shell", "answer": args.answer or "none",
                      "perm": args.perm or "default", "mode": args.mode})]
        else:
            runs = matrix(c)
            if args.only:
                runs = [r for r in runs if args.only in r[0]]
        for name, kw in runs:
            kw = dict(kw)
            kw.setdefault("timeout", args.timeout)
            if args.hook_cmd:
                kw["hook_cmd"] = args.hook_cmd
            res = run_one(c, name, save_payload_dir=args.save_payloads, **kw)
            results.append(res)
            print(short(res), file=sys.stderr, flush=True)
    total = time.time() - t_start
    if args.report:
        WORK.mkdir(parents=True, exist_ok=True)
        (WORK / "report.json").write_text(json.dumps(
            {"seconds": round(total, 1), "skipped": skips, "results": results}, indent=2))
        md = report_md(results, skips, total)
        (WORK / "report.md").write_text(md)
        print(md)
        print("report: %s/report.json, %s/report.md (%.0f s)" % (WORK, WORK, total),
              file=sys.stderr)
    else:
        print(json.dumps(results if len(results) != 1 else results[0], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
