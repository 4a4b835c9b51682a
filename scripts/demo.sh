#!/usr/bin/env bash
# Set up (idempotent) and run the main job on the bundled sample data:
# validate every sample submission, evaluate them in Docker, score them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/arena pipeline "$@"
