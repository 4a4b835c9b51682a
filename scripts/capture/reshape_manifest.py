"""Rewrite manifest entries of captured files from the shapes each capture first had into the
one shape ``tests/transcripts/corpus/README.md`` gives ("Manifest entries of files written
here by a real tool").

Run once over ``tests/transcripts/corpus/manifest.json`` (2026-11-27), and again if entries
in an older shape are merged in: an entry already in the shape is left as it is. The old
shapes: Claude Code's (``origin.captured_with``, ``version``, ``mode``, ``foreground_agent``,
``ground_truth.all_calls``/``session_calls``), Codex's (``origin.capture``, ``driver``,
``commands``, no ground truth), Gemini CLI's (``ground_truth.scope``, ``replies``) and
openai_chat's (top-level ``tool_calls_are``). Figures a file cannot carry get the reason
written below (from each entry's note); the script stops if a figure differs from the bill
without a reason, or has one and does not differ.

Usage::

    python3 scripts/capture/reshape_manifest.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "transcripts" / "corpus"
KEYS = ("uncached", "cache_read", "cache_write", "output", "tool_calls", "iterations", "models")


def _claude(log: Any, entry: Any) -> dict[str, Any]:
    return dict(log["all_calls"])


def _codex(log: Any, entry: Any) -> dict[str, Any]:
    billed = [r for r in log if r.get("status") == "billed"]
    usage = [r["usage"] for r in billed]
    return {
        "uncached": sum(
            u["input_tokens"] - u["cached_tokens"] - u.get("cache_write_tokens", 0) for u in usage
        ),
        "cache_read": sum(u["cached_tokens"] for u in usage),
        "cache_write": sum(u.get("cache_write_tokens", 0) for u in usage),
        "output": sum(u["output_tokens"] for u in usage),
        "tool_calls": sum(r["item"]["kind"] != "message" for r in billed),
        "iterations": len(billed),
        "models": sorted({r["model"] for r in billed}),
    }


def _gemini(log: Any, entry: Any) -> dict[str, Any]:
    sums = log["totals"]["all"]
    return {
        "uncached": sums["uncached"],
        "cache_read": sums["cache_read"],
        "cache_write": sums["cache_write"],
        "output": sums["output"],
        "tool_calls": log["totals"]["tool_calls"],
        "iterations": sums["replies"],
        "models": sorted({b["model"] for b in log["billed"] if b.get("model")}),
    }


def load(path: Path) -> Any:
    text = path.read_text()
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


EXEC = {
    "iterations": "the `--json` output shows one `turn.completed` per turn, not each reply",
    "models": "the `--json` output names no model",
}
SIDE_20 = "the 6 side calls on haiku are written nowhere: 13 of the 19 calls"
SIDE_10 = "the 6 side calls on claude-3-5-haiku are written nowhere: 10 of the 16 calls"
LOWER = "a lower bound: each block's line is written before the reply's final output count"
ROUNDED = "rounded: Aider prints each line's figures to 0.1k (within 50 a reply)"
REASONS = {
    # Gemini CLI
    "gemini-cli-0.28.2-session/": {
        k: (
            "the 4th reply was joined to the message before and its usage not kept"
            " (one usage per message before 0.32)"
        )
        for k in ("uncached", "cache_read", "output", "iterations")
    },
    "gemini-cli-0.61.0-stream-json-plain/stdout": {
        "iterations": "stream-json shows the run's totals, not each model call"
    },
    "gemini-cli-0.61.0-auto-stream-json/stdout": {
        "iterations": "stream-json shows the run's totals, not each model call"
    },
    "gemini-cli-0.61.0-auto-json/session": {
        k: "the model router's side call (gemini-3.5-flash-lite) is recorded in no session file"
        for k in ("uncached", "output", "iterations", "models")
    },
    # Codex
    "codex-0.169.0-json/exec": EXEC,
    "codex-0.169.0-cachewrite/exec": EXEC,
    "codex-0.169.0-fail500/exec": EXEC,
    "codex-0.169.0-task/exec": EXEC,
    "codex-0.169.0-compact/exec": EXEC,
    "codex-0.80.0-json/exec": EXEC,
    "codex-0.169.0-resume/resume": {
        **EXEC,
        "tool_calls": "its items are the resumed run's only (1 tool call of the thread's 5)",
    },
    "codex-0.80.0-resume/resume": {
        **EXEC,
        "tool_calls": "its items are the resumed run's only (1 tool call of the thread's 5)",
    },
    "codex-0.39.0-resume/resume": {
        k: "Codex 0.39 counts the resumed run alone (replies 6-7)"
        for k in ("uncached", "cache_read", "output", "tool_calls", "iterations")
    },
    "codex-0.169.0-spawn/exec": {
        **EXEC,
        **{
            k: "the sub-agent's 2 replies (1 tool call) are in its rollout only, named as unread"
            for k in ("uncached", "cache_read", "output", "tool_calls")
        },
    },
    "codex-0.39.0-compact/": {
        k: (
            "Codex 0.39 records no usage for the summarization call"
            " (reply 6: a `compacted` line, no `token_count`)"
        )
        for k in ("uncached", "cache_read", "output", "iterations")
    },
    # Claude Code
    "claude-code-2.1.328-json/": {"tool_calls": "the json result shows no tool call"},
    "claude-code-2.1.328-interrupt/stream": {
        "output": (
            "the stalled 4th reply is counted by its first event's output (1 of the 191 billed)"
        ),
        "tool_calls": "the stalled reply's tool call never came",
        "iterations": "3 finished replies shown of the 4 calls",
    },
    "claude-code-2.1.328-interrupt/d4ad": {
        k: "the stalled 4th reply wrote no line" for k in KEYS[:6]
    },
    "claude-code-2.0.77-session/": {
        **{k: SIDE_20 for k in ("uncached", "cache_read", "cache_write", "iterations")},
        "output": SIDE_20 + "; " + LOWER,
    },
    "claude-code-2.0.77-stream-json/": {
        "iterations": "warm-ups and side calls are not printed: 10 replies of the 19 calls"
    },
    "claude-code-2.0.77-interrupt/": {
        **{
            k: "the side calls are written nowhere and the stalled 4th reply wrote no line"
            for k in ("uncached", "cache_read", "cache_write", "iterations")
        },
        "output": "the side calls and the stalled reply are in no line; " + LOWER,
        "tool_calls": "the stalled reply's tool call never came",
    },
    "claude-code-1.0.128-session/": {
        **{k: SIDE_10 for k in ("uncached", "cache_read", "cache_write", "iterations")},
        "output": SIDE_10 + "; " + LOWER,
        "models": "claude-3-5-haiku (the side calls' model) is in no line",
    },
    "claude-code-1.0.128-stream-json/": {
        "iterations": (
            "9 replies printed of the 16 calls: side calls are not, nor the sub-agent's last"
            " reply (and 1.0 reports no usage for it)"
        )
    },
    "claude-code-1.0.128-json/": {
        "tool_calls": "the json result shows no tool call",
        "iterations": (
            "num_turns (21) is 1.0's count of the conversation's messages less one, not its"
            " calls, and is all the file has"
        ),
    },
}


def reasons_for(file: str) -> dict[str, str]:
    found = [value for key, value in REASONS.items() if key in file]
    assert len(found) <= 1, file
    return dict(found[0]) if found else {}


def reshaped(e: dict[str, Any]) -> dict[str, Any]:
    o = e["origin"]
    folder = "/".join(e["file"].split("/")[:2])
    new = {k: e[k] for k in ("file", "subagent_files", "format")}
    if "captured_with" in o:  # Claude Code
        log = load(CORPUS / folder / "ground_truth.json")
        assert log["command"] == o["command"], e["file"]
        assert log["version"].split()[0] == o["version"] and log["mode"] == o["mode"], e["file"]
        cmd = (
            "python3 scripts/capture/claude_code.py --claude <claude>"
            f" --mode {o['mode']} --out <dir>"
            + (" --foreground-agent" if o["foreground_agent"] else "")
        )
        origin = {
            "captured": o["captured_with"],
            "tool": f"Claude Code {o['version']} (npm)",
            "command": cmd,
            "ground_truth": f"{folder}/ground_truth.json",
        }
        truth = dict(e["ground_truth"]["all_calls"])
        assert truth == _claude(log, e)
        differs = reasons_for(e["file"])
    elif "capture" in o:  # Codex
        commands = (CORPUS / folder / "commands.txt").read_text()
        for c in o["commands"]:  # the codex commands are in commands.txt beside the files
            assert c.split("'")[0].split()[-1] in commands, (c, commands)
        origin = {
            "captured": o["capture"],
            "tool": o["tool"],
            "command": o["driver"],
            "ground_truth": f"{folder}/ground-truth.jsonl",
        }
        truth = _codex(load(CORPUS / folder / "ground-truth.jsonl"), e)
        differs = reasons_for(e["file"])
    elif o["captured"] == "scripts/capture/gemini_cli.py":
        origin = dict(o)
        truth = _gemini(load(CORPUS / o["ground_truth"]), e)
        g = e["ground_truth"]
        if g["scope"] == "all":
            assert [g[k] for k in KEYS if k != "iterations"] == [
                truth[k] for k in KEYS if k != "iterations"
            ] and g["replies"] == truth["iterations"], e["file"]
        differs = reasons_for(e["file"])
    else:  # openai_chat
        origin = {**o, "tool_calls_are": e["tool_calls_are"]}
        truth = dict(e["ground_truth"])
        differs = dict(e["differs"])
        if e.get("rounded"):
            assert e["rounded"] == 50
            for k in ("uncached", "cache_read", "cache_write", "output"):
                if k not in differs and e["expected"][k] != truth[k]:
                    differs[k] = ROUNDED
    assert set(truth) == set(KEYS), e["file"]
    x = e["expected"]
    wrong = {k for k in KEYS if (x[k] != truth[k]) != (k in differs)}
    assert not wrong, (e["file"], wrong, {k: (x[k], truth[k]) for k in wrong})
    new.update(
        origin=origin,
        note=e["note"],
        expected=x,
        ground_truth=truth,
        differs={k: differs[k] for k in KEYS if k in differs},
    )
    if e.get("rounded"):
        new["rounded"] = e["rounded"]
    return new


def main() -> None:
    path = CORPUS / "manifest.json"
    entries = json.loads(path.read_text())
    done = [
        e
        if "repo" in e["origin"]
        or (
            "captured" in e["origin"]
            and "tool_calls_are" not in e
            and set(e["ground_truth"]) == set(KEYS)
        )
        else reshaped(e)
        for e in entries
    ]
    path.write_text(json.dumps(done, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
