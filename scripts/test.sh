#!/usr/bin/env bash
# The whole test suite: set-up, format check, a build that treats warnings as errors, the docs and
# public-API checks, every test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's header says how long the run has taken so far, so a slow CI run shows which step grew.
step() { echo "== [$((SECONDS / 60))m$((SECONDS % 60))s] $1"; }
trap 'step end' EXIT

step "set-up (scripts/setup.sh)"
scripts/setup.sh

step "format (swift format lint --strict)"
swift format lint --strict --recursive --parallel Sources Tests Package.swift Examples

step "build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors

step "iOS build (every SDK target; the Notification Service Extension as an app extension links it)"
sdk_targets=(TernCore TernPush TernNotificationService TernTarget TernProfile TernInApp TernInAppUI TernInbox
    TernInboxUI)
ios_build=../shared/apple/ios-build.sh
if [ -x "$ios_build" ]; then
    # Linux: the iOS 17.0 SDK's headers and Swift interfaces beside the script; macOS: Xcode's SDK.
    "$ios_build" "${sdk_targets[@]}"
    "$ios_build" --extension TernNotificationService
elif [ "$(uname)" = Darwin ] && xcrun --sdk iphoneos --show-sdk-path >/dev/null 2>&1; then
    for target in "${sdk_targets[@]}"; do
        xcodebuild -quiet -scheme "$target" -destination generic/platform=iOS build
    done
    xcodebuild -quiet -scheme TernNotificationService -destination generic/platform=iOS \
        APPLICATION_EXTENSION_API_ONLY=YES build
else
    echo "iOS build: skipped (no $ios_build beside the repository and no Xcode iPhoneOS SDK)"
fi

step "docs (make docs: every SDK product's DocC, checked; symbol graphs from the build above)"
scripts/docs.sh --no-build

step "the DocC articles' Swift compiles against the SDK"
scripts/tests/docs-snippets.sh

step "public API against api-baseline/ (swift-api-digester, the build above)"
scripts/api-baseline.sh check

step "the docs and API checks fail on planted mistakes"
scripts/tests/docs-checks.sh

step "the operators' guide: its backup and restore steps against a real tern serve"
scripts/tests/backup-restore.sh

step "the example app compiled for iOS (../shared/apple/ios-build.sh)"
# The SDK's own iOS build is green (the step above), so the example is checked strictly.
scripts/examples.sh

step "PostgreSQL (a throwaway cluster for the PostgreSQL store tests)"
postgres_dir="$(mktemp -d "${TMPDIR:-/tmp}/tern-postgres.XXXXXX")"
trap 'scripts/postgres.sh stop "$postgres_dir"; step end' EXIT
if [ -n "${TERN_TEST_POSTGRES_URL:-}" ]; then
    echo "PostgreSQL: using TERN_TEST_POSTGRES_URL from the environment"
elif url="$(scripts/postgres.sh start "$postgres_dir")"; then
    export TERN_TEST_POSTGRES_URL="$url"
    echo "PostgreSQL listening for the tests at ${url/tern:tern@/tern:***@}"
elif [ "${CI:-}" = "true" ]; then
    echo "PostgreSQL did not start: CI runs the PostgreSQL store tests, so this is a failure" >&2
    exit 1
else
    echo "PostgreSQL store tests skipped: PostgreSQL is not installed here (scripts/setup.sh installs it on Debian)"
fi

step "the operators' guide: its PostgreSQL backup and restore steps against a real tern serve"
if [ -n "${TERN_TEST_POSTGRES_URL:-}" ]; then
    scripts/tests/backup-restore.sh postgresql
else
    echo "backup-restore (postgresql): skipped, no PostgreSQL"
fi

step "the operators' guide: its move from SQLite to PostgreSQL against a real tern serve"
if [ -n "${TERN_TEST_POSTGRES_URL:-}" ]; then
    scripts/tests/move-to-postgresql.sh
else
    echo "move-to-postgresql: skipped, no PostgreSQL"
fi

step "tests: the SDK's"
# Two runs. In one run the server's tests (in-process servers under fuzzers, crash and two-node
# tests) kept Swift's two cooperative threads so busy that the SDK's timed tests starved: a sender
# test of 2 s alone took 3 min and failed, its scripted server answering no attempt within the
# SDK's 2-s request timeout (26 attempts). Apart: 16 s for the SDK's 305 tests, then the rest.
sdk_tests='^(TernCoreTests|TernPushTests|TernInAppTests|TernInboxTests|TernProfileTests|TernTargetTests|TernProtocolTests|TernCryptoTests|TernSQLiteTests)\.'
swift test --skip-build -Xswiftc -warnings-as-errors --filter "$sdk_tests" "$@"

step "tests: the server's and the end-to-end"
# Swift Testing starts every test at once by default; 16 at a time finished this run sooner on two
# slow cores (a machine at half its usual speed) and without tests timing out. An outer setting wins.
SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-16} \
    swift test --skip-build -Xswiftc -warnings-as-errors --skip "$sdk_tests" "$@"

step "API document against the server (schemathesis, every check)"
scripts/schemathesis.sh

# The dashboard in Debian's Chromium against a real tern serve, the APNs stand-in and tern device.
# Screenshots of every page are left in .build/dashboard-screenshots.
if [ $# -eq 0 ]; then
    step "dashboard (browser)"
    python3 Tests/Browser/dashboard_test.py --binary .build/debug/tern
fi
