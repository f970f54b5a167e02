#!/usr/bin/env bash
# make bench: pp against perf on this machine (see tests/bench/README.md).
set -euo pipefail
# time windows: 1 s of a long file against a full pass (window-bench.sh)
"$(dirname "$0")/window-bench.sh" "${1:-build}"
exec python3 "$(dirname "$0")/bench.py" "${1:-build}"
