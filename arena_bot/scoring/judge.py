"""LLM judges (seed 004 §4.5, §4.6) over any OpenAI-compatible chat completions endpoint.

Parsing is strict: an answer without exactly the expected score is an error, never a guess.
Answers are cached on disk by the hash of everything that was sent (model, temperature,
messages), so rescoring never calls the model twice for one input. The endpoint and model
come from arena.yaml's ``judge`` section and the environment
(:func:`arena_bot.app.scoring.judge_for`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from arena_bot.core.errors import JudgeError
from arena_bot.core.files import write_atomically

if TYPE_CHECKING:  # imported where a request is made: every `arena score` imports this
    import requests  # module, and requests alone took a tenth of a second to load

#: Seed 004: LLM judge temperature 0.1, code judge 0.3.
LLM_JUDGE_TEMPERATURE = 0.1
CODE_JUDGE_TEMPERATURE = 0.3
#: Seed 004 §8: 2 minutes per request, at most 2 retries, backoff 400 ms × (attempt + 1).
REQUEST_TIMEOUT = 120.0
MAX_RETRIES = 2
BACKOFF_SECONDS = 0.4
#: Seed 004 §4.6.
CODE_JUDGE_WEIGHTS = MappingProxyType(
    {"visual_accuracy": 0.40, "code_quality": 0.30, "functionality": 0.20, "responsiveness": 0.10}
)
#: Long texts are cut before they are sent (the verdict notes it).
MAX_JUDGED_CHARS = 20_000
#: Bump when prompts change: cached answers to old prompts must not be reused.
PROMPT_VERSION = 1

@dataclass(frozen=True)
class ChatMessage:
    role: Literal["system", "user", "assistant"]
    content: str


class ChatClient:
    """A minimal OpenAI-compatible ``/chat/completions`` client."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = REQUEST_TIMEOUT,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        import requests

        self.base_url, self.model, self._api_key = base_url, model, api_key
        self.timeout = timeout
        self._session = requests.Session()
        self._sleep = sleep

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def complete(self, *, messages: list[ChatMessage], temperature: float) -> str:
        """The assistant's answer text; JudgeError when it stays empty or the call fails."""
        import requests

        payload: dict[str, Any] = {
            "model": self.model,
            "temperature": temperature,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
        }
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        problem = "no attempt made"
        for attempt in range(MAX_RETRIES + 1):
            if attempt:
                self._sleep(BACKOFF_SECONDS * attempt)  # 400 ms × (previous attempt + 1)
            try:
                response = self._session.post(
                    self.url, json=payload, headers=headers, timeout=self.timeout
                )
            except requests.Timeout:
                raise JudgeError(
                    f"judge did not answer within {self.timeout:g} s",
                    hint=f"check the endpoint {self.url}",
                ) from None
            except requests.RequestException as exc:
                problem = f"cannot reach the judge at {self.url}: {exc.__class__.__name__}"
                continue
            if response.status_code == 429 or response.status_code >= 500:
                problem = f"judge endpoint answered HTTP {response.status_code}"
                continue
            if response.status_code >= 400:
                raise JudgeError(
                    f"judge endpoint refused the request: HTTP {response.status_code}",
                    hint="check ARENA_JUDGE_URL, ARENA_JUDGE_MODEL and ARENA_JUDGE_API_KEY",
                )
            content = _content_of(response)
            if content.strip():
                return content
            problem = "judge returned an empty answer"
        raise JudgeError(f"{problem} (after {MAX_RETRIES + 1} attempts)")


def _content_of(response: requests.Response) -> str:
    try:
        body = response.json()
        content = body["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise JudgeError(
            "judge endpoint did not answer in the OpenAI chat completions shape "
            "(choices[0].message.content)"
        ) from None
    return content if isinstance(content, str) else ""


