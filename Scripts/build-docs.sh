#!/usr/bin/env bash
# Builds the DocC archive of every module that has a catalog (Sources/MODULE/MODULE.docc) with
# the Swift-DocC of the toolchain, and fails on any warning (a broken link, a symbol that does
# not exist, an unknown article). No plugin: a package that depends on this one resolves no
# documentation tooling.
#
#   Scripts/build-docs.sh [SCRATCH]   (SCRATCH: a build folder, .build-docs by default)
#
# The archives land in SCRATCH/archives/MODULE.doccarchive; `docc preview` serves one
# (`docc preview Sources/SecureSession/SecureSession.docc --additional-symbol-graph-dir
# SCRATCH/modules/SecureSession`), or read the guides as Markdown in the catalogs.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${1:-.build-docs}"
graphs="$(Scripts/symbol-graphs.sh "$scratch")"
docc="$(command -v docc || echo "$(dirname "$(readlink -f "$(command -v swift)")")/docc")"
failed=()
mkdir -p "$scratch/archives"
for catalog in Sources/*/*.docc; do
    module="$(basename "$catalog" .docc)"
    modulegraphs="$scratch/modules/$module"
    rm -rf "$modulegraphs" && mkdir -p "$modulegraphs"
    cp "$graphs/$module.symbols.json" "$modulegraphs/" 2>/dev/null || { echo "no symbol graph for $module" >&2; failed+=("$module"); continue; }
    cp "$graphs/$module"@*.symbols.json "$modulegraphs/" 2>/dev/null || true
    if ! "$docc" convert "$catalog" \
        --additional-symbol-graph-dir "$modulegraphs" \
        --output-path "$scratch/archives/$module.doccarchive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "transportsecurity.$module" \
        --warnings-as-errors >"$scratch/$module.log" 2>&1; then
        echo "== $module" >&2
        cat "$scratch/$module.log" >&2
        failed+=("$module")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "documentation with warnings or errors: ${failed[*]}" >&2
    exit 1
fi
echo "built $(ls -d "$scratch"/archives/*.doccarchive | wc -l) archives in $scratch/archives, no warning"
