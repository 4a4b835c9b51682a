"""Tasks: the ``dataset/`` folders submissions are run against (README: Layout)."""
