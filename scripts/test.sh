#!/usr/bin/env bash
# Set up (idempotent) and run the README's tier of the test suite, the Docker tests included
# (`--tier all`: every test; `--tier rest`: what this tier leaves out; tests/support/tiers.py).
set -euo pipefail
cd "$(dirname "$0")/.."
# .ci/run has just run setup.sh itself and says so; a person gets the set-up here.
[ "${ARENA_SETUP_DONE:-0}" = "1" ] || bash scripts/setup.sh
# Two pytest-xdist workers, each test file on one (module fixtures run once), the slowest
# files first (tests/support/tiers.py orders them; xdist's own reordering by number of tests
# is off). Its non-Docker tests alone take 2 min 08 s on two workers against 3 min 38 s in one
# process on this 2-core machine (2026-11-26; the README has the tier's figures).
exec .venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder "$@"
