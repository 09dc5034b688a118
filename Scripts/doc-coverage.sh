#!/usr/bin/env bash
# Lists every public symbol of this package's modules that has no documentation comment, and
# fails when there is one. Protocol requirements implemented without a comment count too (DocC
# would show the protocol's words, which rarely say what this implementation does); symbols that
# ArgumentParser or the standard library supply by default do not.
#
#   Scripts/doc-coverage.sh [SCRATCH]   (SCRATCH: a build folder, .build-docs by default)
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${1:-.build-docs}"
graphs="$(Scripts/symbol-graphs.sh "$scratch")"
python3 - "$graphs" "$PWD/Sources/" <<'PYTHON'
import glob, json, os, sys

graphs, sources = sys.argv[1], sys.argv[2]
modules = sorted(name for name in os.listdir(sources) if os.path.isdir(os.path.join(sources, name)))
undocumented, total = [], 0
for path in sorted(glob.glob(os.path.join(graphs, "*.symbols.json"))):
    module = os.path.basename(path).split(".")[0].split("@")[0]
    if module not in modules:
        continue
    for symbol in json.load(open(path))["symbols"]:
        if symbol["accessLevel"] not in ("public", "open"):
            continue
        uri = symbol.get("location", {}).get("uri", "")
        if sources not in uri:
            continue  # supplied by a default implementation of another package
        total += 1
        if not symbol.get("docComment"):
            line = symbol["location"]["position"]["line"] + 1
            undocumented.append(f"{uri.split(sources)[1]}:{line}: {'.'.join(symbol['pathComponents'])}")
for entry in sorted(set(undocumented)):
    print(entry)
print(f"{total} public symbols, {len(set(undocumented))} undocumented")
sys.exit(1 if undocumented else 0)
PYTHON
