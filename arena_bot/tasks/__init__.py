"""Tasks: the ``dataset/`` folders submissions are run against.

* :mod:`~arena_bot.tasks.dataset` — reading and checking task folders;
* :mod:`~arena_bot.tasks.cooperbench` — importing CooperBench tasks;
* :mod:`~arena_bot.tasks.cooperbench_runner` — reading CooperBench's runner scripts;
* :mod:`~arena_bot.tasks.wheels` — a task's Python dependencies as an offline wheelhouse.
"""
