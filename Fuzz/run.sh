#!/usr/bin/env bash
# Builds one libFuzzer target and runs it for SECONDS on its corpus.
#   Fuzz/run.sh TARGET SECONDS [extra libFuzzer flags]
# TARGET is one of FuzzCertificateLoading FuzzCertificateDirectory FuzzPKCS12 FuzzPinParsing
# FuzzConfiguration FuzzPinUpdate FuzzHostMatching FuzzPublicSuffixList FuzzCookies FuzzHSTS FuzzServerSentEvents FuzzRevocation FuzzPropertyListBody
# FuzzResponses FuzzMessageSignatures. The seed corpus is Fuzz/Corpus/TARGET (committed); new inputs go to
# .build/fuzz-corpus/TARGET (not committed); crashes to Fuzz/artifacts/.
set -euo pipefail
target=${1:?usage: run.sh TARGET SECONDS}
seconds=${2:?usage: run.sh TARGET SECONDS}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
# lld links the instrumented binaries; Debian's default gold stops with an internal error.
flags=(-c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
    -Xcc -fsanitize=fuzzer-no-link,address)
# SwiftPM keeps the build manifest of the path dependency (the package one level up) and does
# not notice source files added to it since; drop it so that it is planned again.
rm -f .build/release.yaml
swift build "${flags[@]}" --product "$target"
binary=$(swift build "${flags[@]}" --show-bin-path)/$target
mkdir -p ".build/fuzz-corpus/$target" artifacts
# FuzzRevocation's and FuzzResponses' inputs run on Swift's cooperative threads (and SwiftNIO's),
# which free a task's memory after the input has returned: libFuzzer's per-input malloc/free count
# never balances, so it would scan the heap for leaks after every input (33 inputs/s instead of
# 220). LeakSanitizer still checks the whole run when the process exits.
per_target=()
case "$target" in FuzzRevocation | FuzzResponses) per_target=(-detect_leaks=0) ;; esac
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0}
exec "$binary" ".build/fuzz-corpus/$target" "Corpus/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
    -artifact_prefix="artifacts/$target-" -print_final_stats=1 ${per_target[@]+"${per_target[@]}"} "$@"
