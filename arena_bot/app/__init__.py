"""The use cases, one home for each: what the command line, the bot and the site call.

Each function takes the repository's :class:`~arena_bot.core.settings.Settings` and the adapters
it needs (a :class:`~arena_bot.app.memo.Memo`, an engine) as parameters and returns data; it
prints nothing. ``arena_bot.cli`` (click) only parses arguments, builds the adapters, calls
one of these and prints the result. Which command's work each module does: the table in
site/docs/architecture.md.
"""
