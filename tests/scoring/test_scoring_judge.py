"""The judge client against a real HTTP server on 127.0.0.1 (see conftest.chat_server)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.chat_server import ChatServer, Reply

from arena_bot.app.scoring import judge_for
from arena_bot.core.config import JudgeConfig
from arena_bot.core.errors import JudgeError
from arena_bot.core.settings import Settings
from arena_bot.scoring.judge import (
    ChatClient,
    ChatMessage,
    Judge,
    JudgeCache,
    build_judge,
    parse_code_scores,
    parse_llm_score,
)


class SleepRecorder:
    """Records the waits between retries instead of sleeping (keeps the suite fast)."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def make_judge(server: ChatServer, tmp_path: Path | None, sleep: SleepRecorder) -> Judge:
    cache = JudgeCache(tmp_path / "judge") if tmp_path is not None else None
    client = ChatClient(base_url=server.url, model="judge-1", api_key="sk-test", sleep=sleep)
    return Judge(client, cache=cache)


def test_llm_judge_sends_openai_shape_and_parses_score(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.replies = [Reply(content="Mostly right.\nSCORE: 8")]
    verdict = make_judge(chat_server, tmp_path, SleepRecorder()).llm(
        rubric="Expected: Paris", text="Paris"
    )
    assert verdict.score == 0.8 and verdict.raw == 8 and not verdict.cached
    request = chat_server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["model"] == "judge-1"
    assert request["temperature"] == 0.1
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert "Paris" in request["messages"][1]["content"]
    assert chat_server.headers[0]["Authorization"] == "Bearer sk-test"


def test_cache_means_a_second_scoring_never_calls_the_model(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    chat_server.replies = [Reply(content="SCORE: 6")]
    judge = make_judge(chat_server, tmp_path, SleepRecorder())
    first = judge.llm(rubric="r", text="t")
    # A new judge over the same cache folder: answers come from disk.
    again = make_judge(chat_server, tmp_path, SleepRecorder()).llm(rubric="r", text="t")
    assert len(chat_server.requests) == 1
    assert again.cached and again.score == first.score == 0.6
    judge.llm(rubric="r", text="other text")
    assert len(chat_server.requests) == 2


def test_empty_answers_are_retried_with_backoff(chat_server: ChatServer) -> None:
    chat_server.replies = [Reply(content=""), Reply(content="   "), Reply(content="SCORE: 10")]
    sleep = SleepRecorder()
    verdict = make_judge(chat_server, None, sleep).llm(rubric="r", text="t")
    assert verdict.score == 1.0
    assert len(chat_server.requests) == 3
    assert sleep.waits == pytest.approx([0.4, 0.8])  # 400 ms × (attempt + 1)


def test_empty_answers_give_up_after_two_retries(chat_server: ChatServer) -> None:
    chat_server.replies = [Reply(content="")]
    sleep = SleepRecorder()
    with pytest.raises(JudgeError, match="empty answer"):
        make_judge(chat_server, None, sleep).llm(rubric="r", text="t")
    assert len(chat_server.requests) == 3
    assert len(sleep.waits) == 2


def test_server_errors_are_retried_and_client_errors_are_not(chat_server: ChatServer) -> None:
    chat_server.replies = [Reply(status=503, body="{}"), Reply(content="SCORE: 3")]
    assert make_judge(chat_server, None, SleepRecorder()).llm(rubric="r", text="t").raw == 3
    chat_server.requests.clear()
    chat_server.replies = [Reply(status=401, body='{"error": "bad key"}')]
    with pytest.raises(JudgeError, match="HTTP 401"):
        make_judge(chat_server, None, SleepRecorder()).llm(rubric="r", text="t")
    assert len(chat_server.requests) == 1


def test_wrong_response_shape_is_a_clear_error(chat_server: ChatServer) -> None:
    chat_server.replies = [Reply(body='{"result": "SCORE: 5"}')]
    with pytest.raises(JudgeError, match="chat completions shape"):
        make_judge(chat_server, None, SleepRecorder()).llm(rubric="r", text="t")


def test_timeout_is_reported(chat_server: ChatServer) -> None:
    import time

    def slow(payload: object) -> Reply:
        time.sleep(0.5)
        return Reply(content="SCORE: 5")

    chat_server.responder = slow
    client = ChatClient(base_url=chat_server.url, model="m", timeout=0.1)
    with pytest.raises(JudgeError, match="did not answer within"):
        client.complete(messages=[ChatMessage("user", "hi")], temperature=0.1)


def test_unreachable_endpoint(tmp_path: Path) -> None:
    sleep = SleepRecorder()
    with pytest.raises(JudgeError, match="cannot reach"):
        ChatClient(base_url="http://127.0.0.1:9", model="m", sleep=sleep).complete(
            messages=[ChatMessage("user", "hi")], temperature=0.1
        )
    assert len(sleep.waits) == 2


def test_code_judge_weights_and_temperature(chat_server: ChatServer) -> None:
    chat_server.replies = [Reply(content=(
        'Here: ```json\n{"visual_accuracy": 100, "code_quality": 50, "functionality": 80, '
        '"responsiveness": 0, "explanation": "ok"}\n```'
    ))]
    verdict = make_judge(chat_server, None, SleepRecorder()).code(rubric="r", text="<div/>")
    assert verdict.raw == pytest.approx(0.4 * 100 + 0.3 * 50 + 0.2 * 80 + 0.1 * 0)
    assert verdict.score == pytest.approx(0.71)
    assert chat_server.requests[0]["temperature"] == 0.3


@pytest.mark.parametrize(
    "answer",
    ["no score here", "SCORE: 11", "SCORE: 4\nSCORE: 7", "score: -1", "SCORE: ten"],
)
def test_strict_llm_score_parsing_rejects(answer: str) -> None:
    with pytest.raises(JudgeError):
        parse_llm_score(answer)


def test_strict_llm_score_parsing_accepts() -> None:
    assert parse_llm_score("reasoning...\nScore: 7.5") == 7.5
    assert parse_llm_score("**SCORE:** 9/10") == 9.0
    assert parse_llm_score("SCORE: 4\nso again SCORE: 4") == 4.0


@pytest.mark.parametrize(
    "answer",
    [
        "no json",
        '{"visual_accuracy": 100}',
        '{"visual_accuracy": 100, "code_quality": 50, "functionality": 80, '
        '"responsiveness": 101}',
        '{"visual_accuracy": true, "code_quality": 50, "functionality": 80, '
        '"responsiveness": 1}',
        "{not json}",
    ],
)
def test_strict_code_parsing_rejects(answer: str) -> None:
    with pytest.raises(JudgeError):
        parse_code_scores(answer)


def test_build_judge_needs_url_and_model(tmp_path: Path) -> None:
    assert build_judge(base_url=None, model="m", api_key=None, cache_dir=tmp_path) is None
    assert build_judge(base_url="http://x", model=None, api_key=None, cache_dir=tmp_path) is None
    judge = build_judge(base_url="http://x/v1/", model="m", api_key="sk-secret-1",
                        cache_dir=tmp_path)
    assert judge is not None and judge.client.url == "http://x/v1/chat/completions"
    assert "sk-secret-1" not in repr(judge.client) + repr(vars(judge.client).get("config"))


def test_judge_for_reads_the_variables_arena_yaml_names(tmp_path: Path) -> None:
    """The environment is read once (into Settings); arena.yaml's judge section names the
    endpoint's and key's variables and a model that ARENA_JUDGE_MODEL overrides."""
    env = {"ARENA_JUDGE_URL": "http://default/v1", "ARENA_JUDGE_API_KEY": "sk-default",
           "MY_URL": "http://mine/v1", "MY_KEY": "sk-mine"}
    settings = Settings.from_env(root=tmp_path, env=env)
    assert "sk-default" not in repr(settings) and "sk-mine" not in repr(settings)
    plain = judge_for(settings)
    assert plain is None  # an endpoint but no model
    section = JudgeConfig(model="yaml-model", url_env="MY_URL", api_key_env="MY_KEY")
    judge = judge_for(settings, section)
    assert judge is not None and judge.model == "yaml-model"
    assert judge.client.url == "http://mine/v1/chat/completions"
    assert judge.client._api_key == "sk-mine"
    overridden = judge_for(Settings.from_env(root=tmp_path, env={**env, "ARENA_JUDGE_MODEL": "m2"}),
                           section)
    assert overridden is not None and overridden.model == "m2"
    default = judge_for(Settings.from_env(root=tmp_path, env={**env, "ARENA_JUDGE_MODEL": "m2"}))
    assert default is not None and default.client.url == "http://default/v1/chat/completions"
    assert default.client._api_key == "sk-default"
