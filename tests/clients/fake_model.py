#!/usr/bin/env python3
"""A fake model API on loopback for driving real agent CLIs in tests.

It speaks just enough of four wire protocols for a client to receive exactly
one tool call on its first turn and a plain text answer afterwards:

* Anthropic Messages        POST /v1/messages            (JSON or SSE)
* OpenAI Chat Completions   POST .../chat/completions    (JSON or SSE)
* OpenAI Responses          POST .../responses           (SSE or JSON)
* Gemini                    POST .../models/M:generateContent
                            POST .../models/M:streamGenerateContent (SSE)

The tool call is chosen from the tools the client offers in its request, so
the same action works for every client: an action is a dict

    {"kind": "shell", "command": "touch /tmp/x"}
    {"kind": "read",  "path": "/abs/file"}
    {"kind": "write", "path": "/abs/file", "content": "text"}

A request whose history already holds a tool result, or that offers no tools
(title generation, quota probes, ...), gets the final text answer instead.
Every request and the answer given are appended to a JSONL log.

Standard library only.  Use it in-process (FakeModel(...).start()) or run it
as a program:  fake_model.py --action '{"kind":"shell","command":"id"}'
"""

import argparse
import http.server
import json
import os
import re
import sys
import threading
import time
import uuid

FINAL_TEXT = "FAKE-MODEL-DONE"

# Tool names per action kind, most specific first.  The first name a request
# offers wins.
SHELL_TOOLS = [
    "Bash", "bash", "run_shell_command", "shell_command", "shell",
    "exec_command", "run_commands", "execute_command", "run_command",
    "local_shell",
]
READ_TOOLS = ["Read", "read_file", "read", "view", "read_files", "ReadFile"]
WRITE_TOOLS = [
    "Write", "write_file", "write", "create", "write_to_file", "editor",
    "apply_patch", "edit_file",
]

PATH_KEYS = ["file_path", "filePath", "absolute_path", "path", "file", "filename",
             "target_file", "files"]
CONTENT_KEYS = ["content", "file_text", "text", "contents", "new_content", "new_text"]
COMMAND_KEYS = ["command", "cmd", "commands"]


# ---------------------------------------------------------------- tool choice

def _tool_entries(body):
    """Return [(name, schema, kind)] for the tools a request offers.

    kind is "function" for JSON-schema tools, "custom" for free-form ones
    (Responses API custom tools such as Codex's apply_patch)."""
    out = []
    tools = body.get("tools") or []
    for t in tools:
        if not isinstance(t, dict):
            continue
        # Gemini: {"functionDeclarations": [...]}
        for decl in t.get("functionDeclarations") or t.get("function_declarations") or []:
            schema = decl.get("parameters") or decl.get("parametersJsonSchema") or {}
            out.append((decl.get("name"), schema, "function"))
        if "function" in t and isinstance(t["function"], dict):  # chat completions
            f = t["function"]
            out.append((f.get("name"), f.get("parameters") or {}, "function"))
        elif t.get("type") == "custom":  # responses custom tool
            out.append((t.get("name"), {}, "custom"))
        elif t.get("type") == "local_shell":
            out.append(("local_shell", {}, "local_shell"))
        elif t.get("name"):
            schema = t.get("input_schema") or t.get("parameters") or {}
            out.append((t.get("name"), schema, "function"))
    return [e for e in out if e[0]]


