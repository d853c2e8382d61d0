#!/usr/bin/env bash
# The soak (tests/faults/soak.py): a cluster of its own on free ports, clients
# doing PUT/GET/DELETE/append/list checked against a model of every
# acknowledged operation, a target killed -9 and restarted every 60 s, a
# mountpath failed once. Run on purpose; CI runs a 40-second version
# (CTest soak_short, label faults).
# Usage: tests/faults/soak.sh [--minutes 10] [--targets 3] [--clients 8] [--kill-every 60]
#          [--restart-after 10] [--fail-mountpath] [--seed N] [--bin-dir build/release/daemon] ...
set -euo pipefail
command -v python3 >/dev/null || { echo "soak: python3 is missing: installers/deps.sh" >&2; exit 1; }
exec python3 "$(dirname "${BASH_SOURCE[0]}")/soak.py" "$@"
