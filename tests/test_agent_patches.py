"""Real agents' patches (tests/data/agent_patches, provenance in its README) against git.

For every patch, as the agent wrote it and mangled the ways a contributor's tools mangle a
patch before it is submitted (CRLF line ends, a Markdown fence, prose around it, the last
newline stripped, ``diff -u`` headers, ...), the parser agrees with ``git apply``: what it
accepts git reads, with the same changed paths; what git reads and it refuses, it refuses for
a stated rule (a binary, a symbolic link, names without a/ b/), never as a parse failure.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from arena_bot.intake.patches import ProtectedPaths, is_test_path, load_patch, parse_patch
from arena_bot.intake.transcripts.redact import secrets_in_patch
from arena_bot.merge.patchfilter import drop_test_files

CORPUS = Path(__file__).parent / "data" / "agent_patches" / "patches.jsonl.gz"
#: Refusals that are rules, not parse failures: git would apply these patches.
STATED_RULES = frozenset({"binary", "symlink", "submodule", "unsafe-path"})


@cache
def patches() -> tuple[dict[str, Any], ...]:
    lines = gzip.decompress(CORPUS.read_bytes()).decode("utf-8").splitlines()
    return tuple(json.loads(line) for line in lines)


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _diff_u(text: str) -> str | None:
    """The patch as ``diff -u`` writes it: no git headers (renames and modes have none)."""
    if re.search(r"(?m)^(rename |copy |old mode |similarity )", text):
        return None
    return re.sub(r"(?m)^(diff --git .*|index .*|new file mode .*|deleted file mode .*)\n", "",
                  text)


def _timestamps(text: str) -> str | None:
    plain = _diff_u(text)
    return None if plain is None else re.sub(
        r"(?m)^(---|\+\+\+) (\S+)$", r"\1 \2\t2024-05-01 12:00:00.000000000 +0000", plain)


#: How a patch reaches the submission folder; ``None``: not expressible for this patch.
MANGLINGS: dict[str, Callable[[str], str | None]] = {
    "as written": lambda text: text,
    "crlf": lambda text: _lf(text).replace("\n", "\r\n"),
    "markdown fence": lambda text: f"```diff\n{text}{'' if text.endswith(chr(10)) else chr(10)}```",
    "prose before": lambda text: "Here is the patch:\n\n" + text,
    "prose after": lambda text: text + "\nThis patch fixes the issue.\n",
    "last newline stripped": lambda text: text.rstrip("\n"),
    "stripped": str.strip,
    "no index lines": lambda text: re.sub(r"(?m)^index [0-9a-f]+\.\.[0-9a-f]+( [0-7]+)?\n", "",
                                          text),
    "diff -u": _diff_u,
    "diff -u with dates": _timestamps,
    "trailing blanks removed": lambda text: "\n".join(
        line.rstrip(" \t") for line in text.split("\n")),
    "no prefix": lambda text: re.sub(r"(?m)^(diff --git )a/(\S+) b/", r"\1\2 ",
                                     re.sub(r"(?m)^(---|\+\+\+) [ab]/", r"\1 ", text)),
}


def _git_paths(text: str, cwd: Path) -> set[str] | None:
    """The paths ``git apply --numstat -z`` reports, or ``None`` when git refuses the patch."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    done = subprocess.run(["git", "apply", "--numstat", "-z", "-"], input=text.encode(),
                          cwd=cwd, env=env, capture_output=True, check=False)
    if done.returncode != 0:
        return None
    paths: set[str] = set()
    for field in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if field.count("\t") >= 2:
            paths.add(field.split("\t", 2)[2])  # "" for a rename: its names follow
        elif field:
            paths.add(field)
    return paths - {""}


def test_the_corpus_is_the_one_the_readme_describes() -> None:
    readme = (CORPUS.parent / "README.md").read_text()
    assert f"{len(patches())} patches" in readme
    for record in patches():
        assert f"{record['repo']} @ {record['commit'][:7]}" in readme, record["name"]


def test_every_patch_gets_its_recorded_verdict(tmp_path: Path) -> None:
    """The validator's reading of each file (bytes as committed): problems, protected
    paths, secrets. Refusals here are rules: binary files, a symlink, tox.ini, secrets."""
    wrong = []
    for number, record in enumerate(patches()):
        path = tmp_path / f"{number}.patch"
        path.write_bytes(record["text"].encode("utf-8"))
        patch = load_patch(path)
        got = {
            "problems": sorted({p.code for p in patch.problems}),
            "protected": sorted({v.path for v in ProtectedPaths().violations(patch)}),
            "secrets": sorted({name for name, _, _ in secrets_in_patch(patch.text)})
            if patch.files else [],
        }
        if got != record["expect"]:
            wrong.append((record["name"], got, record["expect"]))
    assert not wrong, wrong


@pytest.mark.parametrize("mangling", list(MANGLINGS))
def test_the_parser_agrees_with_git_apply(tmp_path: Path, mangling: str) -> None:
    disagreements = []
    for record in patches():
        text = MANGLINGS[mangling](record["text"])
        if text is None:
            continue
        ours = parse_patch(text)
        git = _git_paths(text, tmp_path)
        if ours.ok and git != set(ours.paths):
            # None: accepted here, then git apply fails on it at evaluation.
            disagreements.append((record["name"], "paths", git, ours.paths))
        elif not ours.ok and git is not None:
            unstated = {p.code for p in ours.problems} - STATED_RULES
            if unstated:
                disagreements.append((record["name"], "refused", [
                    (p.code, p.message, p.line) for p in ours.problems]))
    assert not disagreements, disagreements


@pytest.mark.parametrize("mangling", ["as written", "markdown fence", "prose before", "crlf"])
def test_dropping_test_files_leaves_what_git_reads(tmp_path: Path, mangling: str) -> None:
    """The merge drops an agent's test files: what is left git reads, with exactly the other
    paths (or nothing is left, which the merge calls an empty patch)."""
    checked = 0
    for record in patches():
        text = MANGLINGS[mangling](record["text"])
        assert text is not None
        if not parse_patch(text).ok:
            continue
        all_paths = _git_paths(text, tmp_path) or set()
        kept = {path for path in all_paths if not is_test_path(path)}
        filtered = drop_test_files(text)
        if filtered.is_empty:
            assert not kept, (record["name"], kept)
            continue
        assert _git_paths(filtered.text, tmp_path) == kept, record["name"]
        checked += 1
    assert checked > len(patches()) // 2
