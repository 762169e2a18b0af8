#!/usr/bin/env bash
# The whole test suite: set-up, format check, a build that treats warnings as errors, the docs and
# public-API checks, every test.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

echo "== format (swift format lint --strict)"
swift format lint --strict --recursive --parallel Sources Tests Package.swift Examples

echo "== build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors

echo "== docs (make docs: every SDK product's DocC, checked; symbol graphs from the build above)"
scripts/docs.sh --no-build

echo "== the DocC articles' Swift compiles against the SDK"
scripts/tests/docs-snippets.sh

echo "== public API against api-baseline/ (swift-api-digester, the build above)"
scripts/api-baseline.sh check

echo "== the docs and API checks fail on planted mistakes"
scripts/tests/docs-checks.sh

echo "== the operators' guide: its backup and restore steps against a real tern serve"
scripts/tests/backup-restore.sh

echo "== the example app compiled for iOS (../shared/apple/ios-build.sh)"
# TERN_EXAMPLES_SDK_MAY_FAIL: the SDK's own iOS build (issue 11) is not green yet; until it is, an
# SDK that does not compile for iOS leaves the example unchecked instead of failing here.
TERN_EXAMPLES_SDK_MAY_FAIL=1 scripts/examples.sh

echo "== tests"
swift test --skip-build -Xswiftc -warnings-as-errors "$@"

echo "== API document against the server (schemathesis, every check)"
scripts/schemathesis.sh

# The dashboard in Debian's Chromium against a real tern serve, the APNs stand-in and tern device.
# Screenshots of every page are left in .build/dashboard-screenshots.
if [ $# -eq 0 ]; then
    echo "== dashboard (browser)"
    python3 Tests/Browser/dashboard_test.py --binary .build/debug/tern
fi
