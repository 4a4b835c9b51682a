#!/bin/sh
# Agentic Arena evaluation harness (package data of arena_bot.evaluation; never the task's
# runner.sh). It runs as the owner of /workspace (uid 1000), before any submitted code:
#   harness.sh setup NONCE BASE_SHA RESULTS_DIR SUBMISSION_PATCH|- TESTS_PATCH [TARGET SNIPPET SPOT]
#   harness.sh prepare BASE_SHA RESULTS_DIR | apply PATCH      (criteria sandbox)
#   harness.sh canary TARGET SNIPPET SPOT                      (tests)
# `setup` always ends with one status line, `arena-status NONCE {json}` (read by
# arena_bot.evaluation.harness_status; bump its VERSION with any change here). The tests
# run afterwards in another exec, as another uid, so they can neither reach this status nor
# rewrite the files set here.
set -u

status() {
  # $1 apply status, $2 tests patch applied (true/false), $3 error code or empty
  printf '\narena-status %s {"version": 3, "apply": "%s", "tests_applied": %s, "error": "%s"}\n' \
    "$NONCE" "$1" "$2" "${3:-}"
  exit 0
}

apply_tests() {
  # "inline:<patch text>": the tests patch comes as an argument, never as a file the code
  # under test could read later to tell the canaries from the feature's tests.
  case "$1" in
    inline:*) printf '%s' "${1#inline:}" | git apply --whitespace=nowarn 2>&1 ;;
    *) git apply --whitespace=nowarn "$1" 2>&1 ;;
  esac
}

# Inserts $ARENA_CANARY before the (spot mod count)-th top-level test of the file (a line
# starting `def test` or `class Test`, not under a decorator), or appends it when there is
# none. awk starts in a few milliseconds where python3 takes tens.
CANARY_AWK='
{ line[NR] = $0 }
END {
  n = 0
  for (i = 1; i <= NR; i++)
    if (line[i] ~ /^(def test|class Test)/ && (i == 1 || substr(line[i - 1], 1, 1) != "@"))
      spots[n++] = i
  at = n ? spots[spot % n] : 0
  snippet = ENVIRON["ARENA_CANARY"]
  if (at) { sub(/^\n+/, "", snippet); sub(/\n+$/, "", snippet) }
  for (i = 1; i <= NR; i++) {
    if (i == at) printf "%s\n\n\n", snippet
    print line[i]
  }
  if (!at) printf "%s", snippet
}'

canary() {
  # Insert the canary tests (random names, one passing, one failing) into the feature's test
  # file, before a random top-level test (not always last, where a forger would look). The
  # snippet comes as an argument, never a file.
  [ "$1" = "-" ] && return 0
  [ -f "$1" ] && [ ! -L "$1" ] || { echo "the canary target $1 is not a regular file"; return 1; }
  if command -v awk >/dev/null 2>&1 && canary_tmp=$(mktemp); then
    # Rewritten in place (cat, not mv): the file keeps its inode and mode.
    ARENA_CANARY="$2" awk -v spot="${3:-0}" "$CANARY_AWK" "$1" > "$canary_tmp" \
      && cat "$canary_tmp" > "$1"
    canary_rc=$?
    rm -f "$canary_tmp"
    return $canary_rc
  fi
  if command -v python3 >/dev/null 2>&1; then
    python3 -I -S -c '
import re, sys
path, snippet, spot = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(path, encoding="utf-8") as handle:
    lines = handle.read().splitlines(keepends=True)
spots = [i for i, line in enumerate(lines) if re.match(r"(def test|class Test)", line)
         and (i == 0 or not lines[i - 1].startswith("@"))]
if spots:
    lines.insert(spots[spot % len(spots)], snippet.strip("\n") + "\n\n\n")
else:
    lines.append(snippet)
with open(path, "w", encoding="utf-8") as handle:
    handle.write("".join(lines))
' "$1" "$2" "${3:-0}" && return 0
  fi
  printf '%s' "$2" >> "$1"
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
    canary "${6:--}" "${7:--}" "${8:-0}" || status "$applied" false
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
    canary "$1" "$2" "$3"
    ;;
  apply)
    [ -s "$1" ] || { echo "empty patch"; exit 4; }
    git apply --whitespace=nowarn "$1" 2>&1 && exit 0
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
