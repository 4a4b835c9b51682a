"""The GitHub bot: the PR evaluation bundle, the sticky comment, labels and publishing.

``bundle`` is the data the untrusted PR workflow hands to the trusted one; ``render`` turns
it into the comment with the trusted branch's templates; ``github`` is the only module that
talks to GitHub; ``pulls`` decides which PR a run may write to. The use cases the Action runs
are in :mod:`arena_bot.app` (``pr``, ``publish``, ``scaleout``).
"""
