"""A reference reader of each raw transcript format, written apart from ``arena_bot``'s importers.

It loads each file whole with the standard library (no streaming, no shared code with
``arena_bot.intake.transcripts``) and computes the figures straight from each format's
documentation, so a test comparing the two catches a mistake in either. Figures returned:
``uncached`` (input tokens not served from a cache), ``cache_read``, ``cache_write``,
``output``, ``tool_calls``, ``iterations``, ``seconds`` (first to last timestamp) and
``models`` (sorted).
"""

from __future__ import annotations

import gzip
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def _text(path: Path) -> str:
    data = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
    return data.decode("utf-8", errors="replace")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _text(path).splitlines() if line.strip()]


def _seconds(stamps: list[Any]) -> float:
    moments = []
    for stamp in stamps:
        if isinstance(stamp, str):
            try:
                moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            except ValueError:
                continue
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=UTC)
            moments.append(moment)
        elif isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
            moments.append(datetime.fromtimestamp(stamp, tz=UTC))
    return (max(moments) - min(moments)).total_seconds() if len(moments) > 1 else 0.0


def _figures(**values: Any) -> dict[str, Any]:
    keys = ("uncached", "cache_read", "cache_write", "output", "tool_calls", "iterations")
    out: dict[str, Any] = {key: int(values.get(key, 0)) for key in keys}
    out["seconds"] = round(float(values.get("seconds", 0.0)), 3)
    out["models"] = sorted(values.get("models", set()))
    return out


def _headless_events(path: Path) -> list[dict[str, Any]] | None:
    """The events a headless Claude Code run printed (``-p --output-format stream-json
    --verbose``: lines with ``session_id``; ``--output-format json``: the ``result`` object,
    alone or, with ``--verbose``, in an array), or None for a session file. Lines that are
    not JSON objects (stderr) are dropped."""
    text = _text(path).strip()
    if text.startswith("["):
        return [e for e in json.loads(text) if isinstance(e, dict)]
    if text.startswith("{\n") or text.startswith("{\r\n"):
        return [json.loads(text)]
    events = [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]
    first = events[0] if events else {}
    if "session_id" in first or first.get("type") == "result":
        return events
    return None


def _claude_headless(events: list[dict[str, Any]]) -> dict[str, Any]:
    """Tokens: the last result's ``modelUsage`` (per model), else the results' ``usage``
    summed; seconds: the results' ``duration_ms``; iterations: assistant message ids (and
    the sub-agents' unprinted last replies), or ``num_turns`` when there is no assistant
    line; tool calls: tool_use ids."""
    results = [e for e in events if e.get("type") == "result"]
    assert results, "a headless run without a result event is refused"
    replies = [e["message"] for e in events if e.get("type") == "assistant"]
    assert replies or min(r.get("result_index", 0) for r in results) == 0, (
        "a later result alone, without the ones before it, is refused")
    by_model = results[-1].get("modelUsage") or {}
    if by_model:
        sums = [sum(u[key] for u in by_model.values()) for key in (
            "inputTokens", "cacheReadInputTokens", "cacheCreationInputTokens", "outputTokens")]
    else:
        sums = [sum((r.get("usage") or {}).get(key, 0) for r in results) for key in (
            "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
            "output_tokens")]
    tools = {b["id"] for m in replies for b in m.get("content") or []
             if isinstance(b, dict) and b.get("type") == "tool_use"}
    models = set(by_model) | {m["model"] for m in replies if m.get("model")}

    def inputs(usage: dict[str, Any]) -> tuple[int, int, int]:
        return (usage.get("input_tokens", 0), usage.get("cache_read_input_tokens", 0),
                usage.get("cache_creation_input_tokens", 0))

    # Claude Code prints no sub-agent's last reply (but a 2.1 background one's), and its Task
    # result (a user line's tool_use_result with agentId) holds that reply's usage: one more
    # reply unless a printed reply of that sub-agent (parent_tool_use_id) had the same input.
    printed = {(e["parent_tool_use_id"], *inputs(e["message"].get("usage") or {}))
               for e in events if e.get("type") == "assistant" and e.get("parent_tool_use_id")}
    reports = {(b["tool_use_id"], *inputs(e["tool_use_result"]["usage"]))
               for e in events if e.get("type") == "user"
               and isinstance(e.get("tool_use_result"), dict)
               and "agentId" in e["tool_use_result"] and "usage" in e["tool_use_result"]
               for b in e["message"]["content"] if b.get("type") == "tool_result"}
    return _figures(
        uncached=sums[0], cache_read=sums[1], cache_write=sums[2], output=sums[3],
        tool_calls=len(tools),
        iterations=len({m["id"] for m in replies}) + len(reports - printed) if replies else sum(
            r.get("num_turns", 0) for r in results),
        seconds=sum(r.get("duration_ms", 0) for r in results) / 1000, models=models,
    )


