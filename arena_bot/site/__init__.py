"""The static leaderboard site: view-models, Jinja2 templates and the MkDocs build.

``views`` turns a :class:`~arena_bot.models.leaderboard.Leaderboard` into one small view-model
per page; ``render`` fills the templates (autoescaped, strict undefined) into a git-ignored
folder of the MkDocs project; ``build`` runs ``mkdocs build --strict`` over it.
"""