def _fill(schema, action, tool_name):
    """Arguments for a tool, guided by its JSON schema."""
    props = (schema or {}).get("properties") or {}
    required = list((schema or {}).get("required") or [])
    args = {}
    cmd = action.get("command", "")
    for key, spec in props.items():
        spec = spec or {}
        typ = spec.get("type")
        if isinstance(typ, list):
            typ = next((t for t in typ if t != "null"), None)
        lk = key.lower()
        if action["kind"] == "shell" and key in COMMAND_KEYS:
            if typ == "array":
                if key == "commands":
                    args[key] = [cmd]
                else:
                    args[key] = ["bash", "-lc", cmd]
            else:
                args[key] = cmd
        elif action["kind"] in ("read", "write") and key in PATH_KEYS:
            if typ == "array":
                item = spec.get("items") or {}
                if item.get("type") == "object" and "path" in (item.get("properties") or {}):
                    args[key] = [{"path": action["path"]}]
                else:
                    args[key] = [action["path"]]
            else:
                args[key] = action["path"]
        elif action["kind"] in ("read", "write") and key == "paths":
            args[key] = [action["path"]]
        elif action["kind"] == "write" and key in CONTENT_KEYS:
            args[key] = action.get("content", "")
        elif lk == "description" and key in required:
            args[key] = "run the command" if action["kind"] == "shell" else "file operation"
        elif key in required:
            if "enum" in spec and spec["enum"]:
                args[key] = spec["enum"][0]
            elif typ == "boolean":
                args[key] = False
            elif typ in ("integer", "number"):
                args[key] = 60 if "timeout" in lk else 1
            elif typ == "array":
                args[key] = []
            elif typ == "object":
                args[key] = {}
            else:
                args[key] = ""
    if action["kind"] == "shell" and tool_name == "Bash":
        args.setdefault("description", "run the command")
    if action["kind"] == "write" and tool_name == "create" and "command" in props:
        args["command"] = "create"
    if action["kind"] == "read" and tool_name == "view" and "command" in props:
        args["command"] = "view"
    if not args:  # no schema given: a best guess
        if action["kind"] == "shell":
            args = {"command": cmd}
        elif action["kind"] == "read":
            args = {"file_path": action["path"]}
        else:
            args = {"file_path": action["path"], "content": action.get("content", "")}
    return args


def choose_call(body, action):
    """(tool_name, kind, arguments) for the action, or None when no tool fits."""
    entries = _tool_entries(body)
    by_name = {}
    for name, schema, kind in entries:
        by_name.setdefault(name, (schema, kind))
    forced = action.get("tool")
    names = [forced] if forced else {"shell": SHELL_TOOLS, "read": READ_TOOLS,
                                      "write": WRITE_TOOLS}[action["kind"]]
    for name in names:
        if name not in by_name:
            continue
        schema, kind = by_name[name]
        if kind == "custom":
            if name == "apply_patch" and action["kind"] == "write":
                body_lines = "".join("+" + line + "\n"
                                     for line in action.get("content", "").split("\n"))
                patch = ("*** Begin Patch\n*** Add File: %s\n%s*** End Patch\n"
                         % (action["path"], body_lines))
                return name, "custom", patch
            continue
        if kind == "local_shell":
            return name, "local_shell", {"command": ["bash", "-lc", action.get("command", "")]}
        if name == "apply_patch" and action["kind"] == "write":
            body_lines = "".join("+" + line + "\n"
                                 for line in action.get("content", "").split("\n"))
            patch = ("*** Begin Patch\n*** Add File: %s\n%s*** End Patch\n"
                     % (action["path"], body_lines))
            return name, "function", {"input": patch}
        return name, "function", _fill(schema, action, name)
    # Deferred tools (Qwen Code): the real tool is hidden behind a meta tool
    # that takes {"name", "arguments"}.
    if "tool_call" in by_name and not forced:
        hidden = {"shell": ("run_shell_command", {"command": action.get("command", "")}),
                  "read": ("read_file", {"file_path": action.get("path")}),
                  "write": ("write_file", {"file_path": action.get("path"),
                                           "content": action.get("content", "")})}
        name, args = hidden[action["kind"]]
        return "tool_call", "function", {"name": name, "arguments": args}
    return None


def value_for_schema(schema, depth=0):
    """A small value that satisfies a JSON schema (for structured-output probes)."""
    schema = schema or {}
    if depth > 6:
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return value_for_schema(schema[key][0], depth + 1)
    typ = schema.get("type")
    if isinstance(typ, list):
        typ = next((t for t in typ if str(t).lower() != "null"), "string")
    typ = str(typ or ("object" if "properties" in schema else "string")).lower()
    if typ == "object":
        props = schema.get("properties") or {}
        req = schema.get("required") or list(props)
        return {k: value_for_schema(props.get(k), depth + 1) for k in req}
    if typ == "array":
        return []
    if typ == "integer":
        return max(10, int(schema.get("minimum") or 0))
    if typ == "number":
        return 0.5
    if typ == "boolean":
        return False
    return "fake"


