"""The use cases, one home for each: what the command line, the bot and the site call.

Each function takes the repository's :class:`~arena_bot.core.settings.Settings` and the adapters
it needs (a :class:`~arena_bot.app.memo.Memo`, an engine) as parameters and returns data; it
prints nothing. ``arena_bot.cli`` (click) only parses arguments, builds the adapters, calls
one of these and prints the result; the bot's parts (``arena_bot.bot``) are below them.
Modules:

* :mod:`.validation`: validating named submissions, a PR's changed files, or all of them;
* :mod:`.evaluation`: evaluating submissions in Docker and storing their results;
* :mod:`.scoring`: the repository's scoring options, scoring a board from disk (whole or
  incremental), and writing the board's files;
* :mod:`.tasks`: checking tasks' gold patches and bare bases, recording expected test ids;
* :mod:`.merge`: the merge analysis of two agents' patches (`arena merge`);
* :mod:`.pr`: the bot's pull-request runs, evaluating a PR (untrusted) and commenting on it;
* :mod:`.publish`: rescoring, building the site and laying out the published files;
* :mod:`.scaleout`: the publish workflow's matrix, planning units, evaluating some, and
  aggregating their results into the store;
* :mod:`.schema`: the JSON Schemas of the public formats.

Building the site (:func:`arena_bot.site.build.build`) is the site package's own use case;
the data branch's restore and save (:mod:`arena_bot.bot.datastore`) are the git adapter's.
"""