def claude_code(files: list[Path]) -> dict[str, Any]:
    """Every file of the session (session file and sub-agent files) given explicitly, or
    one headless run's printed output."""
    headless = _headless_events(files[0])
    if headless is not None:
        return _claude_headless(headless)
    lines = [line for path in files for line in _jsonl(path)]
    seen: set[str] = set()
    usage: dict[str, dict[str, int]] = {}
    tools: set[str] = set()
    models: set[str] = set()
    stamps = []
    for line in lines:
        if line.get("uuid") in seen:
            continue
        if "uuid" in line:
            seen.add(line["uuid"])
        stamps.append(line.get("timestamp"))
        message = line.get("message")
        if line.get("type") != "assistant" or not isinstance(message, dict):
            continue
        if message.get("model") and message["model"] != "<synthetic>":
            models.add(message["model"])
        figures = message.get("usage") or {}
        best = usage.setdefault(message.get("id") or f"anon-{len(usage)}", {})
        for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
                    "output_tokens"):
            best[key] = max(best.get(key, 0), figures.get(key) or 0)
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                tools.add(block["id"])
    return _figures(
        uncached=sum(u["input_tokens"] for u in usage.values()),
        cache_read=sum(u["cache_read_input_tokens"] for u in usage.values()),
        cache_write=sum(u["cache_creation_input_tokens"] for u in usage.values()),
        output=sum(u["output_tokens"] for u in usage.values()),
        tool_calls=len(tools), iterations=len(usage), seconds=_seconds(stamps), models=models,
    )


def _codex_split(usage: dict[str, Any]) -> dict[str, int]:
    """A Codex usage record in the reference reader's terms: the cache read and (Codex 0.16x)
    cache write are parts of ``input_tokens``; reasoning is inside ``output_tokens``."""
    read = usage.get("cached_input_tokens", 0)
    write = usage.get("cache_write_input_tokens", 0)
    return {"uncached": usage.get("input_tokens", 0) - read - write, "cache_read": read,
            "cache_write": write, "output": usage.get("output_tokens", 0)}


def _codex_exec(events: list[dict[str, Any]]) -> dict[str, Any]:
    """``codex exec --json``: the largest ``turn.completed`` usage (a running total); tool
    calls are completed command, file-change, MCP, web-search and collab items, and each
    start or update of a todo_list (an ``update_plan`` call); one iteration per turn; no
    model, no time."""
    usages = [e["usage"] for e in events if e.get("type") == "turn.completed" and e.get("usage")]
    last = max(usages, key=lambda u: u["input_tokens"] + u["output_tokens"])
    calls = {e["item"]["id"] for e in events if e.get("type") == "item.completed"
             and e["item"].get("type") in ("command_execution", "file_change", "mcp_tool_call",
                                           "web_search", "collab_tool_call")}
    plans = [e for e in events if e.get("type") in ("item.started", "item.updated")
             and e["item"].get("type") == "todo_list"]
    return _figures(**_codex_split(last), tool_calls=len(calls) + len(plans),
                    iterations=len(usages))


