"""The garbage collector's settings during a whole-board batch, and after it."""

from __future__ import annotations

import gc

import pytest

from arena_bot.app.batch import YOUNG_THRESHOLD, batch_collection


def test_a_batch_freezes_what_is_alive_and_restores_the_collector() -> None:
    before = gc.get_threshold()
    with batch_collection():
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        assert gc.get_threshold()[1:] == before[1:]
        assert gc.get_freeze_count() > 0
        with batch_collection():  # nested: nothing changes, nothing is undone early
            assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_failing_batch_restores_the_collector_too() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), batch_collection():
        raise RuntimeError("boom")
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_cyclic_garbage_made_in_a_batch_is_still_collected() -> None:
    class Node:
        other: Node

    with batch_collection():
        first, second = Node(), Node()
        first.other, second.other = second, first
        del first, second
        assert gc.collect() >= 2
