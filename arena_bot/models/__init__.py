"""Typed records that cross a file or JSON boundary.

* :mod:`.task` — ``dataset/<task>/task.yaml``
* :mod:`.submission` — ``submissions/<task>/<submission>/submission.yaml``
* :mod:`.evaluation` — the EvaluationResult JSON written by ``arena evaluate``

Changing a field here changes a public format: bump ``schema_version``, regenerate the
JSON Schemas (``arena schema --write``) and update ``site/docs/formats.md``.
"""
