"""Intake: what contributors hand in, read and checked before anything runs.

* :mod:`~arena_bot.intake.submissions` — finding and loading submission folders;
* :mod:`~arena_bot.intake.patches` — reading and checking unified diffs;
* :mod:`~arena_bot.intake.transcripts` — tool transcripts: importers, metrics, redaction;
* :mod:`~arena_bot.intake.verification` — metric levels (transcript consistency, replay);
* :mod:`~arena_bot.intake.validation` — the validation report of a submission folder;
* :mod:`~arena_bot.intake.diagnostics` — that report as text, JSON, GitHub annotations;
* :mod:`~arena_bot.intake.submit` — ``arena submit``: writing a submission folder.
"""
