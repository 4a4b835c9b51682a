"""The use cases, one home for each: what the command line, the bot and the site call.

Each function takes the repository's :class:`~arena_bot.settings.Settings` and the adapters
it needs (a :class:`~arena_bot.app.memo.Memo`, an engine) as parameters and returns data; it
prints nothing. ``arena_bot.cli`` (click) and ``arena_bot.bot`` (GitHub) only parse their
inputs, call one of these and present the result. Modules:

* :mod:`.validation`: validating named submissions, a PR's changed files, or all of them;
* :mod:`.evaluation`: evaluating submissions in Docker and storing their results;
* :mod:`.scoring`: the repository's scoring options, scoring a board from disk (whole or
  incremental), and writing the board's files;
* :mod:`.tasks`: checking tasks' gold patches and bare bases, recording expected test ids.

Two more use cases live with their own packages because each is one module's whole job:
building the site (:mod:`arena_bot.site.build`) and the bot's modes
(:mod:`arena_bot.bot.modes`).
"""
