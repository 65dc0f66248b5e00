#!/usr/bin/env bash
# What users wait for, as ratios measured in one interleaved run; see bench/run.py.
set -euo pipefail
cd "$(dirname "$0")/.."
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20
exec "${PY:-.venv/bin/python}" -m bench.run "$@"
