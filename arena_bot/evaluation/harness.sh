#!/bin/sh
# Agentic Arena evaluation harness (package data of arena_bot.evaluation; never the task's
# runner.sh). It runs as the owner of /workspace (uid 1000), before any submitted code:
#   harness.sh setup NONCE BASE_SHA RESULTS_DIR SUBMISSION_PATCH|- TESTS_PATCH [TARGET SEED]
#   harness.sh prepare BASE_SHA RESULTS_DIR | apply PATCH      (criteria sandbox)
#   harness.sh canary TARGET SEED                              (tests)
# `setup` always ends with one status line, `arena-status NONCE {json}` (read by
# arena_bot.evaluation.harness_status; bump its VERSION with any change here). The tests
# run afterwards in another exec, as another uid, so they can neither reach this status nor
# rewrite the files set here.
set -u

status() {
  # $1 apply status, $2 tests patch applied (true/false), $3 error code or empty
  printf '\narena-status %s {"version": 5, "apply": "%s", "tests_applied": %s, "error": "%s", "canaries": %s}\n' \
    "$NONCE" "$1" "$2" "${3:-}" "${CANARIES:-null}"
  exit 0
}

apply_tests() {
  # "inline:<patch text>": the tests patch comes as an argument, never as a file the code
  # under test could read later to tell the canaries from the feature's tests.
  case "$1" in
    -) return 0 ;;
    inline:*) printf '%s' "${1#inline:}" | git apply --whitespace=nowarn 2>&1 ;;
    *) git apply --whitespace=nowarn "$1" 2>&1 ;;
  esac
}

canary() {
  # Insert the two canary tests (one passing, one failing) into the feature's test file at
  # two random places of the file's own shape, named from its own tests' words
  # (/arena/canary_place.py: parsed with ast, so a canary only ever goes at a statement
  # boundary before a test and its decorators). The names chosen go into the status.
  # $1: the candidate files, one a line (the script picks one that runs all its tests).
  [ "$1" = "-" ] && return 0
  placed=$(python3 -I -S /arena/canary_place.py "$1" "${2:-0}") || { echo "$placed"; return 1; }
  CANARIES=${placed#arena-canaries }
}

step="$1"
shift
case "$step" in
  setup)
    NONCE="$1"
    # `clean -fd`, not `-fdx`: ignored files are what the image build made (egg-info of an
    # editable install, compiled extensions); the sandbox is fresh, so none are stale.
    rm -f .git/index.lock
    { git reset --quiet --hard "$2" && git clean -fdq; } || status missing false reset
    # The tests (another uid) write their JUnit report here and nowhere else in the tree.
    { mkdir -p "$3" && chmod 0777 "$3"; } || status missing false results
    applied=missing
    if [ "$4" != "-" ]; then
      if git apply --whitespace=nowarn "$4" 2>&1; then
        applied=clean
      elif git apply --ignore-whitespace --whitespace=nowarn "$4" >/dev/null 2>&1; then
        # Context that differs only in whitespace (CRLF line endings, re-indented context):
        # CooperBench's runner.sh applies patches this way first.
        echo "plain git apply failed; applied with whitespace differences in its context ignored"
        applied=whitespace
      else
        echo "plain git apply failed; trying a 3-way merge"
        if git apply --3way --whitespace=nowarn "$4" 2>&1; then
          applied=three_way
        else
          git reset --quiet --hard HEAD
          status failed false
        fi
      fi
    fi
    # The tests patch must apply as written (no 3-way): anything else means the
    # submission changed the files the tests bring.
    apply_tests "$5" || status "$applied" false
    canary "${6:--}" "${7:-0}" || status "$applied" false
    status "$applied" true
    ;;
  prepare)
    # A stale index.lock (a killed git) would make every later git command fail.
    rm -f .git/index.lock
    git reset --quiet --hard "$1" && git clean -fdq || exit 2
    mkdir -p "$2" || exit 2
    ;;
  canary)
    # The canary insertion alone (tests compare it with the reference placement).
    canary "$1" "$2" && printf '%s\n' "$CANARIES"
    ;;
  apply)
    [ -s "$1" ] || { echo "empty patch"; exit 4; }
    git apply --whitespace=nowarn "$1" 2>&1 && exit 0
    git apply --ignore-whitespace --whitespace=nowarn "$1" >/dev/null 2>&1 && exit 0
    echo "plain git apply failed; trying a 3-way merge"
    git apply --3way --whitespace=nowarn "$1" 2>&1 && exit 3
    # Leave no half-merged state behind for anything that might still look at the tree.
    git reset --quiet --hard HEAD
    exit 4
    ;;
  *)
    echo "unknown harness step: $step"; exit 2
    ;;
esac
