#!/usr/bin/env bash
# Make sure a Docker engine answers `docker info`, and that debootstrap is available for
# `arena images base`. Idempotent: does nothing when both are already there.
#   - no engine: install Debian's docker.io (apt-get) and start dockerd in the background,
#     then wait until it answers (ARENA_DOCKER_WAIT seconds, default 60);
#   - no debootstrap: install it.
# Needs root (or sudo) only for what it installs or starts.
set -euo pipefail

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! command -v debootstrap >/dev/null && [ ! -x /usr/sbin/debootstrap ]; then
  log "installing debootstrap (builds the offline base image)"
  apt_install debootstrap
fi
if [ ! -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
  # Not installed by default outside Debian (an Ubuntu runner): debootstrap checks with it.
  log "installing debian-archive-keyring"
  apt_install debian-archive-keyring
fi

if docker info >/dev/null 2>&1; then
  log "Docker engine answers"
  exit 0
fi

if ! command -v dockerd >/dev/null; then
  log "installing Debian's docker.io"
  apt_install docker.io
fi

if ! docker info >/dev/null 2>&1; then
  log "starting dockerd in the background (log: /var/log/arena-dockerd.log)"
  # setsid: the daemon must outlive this script and the CI step's process group.
  # The redirection runs inside the root shell (a sudo'd command cannot write /var/log).
  as_root sh -c 'setsid dockerd >/var/log/arena-dockerd.log 2>&1 </dev/null &' 
  wait_for=${ARENA_DOCKER_WAIT:-60}
  for _ in $(seq "$wait_for"); do
    if docker info >/dev/null 2>&1; then
      log "Docker engine answers"
      exit 0
    fi
    sleep 1
  done
  echo "error: dockerd did not answer \`docker info\` within ${wait_for}s." >&2
  echo "  Look at /var/log/arena-dockerd.log; on a container host, dockerd needs" >&2
  echo "  privileges (cgroups, overlayfs) or an engine reachable through DOCKER_HOST." >&2
  tail -n 20 /var/log/arena-dockerd.log >&2 || true
  exit 1
fi
log "Docker engine answers"