def _codex_totals(totals: list[dict[str, int]]) -> tuple[dict[str, int], int]:
    """The session's usage from Codex's running totals, and how many distinct ones there
    are (one per model call). The usage is the largest running total; Codex 0.39 counts
    again from zero after `codex exec resume`: a total never seen before that is below the
    largest one so far starts a new count, and the counts add up."""
    distinct: set[tuple[int, int, int]] = set()
    counts: list[dict[str, int]] = []
    for total in totals:
        key = (total["input_tokens"], total.get("cached_input_tokens", 0),
               total["output_tokens"])
        if key in distinct:
            continue
        distinct.add(key)
        if not counts or total["input_tokens"] < counts[-1].get("input_tokens", 0):
            counts.append({})
        if total["input_tokens"] + total["output_tokens"] >= \
                counts[-1].get("input_tokens", 0) + counts[-1].get("output_tokens", 0):
            counts[-1] = total
    keys = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens")
    return {key: sum(count.get(key, 0) for count in counts) for key in keys}, len(distinct)


def _codex_legacy(events: list[dict[str, Any]]) -> dict[str, Any]:
    """``codex exec --json`` of Codex 0.39: ``{"id", "msg"}`` events after a configuration
    echo naming the model; running totals in ``token_count``; tool calls are the
    ``*_begin`` events and each ``plan_update``; no time."""
    messages = [e["msg"] for e in events if isinstance(e.get("msg"), dict)]
    totals = [m["info"]["total_token_usage"] for m in messages if m.get("type") == "token_count"
              and (m.get("info") or {}).get("total_token_usage")]
    usage, distinct = _codex_totals(totals)
    calls = {m["call_id"] for m in messages if m.get("type") in (
        "exec_command_begin", "patch_apply_begin", "mcp_tool_call_begin", "web_search_begin")}
    plans = [m for m in messages if m.get("type") == "plan_update"]
    models = {e["model"] for e in events if "msg" not in e and e.get("model")}
    return _figures(**_codex_split(usage), tool_calls=len(calls) + len(plans),
                    iterations=distinct, models=models)


def codex(files: list[Path]) -> dict[str, Any]:
    """A rollout (with its sub-agents' rollouts: each thread's running totals counted on
    their own, then added), or ``codex exec --json`` output of today's or Codex 0.39's
    shape."""
    path = files[0]
    lines = [line for line in _text(path).splitlines() if line.strip()]
    if lines and json.loads(lines[0]).get("type") == "thread.started":
        return _codex_exec([json.loads(line) for line in lines if line.startswith("{")])
    if any('"msg":' in line and '"payload":' not in line for line in lines[:5]):
        return _codex_legacy([json.loads(line) for line in lines if line.startswith("{")])
    events = [event for file in files for event in _jsonl(file)]
    by_thread: dict[str, list[dict[str, int]]] = {}
    calls: set[tuple[str, str]] = set()
    thread = ""
    for index, e in enumerate(events):
        if e.get("type") == "session_meta":
            thread = e["payload"].get("id", thread)
        payload = e.get("payload") or {}
        if e.get("type") == "event_msg" and payload.get("type") == "token_count" \
                and (payload.get("info") or {}).get("total_token_usage"):
            by_thread.setdefault(thread, []).append(payload["info"]["total_token_usage"])
        # A call without an id (web_search_call has none) is still one call.
        if e.get("type") == "response_item" and payload.get("type") in (
                "function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            calls.add((thread, payload.get("call_id") or payload.get("id")
                       or f"unnamed-{index}"))
    usage: dict[str, int] = {}
    distinct = 0
    for totals in by_thread.values():
        thread_usage, thread_distinct = _codex_totals(totals)
        distinct += thread_distinct
        for key, value in thread_usage.items():
            usage[key] = usage.get(key, 0) + value
    models = {e["payload"]["model"] for e in events
              if e.get("type") == "turn_context" and e["payload"].get("model")}
    return _figures(
        **_codex_split(usage), tool_calls=len(calls), iterations=distinct,
        seconds=_seconds([e.get("timestamp") for e in events]), models=models,
    )


AIDER_UNITS = {"k": 1_000, "M": 1_000_000, "": 1}


