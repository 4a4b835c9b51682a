#!/usr/bin/env bash
# Set up (idempotent) and run the main job on the bundled sample data:
# validate every sample submission, evaluate them in Docker, score them into out/,
# then build the leaderboard site from that board and print where to open it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/arena pipeline "$@"
board=out/leaderboard.json
prev=""
for arg in "$@"; do
  if [ "$prev" = "--output" ]; then board="$arg/leaderboard.json"; fi
  prev=$arg
done
.venv/bin/arena site build --leaderboard "$board"
