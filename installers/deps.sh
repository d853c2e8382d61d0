#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera needs to build, test and run.
# Idempotent: asks dpkg which packages are missing and only then runs
# `apt-get update` (once) and installs just those. Nothing else is touched.
set -euo pipefail

BUILD_PACKAGES=(
  cmake ninja-build g++ ccache pkg-config clang-format-14
  libboost-dev libboost-program-options-dev libboost-system-dev
  # Qt Charts' development package is qt6-charts-dev on Debian 12; its CMake
  # config needs Qt6OpenGL's, which only libqt6opengl6-dev ships.
  qt6-base-dev qt6-websockets-dev qt6-charts-dev libqt6opengl6-dev libgl-dev
  libarchive-dev nlohmann-json3-dev libxxhash-dev libsqlite3-dev zlib1g-dev libpng-dev
  # dSort, ishard and ETL specs in YAML (shared/spec/spec_text).
  libyaml-cpp-dev
  # S3 front end (daemon/s3, shared/api/s3_msg): S3's XML documents with pugixml.
  libpugixml-dev
  # AIStore's msgpack listings (shared/api/object_list_msgpack.cpp).
  libmsgpack-cxx-dev
  # Erasure coding (daemon/ec): Intel ISA-L.
  libisal-dev
  # Security (daemon/auth): Argon2id password hashes and random keys from
  # libsodium, JWTs from libjwt, the redirect signature's HMAC-SHA256 from OpenSSL.
  libsodium-dev libjwt-dev libssl-dev
  # The desktop console keeps its tokens in the system keychain through
  # QtKeychain (console/desktop/core/token_store.cpp).
  qtkeychain-qt6-dev
  # Fuzzing (tests/fuzz/run.sh): clang with libFuzzer and the sanitizers' runtimes.
  clang-14 libclang-rt-14-dev
  curl
  # The web console (console/web): Node.js 18 or newer builds its bundle.
  nodejs
)
# Debian's npm is a package of its own; a NodeSource nodejs carries npm and
# conflicts with Debian's, so npm is asked for only when none is there.
command -v npm >/dev/null 2>&1 || BUILD_PACKAGES+=(npm)
# promtool (package prometheus) checks /metrics; bsdtar, unzip and lz4 read
# the shards Tessera writes; python3 runs the soak (tests/faults/soak.py).
# python3-pil, jq and xxhash (xxhsum) run the sample ETL transformers (resources/etl).
# openssl makes the CA and certificates of TLS clusters (local-cluster.sh --tls, the tests).
# The Python client and its PyTorch datasets (console/python, tests/python):
# python3-torch for tessera.torch and its DataLoader tests (PyTorch 1.13; with
# its dependencies about 600 MiB installed, under a minute from a mirror);
# python3-numpy to turn decoded images into tensors; python3-xxhash for HRW
# placement at C speed (the package falls back to pure Python without it);
# python3-pytest runs those tests under CTest.
# awscli, s3cmd and python3-boto3 are the real S3 clients of tests/e2e/test_s3_clients
# and tests/bench/s3.sh. chromium runs the web console's browser test
# (tests/e2e/test_web_console, headless, driven by playwright-core).
# python3-msgpack decodes the msgpack listing as AIStore's Python SDK would
# (tests/python/test_aistore_msgpack.py).
TEST_PACKAGES=(curl prometheus libarchive-tools unzip lz4 python3 python3-pil jq xxhash openssl
  python3-torch python3-numpy python3-xxhash python3-pytest
  awscli s3cmd python3-boto3
  python3-msgpack chromium)
# The demo dataset run.sh loads (and the tests convert).
DATA_PACKAGES=(dataset-fashion-mnist)

# Usage: installers/deps.sh [--only PACKAGE...]
#   --only: install just the named packages the same way (installers/bench-deps.sh).
WANTED=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}" "${DATA_PACKAGES[@]}")
if [ "${1:-}" = "--only" ]; then
  shift
  WANTED=("$@")
fi

declare -A seen=()
PACKAGES=()
for p in "${WANTED[@]}"; do
  if [ -z "${seen[$p]:-}" ]; then
    seen[$p]=1
    PACKAGES+=("$p")
  fi
done

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "deps: all ${#PACKAGES[@]} packages present, nothing to install"
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "deps: missing ${missing[*]}; not root and no sudo: install them as root" >&2
    exit 1
  fi
fi

echo "deps: missing ${#missing[@]} of ${#PACKAGES[@]} packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
echo "deps: apt-get update"
"${SUDO[@]}" apt-get update -qq
echo "deps: apt-get install ${missing[*]}"
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "deps: installed ${missing[*]}"
