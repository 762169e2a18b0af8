#!/usr/bin/env bash
# The whole test suite: set-up, format check, a build that treats warnings as errors, every test.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

echo "== format (swift format lint --strict)"
swift format lint --strict --recursive --parallel Sources Tests Package.swift

echo "== build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors

echo "== tests"
swift test --skip-build -Xswiftc -warnings-as-errors "$@"

echo "== API document against the server (schemathesis, every check)"
scripts/schemathesis.sh
