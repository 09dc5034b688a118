#!/usr/bin/env bash
# Builds the tests with ThreadSanitizer or AddressSanitizer and runs them one at a time; fails
# when a test fails or the sanitizer reports anything (for ThreadSanitizer: anything that
# Scripts/tsan.supp does not name, each entry there saying why it is not a race of this
# package's). The reports are printed and kept in a folder.
#
#   Scripts/sanitize.sh thread|address [swift test arguments, e.g. --filter Demo]
#
# Not part of CI: each build takes about 6 minutes and each run about 6 more on 2 cores. One
# test at a time, because the instrumented code runs several times slower and the tests'
# deadlines (a few seconds) are sized for a normal build. AddressSanitizer runs without leak
# detection (the Swift runtime and the libraries' singletons are never freed by design; the
# fuzz targets check the parsers for leaks).
set -uo pipefail
cd "$(dirname "$0")/.."
sanitizer=${1:-}
shift || true
case "$sanitizer" in
    thread) scratch=.build-tsan variable=TSAN_OPTIONS options="suppressions=$PWD/Scripts/tsan.supp halt_on_error=0 exitcode=0" ;;
    address) scratch=.build-asan variable=ASAN_OPTIONS options="detect_leaks=0 halt_on_error=0" ;;
    *) echo "usage: Scripts/sanitize.sh thread|address [swift test arguments]" >&2; exit 2 ;;
esac
# gold warns once per sanitizer symbol it cannot export; nothing to act on.
swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2> >(grep -v "Cannot export local symbol" >&2) || exit 1
reports=$(mktemp -d "${TMPDIR:-/tmp}/$sanitizer-sanitizer-reports.XXXXXX")
env "$variable=$options log_path=$reports/report" \
    swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --no-parallel "$@" \
    2> >(grep -v "Cannot export local symbol" >&2)
tests=$?
shopt -s nullglob
found=("$reports"/report.*)
if (( ${#found[@]} > 0 )); then
    cat "${found[@]}"
    count=$(cat "${found[@]}" | grep -c -E '^WARNING: ThreadSanitizer|^==[0-9]+==ERROR: AddressSanitizer')
    echo "$sanitizer sanitizer: $count report(s), kept in $reports" >&2
    exit 1
fi
echo "$sanitizer sanitizer: no report" >&2
exit "$tests"
