"""Evaluation of submissions: harness, verdicts, engine and result store.

Public API (imported lazily, so ``arena_bot.evaluation.store`` stays light for scoring):

* :func:`evaluate_submission`, :class:`Evaluator` — :mod:`.engine`
* :func:`make_test_runner` — ``run_tests(diff_text, feature_id) -> FeatureResult`` for merges
* :class:`ResultStore` — :mod:`.store`, content-addressed EvaluationResult files

No module of this package imports Docker: sandboxes and images are passed in.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "Evaluator": "arena_bot.evaluation.engine",
    "evaluate_submission": "arena_bot.evaluation.engine",
    "make_test_runner": "arena_bot.evaluation.engine",
    "ResultStore": "arena_bot.evaluation.store",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'arena_bot.evaluation' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_EXPORTS[name]), name)
