#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera needs to build, test and run.
# Idempotent: only packages that are missing are installed.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ ccache pkg-config curl
  libboost-dev libboost-program-options-dev libboost-system-dev
  qt6-base-dev qt6-websockets-dev qt6-charts-dev libgl-dev
  libarchive-dev nlohmann-json3-dev libxxhash-dev libsqlite3-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "deps: missing packages (${missing[*]}) and not root; install them as root" >&2
    exit 1
  fi
fi

echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
