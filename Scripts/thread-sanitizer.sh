#!/usr/bin/env bash
# Builds the tests with ThreadSanitizer and runs them one at a time; fails when a test fails or
# ThreadSanitizer reports anything that Scripts/tsan.supp does not name (each entry there says
# why it is not a race of this package's). The reports are printed and kept in a folder.
#
#   Scripts/thread-sanitizer.sh [swift test arguments, e.g. --filter Demo]
#
# Not part of CI: the build takes about 6 minutes and the run about 6 more on 2 cores. One test
# at a time, because the instrumented code runs several times slower and the tests' deadlines
# (a few seconds) are sized for a normal build, not for ThreadSanitizer under a parallel run.
set -uo pipefail
cd "$(dirname "$0")/.."
scratch=.build-tsan
swift build --build-tests --sanitize=thread --scratch-path "$scratch" || exit 1
reports=$(mktemp -d "${TMPDIR:-/tmp}/tsan-reports.XXXXXX")
TSAN_OPTIONS="suppressions=$PWD/Scripts/tsan.supp halt_on_error=0 exitcode=0 log_path=$reports/report" \
    swift test --skip-build --sanitize=thread --scratch-path "$scratch" --no-parallel "$@"
tests=$?
shopt -s nullglob
found=("$reports"/report.*)
if (( ${#found[@]} > 0 )); then
    cat "${found[@]}"
    echo "ThreadSanitizer: $(cat "${found[@]}" | grep -c '^WARNING: ThreadSanitizer') report(s), kept in $reports" >&2
    exit 1
fi
echo "ThreadSanitizer: no report" >&2
exit "$tests"