def json_request_schema(body):
    """The schema of a structured-output request, {} for free JSON, None when
    the request does not ask for JSON."""
    gc = body.get("generationConfig") or {}
    if gc.get("responseMimeType") == "application/json":
        return gc.get("responseJsonSchema") or gc.get("responseSchema") or {}
    rf = body.get("response_format") or {}
    if rf.get("type") == "json_schema":
        return (rf.get("json_schema") or {}).get("schema") or {}
    if rf.get("type") == "json_object":
        return {}
    fmt = (body.get("text") or {}).get("format") or {}
    if fmt.get("type") == "json_schema":
        return fmt.get("schema") or {}
    return None


# --------------------------------------------------------- history inspection

def _has_tool_result(body):
    for m in body.get("messages") or []:  # anthropic + chat completions
        if not isinstance(m, dict):
            continue
        if m.get("role") == "tool":
            return True
        c = m.get("content")
        if isinstance(c, list):
            for b in c:
                if isinstance(b, dict) and b.get("type") in ("tool_result", "function_result"):
                    return True
    inp = body.get("input")  # responses
    if isinstance(inp, list):
        for it in inp:
            if isinstance(it, dict) and it.get("type") in (
                    "function_call_output", "custom_tool_call_output",
                    "local_shell_call_output"):
                return True
    for c in body.get("contents") or []:  # gemini
        for p in (c or {}).get("parts") or []:
            if isinstance(p, dict) and ("functionResponse" in p or "function_response" in p):
                return True
    return False


def agent_key(body):
    """Something that tells one agent's conversation from another's: the
    start of its system prompt (sub-agents and memory extractors differ)."""
    sys_txt = body.get("system") or body.get("instructions") or ""
    if not sys_txt:
        si = body.get("systemInstruction") or body.get("system_instruction") or {}
        if isinstance(si, dict):
            sys_txt = "".join(p.get("text", "") for p in si.get("parts") or []
                              if isinstance(p, dict))
        elif isinstance(si, str):
            sys_txt = si
    if not sys_txt:
        for m in body.get("messages") or []:
            if isinstance(m, dict) and m.get("role") in ("system", "developer"):
                sys_txt = m.get("content")
                break
    if not sys_txt and isinstance(body.get("input"), list):
        for m in body["input"]:
            if isinstance(m, dict) and m.get("role") in ("system", "developer"):
                sys_txt = m.get("content")
                break
    if not isinstance(sys_txt, str):
        sys_txt = json.dumps(sys_txt)
    return sys_txt[:400]


# ------------------------------------------------------------------ the server

