"""Runs action.yml's composite steps the way a GitHub runner does, without GitHub.

Each ``run:`` step is written to a file and executed with ``bash --noprofile --norc -eo
pipefail FILE`` (GitHub's ``shell: bash``) in the workspace, with a runner's environment:
``GITHUB_EVENT_NAME``, ``GITHUB_EVENT_PATH``, a fresh ``GITHUB_OUTPUT`` per step,
``GITHUB_STEP_SUMMARY``, ``GITHUB_ENV`` (applied to the later steps), ``RUNNER_TEMP``,
``GITHUB_ACTION_PATH``, ``GITHUB_WORKSPACE`` and the step's own ``env:`` with its ``${{ }}``
expressions evaluated (``inputs``, ``github.event``, ``github.token``, ``runner.temp``,
``steps.<id>.outputs``).
A ``uses:`` step runs JavaScript on GitHub; the only one the action has, actions/setup-python,
is stood in for by giving its ``python-path`` output (a Python already here). An expression
or ``uses:`` this runner does not know fails loudly, so a change to action.yml cannot slip
past it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPR = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


@dataclass
class ActionRun:
    """What one use of the action did."""

    outputs: dict[str, str]
    steps: dict[str, dict[str, str]]
    log: str
    returncode: int
    summary: str


@dataclass
class Runner:
    """A runner for one repository's jobs: the action's folder, the Python setup-python
    would give, and the environment every job sees (the API URL, the repository, ...)."""

    action_path: Path
    python: str
    env: dict[str, str] = field(default_factory=dict)
    token: str = "ghs_runner_token"

    def action(self) -> dict[str, Any]:
        text = (self.action_path / "action.yml").read_text(encoding="utf-8")
        data = yaml.load(text, Loader=yaml.BaseLoader)  # `on`-style keys stay strings
        assert isinstance(data, dict)
        return data

    def run(self, workspace: Path, temp: Path, event: Path, inputs: dict[str, str],
            *, event_name: str, skip: frozenset[str] = frozenset(),
            timeout: float = 1200) -> ActionRun:
        """Run every step of the action in ``workspace`` with ``inputs`` (the workflow's
        ``with:``) for a job triggered by ``event_name`` (GITHUB_EVENT_NAME) with payload
        ``event``; ``temp`` is the job's RUNNER_TEMP. ``skip``: ids of steps not run (a
        later job reusing what an earlier one installed into the same RUNNER_TEMP)."""
        action = self.action()
        payload = json.loads(event.read_text(encoding="utf-8"))
        temp.mkdir(parents=True, exist_ok=True)
        summary = temp / "step-summary.md"
        summary.write_text("")
        github_env = temp / "github-env"
        github_env.write_text("")
        values = self._inputs(action, inputs, payload, temp)
        steps: dict[str, dict[str, str]] = {}
        log: list[str] = []
        for number, step in enumerate(action["runs"]["steps"]):
            context = {"inputs": values, "event": payload, "temp": temp, "steps": steps}
            step_id = step.get("id", f"step{number}")
            if step_id in skip:
                log.append(f"--- step {step_id}: skipped")
                steps[step_id] = {}
                continue
            if "uses" in step:
                steps[step_id] = self._uses(step, context)
                continue
            outputs = temp / f"output-{number}"
            outputs.write_text("")
            env = {
                "PATH": "/usr/local/bin:/usr/bin:/bin",
                "HOME": os.environ.get("HOME", "/root"),
                "LANG": "C.UTF-8",
                "CI": "true",
                "GITHUB_ACTIONS": "true",
                "RUNNER_TEMP": str(temp),
                "GITHUB_ACTION_PATH": str(self.action_path),
                "GITHUB_WORKSPACE": str(workspace),
                "GITHUB_EVENT_NAME": event_name,
                "GITHUB_EVENT_PATH": str(event),
                "GITHUB_OUTPUT": str(outputs),
                "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_ENV": str(github_env),
                **self.env,
                **_read_env_file(github_env),
            }
            for key, value in step.get("env", {}).items():
                env[key] = _evaluate(value, context, self.token)
            assert step.get("shell") == "bash", f"step {step_id}: only shell: bash is run here"
            script = temp / f"step-{number}.sh"
            script.write_text(step["run"], encoding="utf-8")
            started = time.monotonic()
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=workspace, env=env, capture_output=True, text=True, check=False,
                timeout=timeout,
            )
            log.append(f"--- step {step_id} ({time.monotonic() - started:.1f} s)\n"
                       f"{done.stdout}{done.stderr}")
            steps[step_id] = _read_env_file(outputs)
            if done.returncode != 0:
                return ActionRun(outputs={}, steps=steps, log="\n".join(log),
                                 returncode=done.returncode, summary=summary.read_text())
        context = {"inputs": values, "event": payload, "temp": temp, "steps": steps}
        results = {name: _evaluate(spec["value"], context, self.token)
                   for name, spec in action.get("outputs", {}).items()}
        return ActionRun(outputs=results, steps=steps, log="\n".join(log), returncode=0,
                         summary=summary.read_text())

    def _inputs(self, action: dict[str, Any], given: dict[str, str], payload: Any,
                temp: Path) -> dict[str, str]:
        declared = action.get("inputs", {})
        unknown = set(given) - set(declared)
        assert not unknown, f"inputs the action does not declare: {sorted(unknown)}"
        values: dict[str, str] = {}
        context = {"inputs": values, "event": payload, "temp": temp, "steps": {}}
        for name, spec in declared.items():
            if name in given:
                values[name] = given[name]
            else:
                assert spec.get("required") != "true", f"required input {name} not given"
                values[name] = _evaluate(spec.get("default", ""), context, self.token)
        return values

    def _uses(self, step: dict[str, Any], context: dict[str, Any]) -> dict[str, str]:
        name = step["uses"].split("@", 1)[0]
        assert name == "actions/setup-python", f"no stand-in for {step['uses']}"
        wanted = _evaluate(step["with"]["python-version"], context, self.token)
        found = subprocess.run([self.python, "-c", "import sys; print('%d.%d' % "
                                "sys.version_info[:2])"], capture_output=True, text=True,
                               check=True).stdout.strip()
        assert found == wanted, f"setup-python asks for {wanted}; this Python is {found}"
        return {"python-path": self.python, "python-version": found}


def _evaluate(text: str, context: dict[str, Any], token: str) -> str:
    def one(match: re.Match[str]) -> str:
        expression = match.group(1)
        parts = expression.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            return str(context["inputs"][parts[1]])
        if parts[:2] == ["github", "token"] and len(parts) == 2:
            return token
        if parts[:2] == ["github", "event"]:
            value: Any = context["event"]
            for part in parts[2:]:
                value = value.get(part) if isinstance(value, dict) else None
            return "" if value is None else str(value)
        if parts == ["runner", "temp"]:
            return str(context["temp"])
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return context["steps"].get(parts[1], {}).get(parts[3], "")
        raise AssertionError(f"this runner cannot evaluate ${{{{ {expression} }}}}")

    return _EXPR.sub(one, text)


def _read_env_file(path: Path) -> dict[str, str]:
    """``name=value`` lines and ``name<<DELIMITER`` blocks (GITHUB_OUTPUT / GITHUB_ENV)."""
    values: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block = []
            i += 1
            while lines[i] != delimiter:
                block.append(lines[i])
                i += 1
            values[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        i += 1
    return values
