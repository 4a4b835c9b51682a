#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite, the Docker tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
# .ci/run has just run setup.sh itself and says so; a person gets the set-up here.
[ "${ARENA_SETUP_DONE:-0}" = "1" ] || bash scripts/setup.sh
# One process: on this 2-core machine two xdist workers were not faster (13 min 06 s and
# 13 min 10 s against 13 min 10 s in one process) and one of their two runs failed a
# disk-space measurement the other worker disturbed. `-n 2 --dist loadfile` still works
# (tests/support/workers.py) for a machine with more cores.
exec .venv/bin/python -m pytest "$@"