class FakeModel:
    """One fake model endpoint.  start() returns the port."""

    def __init__(self, action, log_path=None, host="127.0.0.1", port=0,
                 final_text=FINAL_TEXT, model="fake-model"):
        self.action = action
        self.log_path = log_path
        self.host = host
        self.port = port
        self.final_text = final_text
        self.model = model
        self.tool_calls_served = 0
        self.main_key = None  # agent_key of the first request that offered tools
        self.requests = 0
        self.lock = threading.Lock()
        self.httpd = None
        self.thread = None

    # -- lifecycle
    def start(self):
        handler = self._handler_class()
        self.httpd = http.server.ThreadingHTTPServer((self.host, self.port), handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self.port

    def stop(self):
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()

    @property
    def base(self):
        return "http://%s:%d" % (self.host, self.port)

    def log(self, entry):
        if not self.log_path:
            return
        with self.lock:
            with open(self.log_path, "a") as f:
                f.write(json.dumps(entry) + "\n")

    # -- decision
    def text_of(self, ans):
        return ans[1] if ans[0] == "text" and len(ans) > 1 else self.final_text

    def plan(self, body):
        """('tool', name, kind, args) or ('text',)."""
        schema = json_request_schema(body)
        if schema is not None:
            return ("text", json.dumps(value_for_schema(schema)))
        if _has_tool_result(body):
            return ("text",)
        if not _tool_entries(body):
            return ("text",)
        key = agent_key(body)
        with self.lock:
            if self.main_key is None:
                self.main_key = key
        if key != self.main_key:  # another agent (sub-agent, memory extractor)
            return ("text",)
        call = choose_call(body, self.action)
        if call is None:
            return ("text",)
        with self.lock:
            self.tool_calls_served += 1
        return ("tool",) + call

    def _handler_class(self):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # quiet
                pass

            def _read_body(self):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    raw = self._read_chunked()
                if self.headers.get("Content-Encoding", "").lower() in ("gzip",):
                    import gzip
                    raw = gzip.decompress(raw)
                elif self.headers.get("Content-Encoding", "").lower() in ("zstd",):
                    return raw, None
                try:
                    return raw, json.loads(raw.decode("utf-8")) if raw else {}
                except Exception:
                    return raw, None

            def _read_chunked(self):
                out = b""
                while True:
                    line = self.rfile.readline().strip()
                    size = int(line.split(b";")[0], 16)
                    if size == 0:
                        self.rfile.readline()
                        return out
                    out += self.rfile.read(size)
                    self.rfile.readline()

            def _send_json(self, obj, status=200):
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _start_sse(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True

            def _sse(self, data, event=None):
                chunk = ""
                if event:
                    chunk += "event: %s\n" % event
                chunk += "data: %s\n\n" % (data if isinstance(data, str) else json.dumps(data))
                self.wfile.write(chunk.encode())
                self.wfile.flush()

            def do_HEAD(self):
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self):
                fake.requests += 1
                path = self.path.split("?")[0]
                fake.log({"t": time.time(), "method": "GET", "path": self.path})
                if path.endswith("/models") or path.endswith("/v1/models"):
                    m = fake.model
                    self._send_json({
                        "object": "list",
                        "data": [{"id": m, "object": "model", "created": 0,
                                  "owned_by": "fake", "type": "model",
                                  "display_name": m, "created_at": "2025-01-01T00:00:00Z"}],
                        "models": [{"name": "models/" + m, "displayName": m,
                                    "supportedGenerationMethods": ["generateContent"],
                                    "slug": m, "id": m}],
                        "has_more": False, "first_id": m, "last_id": m,
                    })
                    return
                self._send_json({"ok": True})

            def do_POST(self):
                fake.requests += 1
                raw, body = self._read_body()
                path = self.path.split("?")[0]
                entry = {"t": time.time(), "method": "POST", "path": self.path,
                         "headers": {k: v for k, v in self.headers.items()
                                     if k.lower() not in ("authorization", "x-api-key",
                                                          "x-goog-api-key")},
                         "body": body if body is not None else raw[:2000].decode("latin-1")}
                if body is None:
                    fake.log(dict(entry, answer="unparsed"))
                    self._send_json({"error": {"message": "unparsed body"}}, 400)
                    return
                try:
                    if path.endswith("/messages/count_tokens"):
                        ans = ("count",)
                        self._send_json({"input_tokens": 10})
                    elif path.endswith("/messages"):
                        ans = fake.plan(body)
                        self.anthropic(body, ans)
                    elif path.endswith("/chat/completions"):
                        ans = fake.plan(body)
                        self.chat(body, ans)
                    elif path.endswith("/responses"):
                        ans = fake.plan(body)
                        self.openai_responses(body, ans)
                    elif ":streamGenerateContent" in path or ":generateContent" in path:
                        ans = fake.plan(body)
                        self.gemini(body, ans, stream=":streamGenerateContent" in path)
                    elif ":countTokens" in path:
                        ans = ("count",)
                        self._send_json({"totalTokens": 10})
                    elif path.endswith("/embeddings") or ":embedContent" in path \
                            or ":batchEmbedContents" in path:
                        ans = ("embed",)
                        self._send_json({"data": [{"embedding": [0.0] * 8, "index": 0}],
                                         "embeddings": [{"values": [0.0] * 8}],
                                         "embedding": {"values": [0.0] * 8}})
                    else:
                        ans = ("unknown",)
                        self._send_json({"ok": True})
                except (BrokenPipeError, ConnectionResetError):
                    ans = ("client-gone",)
                fake.log(dict(entry, answer=list(ans)))

            # ---------------------------------------------------- anthropic
            def anthropic(self, body, ans):
                mid = "msg_" + uuid.uuid4().hex[:20]
                model = body.get("model", fake.model)
                usage = {"input_tokens": 10, "output_tokens": 5,
                         "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
                if ans[0] == "tool":
                    tid = "toolu_" + uuid.uuid4().hex[:20]
                    block = {"type": "tool_use", "id": tid, "name": ans[1], "input": ans[3]}
                    stop = "tool_use"
                else:
                    block = {"type": "text", "text": fake.text_of(ans)}
                    stop = "end_turn"
                if not body.get("stream"):
                    self._send_json({"id": mid, "type": "message", "role": "assistant",
                                     "model": model, "content": [block],
                                     "stop_reason": stop, "stop_sequence": None,
                                     "usage": usage})
                    return
                self._start_sse()
                self._sse({"type": "message_start", "message": {
                    "id": mid, "type": "message", "role": "assistant", "model": model,
                    "content": [], "stop_reason": None, "stop_sequence": None,
                    "usage": dict(usage, output_tokens=1)}}, "message_start")
                if block["type"] == "tool_use":
                    self._sse({"type": "content_block_start", "index": 0, "content_block": {
                        "type": "tool_use", "id": block["id"], "name": block["name"],
                        "input": {}}}, "content_block_start")
                    self._sse({"type": "content_block_delta", "index": 0, "delta": {
                        "type": "input_json_delta",
                        "partial_json": json.dumps(block["input"])}}, "content_block_delta")
                else:
                    self._sse({"type": "content_block_start", "index": 0, "content_block": {
                        "type": "text", "text": ""}}, "content_block_start")
                    self._sse({"type": "content_block_delta", "index": 0, "delta": {
                        "type": "text_delta", "text": block["text"]}}, "content_block_delta")
                self._sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
                self._sse({"type": "message_delta", "delta": {
                    "stop_reason": stop, "stop_sequence": None},
                    "usage": {"output_tokens": 5}}, "message_delta")
                self._sse({"type": "message_stop"}, "message_stop")

            # ---------------------------------------------- chat completions
            def chat(self, body, ans):
                cid = "chatcmpl-" + uuid.uuid4().hex[:20]
                model = body.get("model", fake.model)
                created = int(time.time())
                usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                if ans[0] == "tool":
                    call = {"id": "call_" + uuid.uuid4().hex[:16], "type": "function",
                            "function": {"name": ans[1], "arguments": json.dumps(ans[3])}}
                    msg = {"role": "assistant", "content": None, "tool_calls": [call]}
                    finish = "tool_calls"
                else:
                    msg = {"role": "assistant", "content": fake.text_of(ans)}
                    finish = "stop"
                if not body.get("stream"):
                    self._send_json({"id": cid, "object": "chat.completion",
                                     "created": created, "model": model,
                                     "choices": [{"index": 0, "message": msg,
                                                  "finish_reason": finish}],
                                     "usage": usage})
                    return
                self._start_sse()

                def chunk(delta, finish_reason=None, **extra):
                    d = {"id": cid, "object": "chat.completion.chunk", "created": created,
                         "model": model, "choices": [{"index": 0, "delta": delta,
                                                      "finish_reason": finish_reason}]}
                    d.update(extra)
                    self._sse(d)

                chunk({"role": "assistant", "content": ""})
                if ans[0] == "tool":
                    c = msg["tool_calls"][0]
                    chunk({"tool_calls": [{"index": 0, "id": c["id"], "type": "function",
                                           "function": {"name": c["function"]["name"],
                                                        "arguments": ""}}]})
                    chunk({"tool_calls": [{"index": 0, "function": {
                        "arguments": c["function"]["arguments"]}}]})
                else:
                    chunk({"content": fake.text_of(ans)})
                chunk({}, finish)
                if (body.get("stream_options") or {}).get("include_usage"):
                    self._sse({"id": cid, "object": "chat.completion.chunk",
                               "created": created, "model": model, "choices": [],
                               "usage": usage})
                self._sse("[DONE]")

            # ---------------------------------------------------- responses
            def openai_responses(self, body, ans):
                rid = "resp_" + uuid.uuid4().hex[:20]
                model = body.get("model", fake.model)
                if ans[0] == "tool":
                    call_id = "call_" + uuid.uuid4().hex[:16]
                    if ans[2] == "custom":
                        item = {"type": "custom_tool_call", "id": "ctc_" + uuid.uuid4().hex[:12],
                                "call_id": call_id, "name": ans[1], "input": ans[3],
                                "status": "completed"}
                    elif ans[2] == "local_shell":
                        item = {"type": "local_shell_call", "id": "lsh_" + uuid.uuid4().hex[:12],
                                "call_id": call_id, "status": "completed",
                                "action": {"type": "exec", "command": ans[3]["command"]}}
                    else:
                        item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:12],
                                "call_id": call_id, "name": ans[1],
                                "arguments": json.dumps(ans[3]), "status": "completed"}
                else:
                    item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:12],
                            "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": fake.text_of(ans),
                                         "annotations": []}]}
                usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                         "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                         "total_tokens": 15}
                resp = {"id": rid, "object": "response", "created_at": int(time.time()),
                        "status": "completed", "model": model, "output": [item],
                        "usage": usage}
                if not body.get("stream"):
                    self._send_json(resp)
                    return
                self._start_sse()
                seq = [0]

                def ev(kind, data):
                    data = dict(data, type=kind, sequence_number=seq[0])
                    seq[0] += 1
                    self._sse(data, kind)

                ev("response.created", {"response": dict(resp, status="in_progress",
                                                         output=[])})
                ev("response.in_progress", {"response": dict(resp, status="in_progress",
                                                             output=[])})
                if item["type"] == "message":
                    ev("response.output_item.added", {"output_index": 0, "item": dict(
                        item, status="in_progress", content=[])})
                    ev("response.content_part.added", {
                        "item_id": item["id"], "output_index": 0, "content_index": 0,
                        "part": {"type": "output_text", "text": "", "annotations": []}})
                    ev("response.output_text.delta", {
                        "item_id": item["id"], "output_index": 0, "content_index": 0,
                        "delta": fake.text_of(ans)})
                    ev("response.output_text.done", {
                        "item_id": item["id"], "output_index": 0, "content_index": 0,
                        "text": fake.text_of(ans)})
                    ev("response.content_part.done", {
                        "item_id": item["id"], "output_index": 0, "content_index": 0,
                        "part": item["content"][0]})
                else:
                    ev("response.output_item.added", {"output_index": 0, "item": item})
                ev("response.output_item.done", {"output_index": 0, "item": item})
                ev("response.completed", {"response": resp})

            # ------------------------------------------------------- gemini
            def gemini(self, body, ans, stream):
                if ans[0] == "tool":
                    part = {"functionCall": {"name": ans[1], "args": ans[3]}}
                else:
                    part = {"text": fake.text_of(ans)}
                resp = {"candidates": [{"content": {"role": "model", "parts": [part]},
                                        "finishReason": "STOP", "index": 0}],
                        "usageMetadata": {"promptTokenCount": 10,
                                          "candidatesTokenCount": 5,
                                          "totalTokenCount": 15},
                        "modelVersion": body.get("model", fake.model),
                        "responseId": uuid.uuid4().hex[:16]}
                if not stream:
                    self._send_json(resp)
                    return
                self._start_sse()
                self._sse(resp)

        return Handler


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--action", required=True, help="JSON action")
    ap.add_argument("--log", help="JSONL request log")
    ap.add_argument("--port-file", help="write the chosen port here")
    args = ap.parse_args(argv)
    fm = FakeModel(json.loads(args.action), args.log, port=args.port)
    port = fm.start()
    if args.port_file:
        with open(args.port_file, "w") as f:
            f.write(str(port))
    print(port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fm.stop()


if __name__ == "__main__":
    main()