def aider_history(path: Path) -> dict[str, Any]:
    """"sent" is LiteLLM's prompt (cache hits and writes in it) plus the cache writes again;
    a "sent" smaller than its hits holds only the writes (LiteLLM's early Anthropic route).
    A line of its own ``Cost: ...`` after a token line is Aider's."""
    sums = {"sent": 0, "received": 0, "cache hit": 0, "cache write": 0}
    calls = edits = 0
    models: set[str] = set()
    for line in _text(path).splitlines():
        line = line.strip()
        if line.startswith("> Tokens: "):
            calls += 1
            figures = line.removeprefix("> Tokens: ").split(". Cost:")[0].rstrip(".")
            this = dict.fromkeys(sums, 0)
            for part in figures.split(", "):
                count, what = part.split(" ", 1)
                number = re.fullmatch(r"([\d.]+)([kM]?)", count)
                assert number, part
                this[what] += round(float(number[1]) * AIDER_UNITS[number[2]])
            if this["sent"] >= this["cache hit"]:
                this["sent"] = max(this["sent"] - this["cache hit"] - 2 * this["cache write"], 0)
            else:
                this["sent"] = max(this["sent"] - this["cache write"], 0)
            for what, count in this.items():
                sums[what] += count
        elif line.startswith("> Applied edit to "):
            edits += 1
        elif line.startswith(("> Model: ", "> Main model: ")):
            models.add(line.split(": ", 1)[1].split()[0])
    return _figures(uncached=sums["sent"], cache_read=sums["cache hit"],
                    cache_write=sums["cache write"], output=sums["received"], tool_calls=edits,
                    iterations=calls, models=models)


def aider_analytics(path: Path) -> dict[str, Any]:
    """``message_send`` events: one model call each; ``<provider>/REDACTED`` is Aider's word
    for a model its list does not know, not a name."""
    events = _jsonl(path)
    sends = [e["properties"] for e in events if e.get("event") == "message_send"]
    return _figures(uncached=sum(p.get("prompt_tokens", 0) for p in sends),
                    output=sum(p.get("completion_tokens", 0) for p in sends),
                    iterations=len(sends), seconds=_seconds([e.get("time") for e in events]),
                    models={p["main_model"] for p in sends
                            if p.get("main_model") and not p["main_model"].endswith("REDACTED")})


def _openhands_v1(values: list[dict[str, Any]]) -> dict[str, Any]:
    """OpenHands V1: events (each with a ``kind``) and the conversation's ``base_state.json``;
    usage is each usage id's largest ``accumulated_token_usage`` running total."""
    largest: dict[str, dict[str, Any]] = {}
    models: dict[str, str] = {}

    def stats(block: Any) -> None:
        block = block or {}
        for usage_id, metric in (block.get("usage_to_metrics")
                                 or block.get("service_to_metrics") or {}).items():
            total = metric.get("accumulated_token_usage") or {}
            size = sum(total.get(k, 0) for k in ("prompt_tokens", "completion_tokens",
                                                 "cache_read_tokens", "cache_write_tokens"))
            if size > largest.get(usage_id, {}).get("size", 0):
                largest[usage_id] = {**total, "size": size}
                models[usage_id] = metric.get("model_name") or total.get("model")

    events = [v for v in values if "kind" in v]
    for value in values:
        if "kind" not in value:
            stats(value.get("stats"))
        elif value["kind"] == "ConversationStateUpdateEvent" and value.get("key") == "stats":
            stats(value.get("value"))
        elif value["kind"] == "ConversationStateUpdateEvent" and value.get("key") == "full_state":
            stats((value.get("value") or {}).get("stats"))
    uncached = read_sum = write_sum = output = 0
    for total in largest.values():
        prompt, read = total.get("prompt_tokens", 0), total.get("cache_read_tokens", 0)
        write = total.get("cache_write_tokens", 0)
        if read + write <= prompt:  # LiteLLM's prompt with its cache reads and writes
            uncached += prompt - read - write
        elif read <= prompt:  # the writes reported apart
            uncached += prompt - read
        else:  # reads apart too (ACP)
            uncached += prompt
        read_sum += read
        write_sum += write
        output += total.get("completion_tokens", 0)
    actions = [e for e in events if e["kind"] == "ActionEvent"]
    responses = {e.get("llm_response_id") or e["id"] for e in events
                 if e["kind"] == "ActionEvent"
                 or (e["kind"] == "MessageEvent" and e.get("source") == "agent")}
    return _figures(uncached=uncached, cache_read=read_sum, cache_write=write_sum, output=output,
                    tool_calls=len({e["tool_call_id"] for e in actions}),
                    iterations=len(responses), seconds=_seconds([e.get("timestamp")
                                                                 for e in events]),
                    models={m for u, m in models.items() if m})


