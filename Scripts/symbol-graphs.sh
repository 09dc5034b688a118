#!/usr/bin/env bash
# Builds the package in SCRATCH (.build-docs by default) with the public symbol graph of every
# module written to SCRATCH/symbol-graphs, and prints that folder. Used by doc-coverage.sh and
# build-docs.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${1:-.build-docs}"
graphs="$scratch/symbol-graphs"
# Not emptied first: an incremental build emits graphs only for the modules it compiles.
mkdir -p "$graphs"
swift build --scratch-path "$scratch" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public >&2
echo "$graphs"
