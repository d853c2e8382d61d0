#!/usr/bin/env bash
# Installs the Debian 12 packages the benchmarks in tests/bench/ use: wrk (the
# reference load generator), nginx-light (the reference server: sendfile, dav
# PUT), linux-perf (profiling), hyperfine and gnuplot-nox (the PNG plots of
# tests/bench/curves/). Benchmarks are not part of the
# test suite, so installers/deps.sh does not install these by default.
# Idempotent, like deps.sh (which does the work): only missing packages are
# installed. The nginx service Debian's package would start is not used by
# the benchmarks (they run a private nginx as the calling user on a free port).
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/deps.sh" --only wrk nginx-light linux-perf hyperfine gnuplot-nox