def openhands(path: Path) -> dict[str, Any]:
    text = _text(path).lstrip("\ufeff \t\r\n")
    if text.startswith("{"):  # V1: one object per line
        return _openhands_v1([json.loads(line) for line in text.splitlines() if line.strip()])
    events = json.loads(text)
    if events and ("kind" in events[0] or "stats" in events[0]):  # V1: a JSON array
        return _openhands_v1(events)
    metric_totals = [e["llm_metrics"]["accumulated_token_usage"] for e in events
                     if isinstance(e.get("llm_metrics"), dict)]
    responses: dict[str, dict[str, Any]] = {}
    tools: set[str] = set()
    for event in events:
        meta = event.get("tool_call_metadata")
        if event.get("source") == "agent" and isinstance(meta, dict):
            tools.add(meta["tool_call_id"])
            response = meta.get("model_response") or {}
            if response.get("id"):
                responses.setdefault(response["id"], response)
    stamps = [e.get("timestamp") for e in events]
    if metric_totals:
        top = max(metric_totals, key=lambda t: t["prompt_tokens"] + t["completion_tokens"])
        read, write = top.get("cache_read_tokens", 0), top.get("cache_write_tokens", 0)
        return _figures(uncached=top["prompt_tokens"] - read - write, cache_read=read,
                        cache_write=write, output=top["completion_tokens"],
                        tool_calls=len(tools), iterations=len(responses),
                        seconds=_seconds(stamps), models={t.get("model") for t in metric_totals
                                                          if t.get("model")})
    uncached = read_sum = write_sum = output = 0
    for response in responses.values():
        usage = response.get("usage") or {}
        read = usage.get("cache_read_input_tokens") or (
            (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
        write = usage.get("cache_creation_input_tokens") or 0
        uncached += usage.get("prompt_tokens", 0) - read - write
        read_sum += read
        write_sum += write
        output += usage.get("completion_tokens", 0)
    return _figures(uncached=uncached, cache_read=read_sum, cache_write=write_sum, output=output,
                    tool_calls=len(tools), iterations=len(responses), seconds=_seconds(stamps),
                    models={r["model"] for r in responses.values() if r.get("model")})


def swe_agent(path: Path) -> dict[str, Any]:
    data = json.loads(_text(path))
    stats = data.get("info", {}).get("model_stats", {})
    models = set()
    config = data.get("replay_config")
    if isinstance(config, str):
        config = json.loads(config)
    if isinstance(config, dict):
        name = config.get("agent", {}).get("model", {}).get("name")
        if name:
            models.add(name)
    actions = [step for step in data.get("trajectory", []) if (step.get("action") or "").strip()]
    if "messages" in data:  # mini-swe-agent: no token figures in model_stats
        return _mini_swe_agent(data, stats)
    return _figures(uncached=stats.get("tokens_sent", 0), output=stats.get("tokens_received", 0),
                    iterations=stats.get("api_calls", 0), tool_calls=len(actions), models=models)


def _mini_swe_agent(data: dict[str, Any], stats: dict[str, Any]) -> dict[str, Any]:
    """Each reply's LiteLLM ``usage`` summed once (a compacted run's ``segments`` repeat
    replies: one per response id, else time stamp); a reply runs its ``extra.actions`` (2.x)
    or its bash block when it has exactly one (1.x). CooperBench's runner file names the
    model and the steps at the top."""
    prompt = read = write = output = calls = 0
    stamps = []
    everything = list(data["messages"])
    for segment in data.get("segments") or []:
        everything += segment["messages"]
    unique: dict[str, dict[str, Any]] = {}
    for number, message in enumerate(everything):
        extra = message.get("extra") or {}
        key = (extra.get("response") or {}).get("id") or extra.get("timestamp") or number
        unique.setdefault(str(key), message)
    for message in unique.values():
        extra = message.get("extra") or {}
        stamps.append(extra.get("timestamp"))
        usage = (extra.get("response") or {}).get("usage") or {}
        prompt += usage.get("prompt_tokens") or 0
        read += usage.get("cache_read_input_tokens") or (
            (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
        write += usage.get("cache_creation_input_tokens") or 0
        output += usage.get("completion_tokens") or 0
        if message.get("role") == "assistant":
            if "actions" in extra:
                calls += len(extra["actions"])
            else:
                calls += len(re.findall(r"```bash\s*\n.*?\n```", message["content"], re.S)) == 1
    model = ((data.get("info") or {}).get("config") or {}).get("model", {}).get(
        "model_name") or data.get("model")
    return _figures(uncached=prompt - read - write, cache_read=read, cache_write=write,
                    output=output, tool_calls=calls,
                    iterations=stats.get("api_calls", data.get("steps", 0)),
                    seconds=_seconds(stamps), models={model})


def atif(path: Path) -> dict[str, Any]:
    data = json.loads(_text(path))
    agent_steps = [s for s in data["steps"] if s.get("source") == "agent"]
    final = data.get("final_metrics") or {}
    prompt = sum((s.get("metrics") or {}).get("prompt_tokens", 0) for s in agent_steps)
    cached = sum((s.get("metrics") or {}).get("cached_tokens", 0) for s in agent_steps)
    output = sum((s.get("metrics") or {}).get("completion_tokens", 0) for s in agent_steps)
    prompt = final.get("total_prompt_tokens", prompt)
    cached = final.get("total_cached_tokens", cached)
    output = final.get("total_completion_tokens", output)
    calls = {c["tool_call_id"] for s in agent_steps for c in s.get("tool_calls") or []}
    models = {s["model_name"] for s in agent_steps if s.get("model_name")}
    if data.get("agent", {}).get("model_name"):
        models.add(data["agent"]["model_name"])
    return _figures(uncached=prompt - cached, cache_read=cached, output=output,
                    tool_calls=len(calls), iterations=len(agent_steps),
                    seconds=_seconds([s.get("timestamp") for s in data["steps"]]), models=models)


GEMINI_STREAM = ("init", "message", "tool_use", "tool_result", "error", "result")


GEMINI_JSON_KEY = re.compile(r'"(session_id|response|stats|error|warnings)"\s*:')


def _gemini_event(line: str) -> dict[str, Any] | None:
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        return None
    if not isinstance(value, dict) or "id" in value:
        return None
    if value.get("type") in GEMINI_STREAM and (value["type"] != "error" or "severity" in value):
        return value
    return None


def _gemini_headless(text: str) -> dict[str, Any] | None:
    """What ``gemini -p`` printed: ``--output-format json`` (a document with ``stats``) or
    ``stream-json`` (events; the last ``result`` has ``stats``), maybe among stderr lines;
    else None (a session file). Stream stats put thinking and tool-use prompt tokens in
    ``total_tokens`` alone: such output is refused (AssertionError), as it is without a
    result."""
    lines = [line.strip() for line in text.splitlines()]
    filled = [index for index, line in enumerate(lines) if line]
    for place, index in enumerate(filled):
        line = lines[index]
        later = lines[filled[place + 1]] if place + 1 < len(filled) else ""
        if line == "{" and GEMINI_JSON_KEY.match(later):
            document = json.JSONDecoder().raw_decode("\n".join(lines[index:]))[0]
            return _gemini_json(document)
        if _gemini_event(line) is not None:
            return _gemini_stream(lines[index:])
        if line.startswith("{") and '"stats"' in line and '"sessionId"' not in line:
            return _gemini_json(json.loads(line))
        if place == 0 and line.startswith(("{", "[")):
            return None
    return None


def _gemini_json(document: dict[str, Any]) -> dict[str, Any]:
    models = document["stats"]["models"]
    tokens = [m["tokens"] for m in models.values()]
    return _figures(
        uncached=sum(t["prompt"] - t["cached"] + t["tool"] for t in tokens),
        cache_read=sum(t["cached"] for t in tokens),
        output=sum(t["candidates"] + t["thoughts"] for t in tokens),
        tool_calls=document["stats"]["tools"]["totalCalls"],
        iterations=sum(m["api"]["totalRequests"] - m["api"]["totalErrors"]
                       for m in models.values()),
        models=set(models))


def _gemini_stream(lines: list[str]) -> dict[str, Any]:
    events = [event for event in map(_gemini_event, lines) if event is not None]
    results = [e for e in events if e.get("type") == "result" and e.get("stats")]
    assert results, "stream-json without a result is refused"
    stats = results[-1]["stats"]
    per_model = stats.get("models") or {"": stats}
    assert all(m["total_tokens"] == m["input_tokens"] + m["output_tokens"]
               for m in per_model.values()), "thinking or tool-use tokens not split: refused"
    tools = {e["tool_id"] for e in events if e.get("type") == "tool_use"}
    return _figures(uncached=sum(m["input_tokens"] - m["cached"] for m in per_model.values()),
                    cache_read=sum(m["cached"] for m in per_model.values()),
                    output=sum(m["output_tokens"] for m in per_model.values()),
                    tool_calls=max(stats["tool_calls"], len(tools)),
                    seconds=stats["duration_ms"] / 1000, models=set(per_model) - {""})


def _gemini_copies(text: str) -> list[dict[str, Any]]:
    """Every copy of every message of a session, in file order."""
    if text.lstrip().startswith("{\n"):
        return list(json.loads(text)["messages"])
    copies = []
    for record in (json.loads(line) for line in text.splitlines() if line.strip()):
        if "$set" in record:
            copies += record["$set"].get("messages", [])
        elif "id" in record:
            copies.append(record)
        else:
            copies += record.get("messages", [])
    return copies


def _gemini_replies(copies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each model reply once by ``id``: the usage of its last copy that has one (a resumed
    session's checkpoint copies it without usage or tool calls, and gives the tool results'
    user message the same id), its tool calls from every copy (each call's last)."""
    replies: dict[str, dict[str, Any]] = {}
    for copy in copies:
        if copy["type"] != "gemini":
            continue
        reply = replies.setdefault(copy["id"], {"tokens": None, "model": None, "calls": {}})
        reply["tokens"] = copy.get("tokens") or reply["tokens"]
        reply["model"] = copy.get("model") or reply["model"]
        reply["calls"].update({call["id"]: call for call in copy.get("toolCalls", [])})
    return list(replies.values())


def gemini_cli(files: list[Path]) -> dict[str, Any]:
    """A session document (``messages``) or its JSON Lines (every copy of a message, keyed by
    ``id``; ``$set.messages`` copies too), with its sub-agents' files
    (each its own session, counted with it). ``tokens.input`` includes ``cached``; ``tool``
    is prompt apart from it; ``thoughts`` are output. Or what a headless run printed
    (:func:`_gemini_headless`)."""
    text = _text(files[0])
    headless = _gemini_headless(text)
    if headless is not None:
        return headless
    copies = [_gemini_copies(_text(path)) for path in files]
    replies = [reply for each in copies for reply in _gemini_replies(each)]
    used = [m["tokens"] for m in replies if m["tokens"]]
    given = sum(t["input"] for t in used)
    cached = sum(t["cached"] for t in used)
    calls = {c["id"]: c for m in replies for c in m["calls"].values()}
    stamps = [m["timestamp"] for each in copies for m in each]
    stamps += [c["timestamp"] for c in calls.values() if "timestamp" in c]
    return _figures(uncached=given - cached + sum(t.get("tool", 0) for t in used),
                    cache_read=cached,
                    output=sum(t["output"] + t.get("thoughts", 0) for t in used),
                    tool_calls=len(calls), iterations=len(used), seconds=_seconds(stamps),
                    models={m["model"] for m in replies if m["model"]})


def read(format_name: str, files: list[Path]) -> dict[str, Any]:
    """The figures of one transcript (``files[0]``; Claude Code, Codex and Gemini CLI: with
    its sub-agent files)."""
    if format_name == "claude-code":
        return claude_code(files)
    if format_name == "codex":
        return codex(files)
    if format_name == "gemini-cli":
        return gemini_cli(files)
    readers = {"aider-history": aider_history, "aider": aider_analytics, "openhands": openhands,
               "swe-agent": swe_agent, "atif": atif}
    return readers[format_name](files[0])
