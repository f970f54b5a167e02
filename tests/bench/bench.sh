#!/usr/bin/env bash
# make bench: pp against perf on this machine (see tests/bench/README.md).
set -euo pipefail
exec python3 "$(dirname "$0")/bench.py" "${1:-build}"
