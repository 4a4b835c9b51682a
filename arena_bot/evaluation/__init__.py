"""Evaluation of submissions: harness, verdicts, engine and result store."""
