"""Core: small pieces every layer may use (the ground floor above :mod:`arena_bot.models`).

* :mod:`~arena_bot.core.prices` — the model price table and token costs;
* :mod:`~arena_bot.core.digest` — content digests of task and submission folders;
* :mod:`~arena_bot.core.files` — reading a file up to a limit, writing one whole or not at all.
"""
