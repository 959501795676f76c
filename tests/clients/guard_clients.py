#!/usr/bin/env python3
"""The default install (mode guard) with the real Claude Code, Codex and Gemini CLI.

Each scenario runs the released client against the fake model on loopback
(run_clients.py), with `toolgate hook --protocol CLIENT --mode guard` as its
hook, and checks what really happened on disk or in the model's transcript:

  user-allow-unknown   the user's own allow rule for a command toolgate calls
                       unknown (`touch FILE`) still lets it run: toolgate
                       answers no opinion and the client's rule decides;
  no-opinion-baseline  the same command with no rule runs (or not) exactly as
                       it does with a hook that answers nothing at all: the
                       "no opinion" column, established per client;
  destructive-word     `rm -rf build` is stopped although the user allowed its
                       command word (`Bash(rm:*)`, a `["rm"]` prefix rule,
                       `run_shell_command(rm)`);
  safe-compound        `cat FILE && ls DIR`, every part safe, runs with no rule.

    python3 tests/clients/guard_clients.py --toolgate target/debug/toolgate
    python3 tests/clients/guard_clients.py --toolgate ... --client claude --json

Clients are installed with npm into $TOOLGATE_CLIENTS_PREFIX when missing (see
run_clients.py); a client that cannot be had is reported as skipped and fails
the run unless --allow-skips is given. Exit status 0 when every scenario of
every client that ran came out as expected.
"""

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run_clients  # noqa: E402

CLIENTS = ["claude", "codex", "gemini"]
# The other clients with a no-opinion answer: their column is established
# by the same pairs (a hook that answers nothing, then toolgate), and a
# destructive command must still be stopped.
MORE = ["copilot", "qwen", "cline", "opencode"]

# Per client of MORE: the permission setup under which the client runs the
# unknown command on its own, and the client mode that offers the shell.
OWN_ALLOW = {"copilot": ("allow", None), "qwen": ("allow", "auto-edit"),
             "cline": ("default", None), "opencode": ("allow", None)}

# The user's allow rule naming only the command word, per client.
WORD_RULE = {"claude": "allow-prefix", "codex": "allow-word", "gemini": "allow-word"}

# Client flags a scenario needs. Codex's exec sandbox is read-only by
# default, which would stop `touch` whatever the hook says.
MODE = {"codex": "workspace-write"}

# Flags of the hook itself: headless `gemini -p` holds an ask until it times
# out, so there the hook is run `--headless` (an ask is a deny), as
# docs/clients.md says for Gemini CLI's headless runs.
HOOK_FLAGS = {"gemini": " --headless"}


def scenarios(client):
    """(name, run kwargs, expected `ran`; "baseline": set the baseline; None:
    equal to the baseline run)."""
    mode = MODE.get(client)
    # Headless Gemini offers the shell tool only where something allows it:
    # with no rule at all that is yolo mode, where Gemini asks nobody.
    bare = "yolo" if client == "gemini" else mode
    runs = [
        ("user-allow-unknown", dict(action="shell", perm="allow", mode=mode), True),
        ("no-opinion-baseline", dict(action="shell", perm="default", mode=bare, answer="none",
                                     stub=True), "baseline"),
        ("no-opinion", dict(action="shell", perm="default", mode=bare), None),
        ("destructive-word", dict(action="destructive", perm=WORD_RULE.get(client, "allow"), mode=mode),
         False),
        ("safe-compound", dict(action="compound", perm="default", mode=bare), True),
    ]
    if client == "gemini":
        runs.append(("destructive-yolo", dict(action="destructive", perm="default",
                                              mode="yolo"), False))
    if client in MORE:
        perm, mode = OWN_ALLOW[client]
        runs = [
            ("no-opinion-baseline", dict(action="shell", perm=perm, mode=mode, answer="none",
                                         stub=True), "baseline"),
            ("no-opinion", dict(action="shell", perm=perm, mode=mode), None),
        ]
        # The harness bridges OpenCode through a plugin of its own, which
        # blocks only a deny; toolgate's plugin (tests/protocols.rs) also
        # blocks an ask, so a destructive run says nothing about it here.
        if client != "opencode":
            runs.append(("destructive", dict(action="destructive", perm=perm, mode=mode),
                         False))
    return runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--toolgate", required=True, help="the toolgate binary to install as the hook")
    ap.add_argument("--client", action="append", choices=CLIENTS + MORE)
    ap.add_argument("--more", action="store_true",
                    help="also Copilot CLI, Qwen Code, Cline and OpenCode (no-opinion pairs)")
    ap.add_argument("--timeout", type=float, default=180)
    ap.add_argument("--json", action="store_true", help="print every result as JSON")
    ap.add_argument("--allow-skips", action="store_true",
                    help="a client that cannot be installed is not a failure")
    args = ap.parse_args(argv)
    binary = str(Path(args.toolgate).resolve())
    clients = args.client or (CLIENTS + MORE if args.more else CLIENTS)
    skips = run_clients.ensure_installed(clients, log=lambda m: print(m, file=sys.stderr))
    failures, rows, results = [], [], []
    t0 = time.time()
    for client in clients:
        if client in skips:
            rows.append("%-7s SKIPPED: %s" % (client, skips[client]))
            if not args.allow_skips:
                failures.append("%s skipped" % client)
            continue
        hook = "%s hook --protocol %s --mode guard%s" % (
            shlex.quote(binary), client, HOOK_FLAGS.get(client, ""))
        baseline = None
        for name, kw, want in scenarios(client):
            stub = kw.pop("stub", False)
            res = run_clients.run_one(
                client, "guard-" + name, action=kw["action"], perm=kw["perm"],
                mode=kw.get("mode"), answer=kw.get("answer", "none"),
                hook_cmd=None if stub else hook, timeout=args.timeout)
            results.append(res)
            if want == "baseline":
                baseline = res["ran"]
                want_ran = res["ran"]
            elif want is None:
                want_ran = baseline
            else:
                want_ran = want
            called = res["hook_called"] > 0
            ok = res["ran"] == want_ran and called and not res["timed_out"]
            answer = (res.get("answer_sent") or {}).get("stdout", "").strip()
            rows.append("%-7s %-20s ran=%-5s want=%-5s hook=%d %s  %s" % (
                client, name, res["ran"], want_ran, res["hook_called"],
                "ok" if ok else "FAILED", answer[:90]))
            if not ok:
                failures.append("%s %s: ran=%s, want %s, hook called %d times, dir %s" % (
                    client, name, res["ran"], want_ran, res["hook_called"], res["dir"]))
    if args.json:
        print(json.dumps(results, indent=2))
    print("\n".join(rows))
    print("%d scenario(s) failed in %.0f s" % (len(failures), time.time() - t0))
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
