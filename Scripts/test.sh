#!/usr/bin/env bash
# The test command: install the test peers that are missing (Scripts/install-test-peers.sh),
# then run the whole suite one test after the other.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
Scripts/install-test-peers.sh
swift --version
swift test --no-parallel "$@"
