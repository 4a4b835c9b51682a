"""Plain helpers shared by the test suite: one home for each, instead of a copy per module.

Imported one way only, ``from support.X import Y``: ``pythonpath = ["tests"]`` in
pyproject.toml's ``[tool.pytest.ini_options]`` puts ``tests/`` on ``sys.path`` when pytest
starts (the whole suite, one file, from any folder). Fixtures stay in the ``conftest.py``
files; what is here is plain functions, classes and constants a test imports by name.
"""
