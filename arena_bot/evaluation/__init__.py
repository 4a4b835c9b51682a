"""Evaluation of submissions: harness, verdicts, engine and result store.

No module of this package imports Docker: sandboxes and images are passed in.
"""
