#!/usr/bin/env bash
# The whole test suite: set-up, format check, a build that treats warnings as errors, every test.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

echo "== format (swift format lint --strict)"
swift format lint --strict --recursive --parallel Sources Tests Package.swift

echo "== build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors

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
