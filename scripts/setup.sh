#!/usr/bin/env bash
# Set up Agentic Arena on a fresh Debian machine (idempotent; safe to re-run).
#   - a virtual environment in .venv with the project and its dev/site extras
#   - a running Docker engine (Debian's docker.io + dockerd when none answers)
#   - the offline base image arena-base:bookworm when the public base image cannot be pulled
# Needs root (or sudo) only for the apt-get steps.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/lib.sh
. scripts/lib.sh

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "error: Python >= 3.11 is required (found: $("$PYTHON" --version 2>&1))" >&2
  exit 1
fi
if ! "$PYTHON" -m venv --help >/dev/null 2>&1; then
  log "installing python3-venv"
  apt_install python3-venv
fi
command -v git >/dev/null || { log "installing git"; apt_install git; }

if [ ! -x .venv/bin/python ]; then
  log "creating .venv"
  "$PYTHON" -m venv .venv
fi
# The install is editable: code changes need none, only a changed pyproject.toml (its
# dependencies, entry points) does. Skipped when the one last installed is the same (~10 s).
stamp=.venv/.arena-installed
wanted="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] && .venv/bin/python -c 'import arena_bot' 2>/dev/null; then
  log "the project is installed in .venv (pyproject.toml unchanged)"
else
  log "installing the project into .venv"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q -e '.[dev,site]'
  echo "$wanted" > "$stamp"
fi

if [ "${ARENA_SKIP_DOCKER:-0}" != "1" ]; then
  log "checking the Docker engine"
  bash scripts/ensure_docker.sh
  log "building the offline base image if needed"
  .venv/bin/arena images base
fi

if [ "${ARENA_SKIP_BROWSER:-0}" != "1" ] && ! { command -v chromium >/dev/null && command -v chromedriver >/dev/null; }; then
  log "installing Debian's chromium and chromedriver (the site's browser tests)"
  apt_install chromium chromium-driver
fi

log "setup done"
