#!/usr/bin/env bash
# Installs the Debian 12 packages the benchmarks in tests/bench/ use: wrk (the
# reference load generator), nginx-light (the reference server: sendfile, dav
# PUT), linux-perf (profiling) and hyperfine. Benchmarks are not part of the
# test suite, so installers/deps.sh does not install these.
# Idempotent: asks dpkg which packages are missing and only then runs
# `apt-get update` (once) and installs just those. Nothing else is touched;
# the nginx service Debian's package would start is not used by the benchmarks
# (they run a private nginx as the calling user on a free port).
set -euo pipefail

PACKAGES=(wrk nginx-light linux-perf hyperfine)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "bench-deps: all ${#PACKAGES[@]} packages present, nothing to install"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "bench-deps: missing ${missing[*]}; not root and no sudo: install them as root" >&2
    exit 1
  fi
fi

echo "bench-deps: missing ${#missing[@]} of ${#PACKAGES[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
echo "bench-deps: apt-get update"
"${SUDO[@]}" apt-get update -qq
echo "bench-deps: apt-get install ${missing[*]}"
# policy-rc.d would be the way to keep the system nginx from starting; the
# benchmarks do not care whether it runs, they use their own port.
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "bench-deps: installed ${missing[*]}"
