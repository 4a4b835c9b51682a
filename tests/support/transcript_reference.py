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
    summed; seconds: the results' ``duration_ms``; iterations: assistant message ids, or
    ``num_turns`` when there is no assistant line; tool calls: tool_use ids."""
    results = [e for e in events if e.get("type") == "result"]
    assert results, "a headless run without a result event is refused"
    replies = [e["message"] for e in events if e.get("type") == "assistant"]
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
    return _figures(
        uncached=sums[0], cache_read=sums[1], cache_write=sums[2], output=sums[3],
        tool_calls=len(tools),
        iterations=len({m["id"] for m in replies}) if replies else sum(
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


def _codex_exec(events: list[dict[str, Any]]) -> dict[str, Any]:
    """``codex exec --json``: the largest ``turn.completed`` usage (a running total); tool
    calls are completed command, file-change, MCP and web-search items; one iteration per
    turn; no model, no time."""
    usages = [e["usage"] for e in events if e.get("type") == "turn.completed" and e.get("usage")]
    last = max(usages, key=lambda u: u["input_tokens"] + u["output_tokens"])
    calls = {e["item"]["id"] for e in events if e.get("type") == "item.completed"
             and e["item"].get("type") in ("command_execution", "file_change", "mcp_tool_call",
                                           "web_search")}
    return _figures(uncached=last["input_tokens"] - last.get("cached_input_tokens", 0),
                    cache_read=last.get("cached_input_tokens", 0), output=last["output_tokens"],
                    tool_calls=len(calls), iterations=len(usages))


def codex(path: Path) -> dict[str, Any]:
    lines = [line for line in _text(path).splitlines() if line.strip()]
    if lines and json.loads(lines[0]).get("type") == "thread.started":
        return _codex_exec([json.loads(line) for line in lines if line.startswith("{")])
    events = _jsonl(path)
    totals = [
        e["payload"]["info"]["total_token_usage"] for e in events
        if e.get("type") == "event_msg" and e["payload"].get("type") == "token_count"
        and (e["payload"].get("info") or {}).get("total_token_usage")
    ]
    # The session's usage is the largest running total; reasoning is inside output_tokens.
    last = max(totals, key=lambda t: t["input_tokens"] + t["output_tokens"], default={})
    distinct = {(t["input_tokens"], t.get("cached_input_tokens", 0), t["output_tokens"])
                for t in totals}
    # A call without an id (web_search_call has none) is still one call.
    calls = {
        e["payload"].get("call_id") or e["payload"].get("id") or f"unnamed-{index}"
        for index, e in enumerate(events)
        if e.get("type") == "response_item" and e["payload"].get("type") in (
            "function_call", "custom_tool_call", "local_shell_call", "web_search_call")
    }
    models = {e["payload"]["model"] for e in events
              if e.get("type") == "turn_context" and e["payload"].get("model")}
    cached = last.get("cached_input_tokens", 0)
    return _figures(
        uncached=last.get("input_tokens", 0) - cached, cache_read=cached,
        output=last.get("output_tokens", 0), tool_calls=len(calls), iterations=len(distinct),
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


def gemini_cli(path: Path) -> dict[str, Any]:
    """A session document (``messages``) or its JSON Lines (every copy of a message, keyed by
    ``id``: the last copy wins; ``$set.messages`` copies too). ``tokens.input`` includes
    ``cached``; ``tool`` is prompt apart from it; ``thoughts`` are output."""
    text = _text(path)
    if text.lstrip().startswith("{\n"):
        copies = json.loads(text)["messages"]
    else:
        copies = []
        for record in (json.loads(line) for line in text.splitlines() if line.strip()):
            if "$set" in record:
                copies += record["$set"].get("messages", [])
            elif "id" in record:
                copies.append(record)
            else:
                copies += record.get("messages", [])
    messages = {message["id"]: message for message in copies}
    replies = [m for m in messages.values() if m["type"] == "gemini"]
    used = [m["tokens"] for m in replies if m.get("tokens")]
    given = sum(t["input"] for t in used)
    cached = sum(t["cached"] for t in used)
    calls = {c["id"]: c for m in replies for c in m.get("toolCalls", [])}
    stamps = [m["timestamp"] for m in messages.values()]
    stamps += [c["timestamp"] for c in calls.values() if "timestamp" in c]
    return _figures(uncached=given - cached + sum(t.get("tool", 0) for t in used),
                    cache_read=cached,
                    output=sum(t["output"] + t.get("thoughts", 0) for t in used),
                    tool_calls=len(calls), iterations=len(used), seconds=_seconds(stamps),
                    models={m["model"] for m in replies if m.get("model")})


def read(format_name: str, files: list[Path]) -> dict[str, Any]:
    """The figures of one transcript (``files[0]``; Claude Code: with its sub-agent files)."""
    if format_name == "claude-code":
        return claude_code(files)
    readers = {"codex": codex, "aider-history": aider_history, "aider": aider_analytics,
               "openhands": openhands, "swe-agent": swe_agent, "atif": atif,
               "gemini-cli": gemini_cli}
    return readers[format_name](files[0])
