"""Intake: what contributors hand in (submission folders, patches, transcripts, review
files), read and checked before anything runs; ``site/docs/architecture.md`` maps its modules.
"""
