"""Scoring and statistics (seeds 002 and 004): typed inputs → the Leaderboard.

Nothing here imports Docker, git or GitHub; importing a light module of this package does
not import the engine (numpy, scipy): a PR's validation must start fast.
"""
