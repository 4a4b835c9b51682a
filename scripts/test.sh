#!/usr/bin/env bash
# Set up (idempotent) and run the whole test suite, the Docker tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
# .ci/run has just run setup.sh itself and says so; a person gets the set-up here.
[ "${ARENA_SETUP_DONE:-0}" = "1" ] || bash scripts/setup.sh
# Two workers (pytest-xdist): the Docker tests mostly wait on containers. Each test file runs on
# one worker (loadfile) and load-sensitive modules run alone (tests/support/workers.py); `-n 0` runs in one
# process.
exec .venv/bin/python -m pytest -n 2 --dist loadfile "$@"
