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

echo "== PostgreSQL (a throwaway cluster for the PostgreSQL store tests)"
postgres_dir="$(mktemp -d "${TMPDIR:-/tmp}/tern-postgres.XXXXXX")"
trap 'scripts/postgres.sh stop "$postgres_dir"' EXIT
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

echo "== tests"
swift test --skip-build -Xswiftc -warnings-as-errors "$@"