class JudgeCache:
    """Answers on disk under ``root/<aa>/<sha256>.json``, keyed by the request's hash."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @staticmethod
    def key(*, model: str, temperature: float, messages: list[ChatMessage]) -> str:
        canonical = json.dumps(
            {
                "prompt_version": PROMPT_VERSION,
                "model": model,
                "temperature": temperature,
                "messages": [[m.role, m.content] for m in messages],
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # none yet, or a foreign file: ask again, overwrite it
            return None
        answer = data.get("answer") if isinstance(data, dict) else None
        return answer if isinstance(answer, str) else None

    def put(self, key: str, answer: str) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps({"answer": answer}, ensure_ascii=False).encode())


@dataclass(frozen=True)
class JudgeVerdict:
    """A judge's score: ``score`` on 0..1, ``raw`` on the judge's own scale."""

    score: float
    raw: float
    scale: float
    explanation: str
    cached: bool
    truncated: bool = False


LLM_JUDGE_SYSTEM = """You are a strict grader.
Score the RESPONSE against the RUBRIC on a 0-10 scale:
10 = perfect, fully correct and complete; 8-9 = excellent with minor issues;
6-7 = good but missing elements; 4-5 = partially correct, significant issues;
2-3 = mostly incorrect; 0-1 = completely wrong, empty or irrelevant.
Explain briefly, then end with one line exactly of the form: SCORE: <number from 0 to 10>"""

CODE_JUDGE_SYSTEM = """You are a strict reviewer of front-end code. Rate the CODE against the RUBRIC
on four criteria, each 0-100: visual_accuracy, code_quality, functionality, responsiveness.
Answer with one JSON object and nothing else, for example:
{"visual_accuracy": 80, "code_quality": 70, "functionality": 90, "responsiveness": 60,
 "explanation": "one or two sentences"}"""

_SCORE_LINE = re.compile(
    r"^\s*\**\s*score\s*\**\s*[:=]\s*\**\s*(?P<value>-?\d+(?:\.\d+)?)\s*\**\s*(?:/\s*10)?\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def parse_llm_score(answer: str) -> float:
    """The 0–10 score of an LLM judge answer: exactly one ``SCORE: n`` line, 0 <= n <= 10."""
    values = {float(m.group("value")) for m in _SCORE_LINE.finditer(answer)}
    if not values:
        raise JudgeError("judge answer has no 'SCORE: <0-10>' line")
    if len(values) > 1:
        raise JudgeError(f"judge answer gives several different scores: {sorted(values)}")
    value = values.pop()
    if not 0.0 <= value <= 10.0:
        raise JudgeError(f"judge score {value:g} is outside 0..10")
    return value


def parse_code_scores(answer: str) -> tuple[float, str]:
    """The weighted 0–100 code judge score: a JSON object with the four criteria."""
    match = _JSON_OBJECT.search(answer)
    if match is None:
        raise JudgeError("code judge answer holds no JSON object")
    try:
        data = json.loads(match.group())
    except ValueError:
        raise JudgeError("code judge answer is not valid JSON") from None
    if not isinstance(data, dict):
        raise JudgeError("code judge answer is not a JSON object")
    total = 0.0
    for name, weight in CODE_JUDGE_WEIGHTS.items():
        value = data.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise JudgeError(f"code judge answer lacks a numeric {name!r}")
        if not (math.isfinite(value) and 0 <= value <= 100):
            raise JudgeError(f"code judge {name!r} = {value} is outside 0..100")
        total += weight * float(value)
    explanation = data.get("explanation")
    return total, explanation if isinstance(explanation, str) else ""


class Judge:
    """Seed 004's LLM judge and code judge, with the answer cache in front of the client."""

    def __init__(self, client: ChatClient, *, cache: JudgeCache | None) -> None:
        self.client = client
        self.cache = cache

    @property
    def model(self) -> str:
        return self.client.model

    def _ask(
        self, system: str, request: str, text: str, temperature: float
    ) -> tuple[str, bool, bool]:
        """The answer to ``request`` + ``text`` (cut to MAX_JUDGED_CHARS), whether it came
        from the cache, and whether the text was cut."""
        messages = [
            ChatMessage("system", system),
            ChatMessage("user", request + text[:MAX_JUDGED_CHARS]),
        ]
        truncated = len(text) > MAX_JUDGED_CHARS
        key = JudgeCache.key(model=self.model, temperature=temperature, messages=messages)
        if self.cache is not None:
            cached = self.cache.get(key)
            if cached is not None:
                return cached, True, truncated
        answer = self.client.complete(messages=messages, temperature=temperature)
        if self.cache is not None:
            self.cache.put(key, answer)
        return answer, False, truncated

    def llm(self, *, rubric: str, text: str) -> JudgeVerdict:
        """Seed 004 §4.5: 0–10 → score/10."""
        answer, cached, truncated = self._ask(
            LLM_JUDGE_SYSTEM, f"RUBRIC:\n{rubric}\n\nRESPONSE:\n", text, LLM_JUDGE_TEMPERATURE
        )
        raw = parse_llm_score(answer)
        return JudgeVerdict(
            score=raw / 10.0, raw=raw, scale=10.0, explanation=" ".join(answer.split())[:300],
            cached=cached, truncated=truncated,
        )

    def code(self, *, rubric: str, text: str) -> JudgeVerdict:
        """Seed 004 §4.6: Σ weight · criterion on 0–100 → /100."""
        answer, cached, truncated = self._ask(
            CODE_JUDGE_SYSTEM, f"RUBRIC:\n{rubric}\n\nCODE:\n", text, CODE_JUDGE_TEMPERATURE
        )
        raw, explanation = parse_code_scores(answer)
        return JudgeVerdict(
            score=raw / 100.0, raw=raw, scale=100.0, explanation=explanation,
            cached=cached, truncated=truncated,
        )


def build_judge(
    *, base_url: str | None, model: str | None, api_key: str | None, cache_dir: Path | None
) -> Judge | None:
    """A judge from settings, or ``None`` when no endpoint is configured."""
    if not base_url or not model:
        return None
    cache = JudgeCache(cache_dir / "judge") if cache_dir is not None else None
    return Judge(ChatClient(base_url=base_url, model=model, api_key=api_key), cache=cache)
