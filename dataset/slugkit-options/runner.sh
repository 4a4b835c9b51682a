#!/bin/bash
# CooperBench-style runner, kept for compatibility (the arena harness has its own runner):
#   runner.sh <tests_patch> [feature_patch]
# Patches are looked up under /patches/. Resets the repository, applies the feature patch
# (if any) then the tests patch, runs the tests and exits with the test command's status.
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: runner.sh <tests_patch> [feature_patch]" >&2
    exit 2
fi
TESTS_PATCH="/patches/$1"
FEATURE_PATCH="${2:+/patches/$2}"

cd /workspace/repo || exit 2
rm -f .git/index.lock
git reset --hard --quiet
git clean -fdxq

apply_patch() {
    git apply --ignore-whitespace --ignore-space-change "$1" || git apply --3way "$1"
}

if [ -n "$FEATURE_PATCH" ]; then
    apply_patch "$FEATURE_PATCH" || { echo "runner: feature patch does not apply" >&2; exit 2; }
fi
apply_patch "$TESTS_PATCH" || { echo "runner: tests patch does not apply" >&2; exit 2; }

export ARENA_JUNIT="${ARENA_JUNIT:-/tmp/arena-junit.xml}"
python3 -m pytest -q -p no:cacheprovider --junitxml="$ARENA_JUNIT" tests
exit $?
