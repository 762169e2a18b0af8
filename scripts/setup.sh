#!/usr/bin/env bash
# Installs what Tern needs to build and test, when it is missing: the C libraries behind the
# system-library targets, pkg-config, PostgreSQL (the tests start a throwaway cluster of their own,
# scripts/postgres.sh), the command lines the guides' tests run, and the Python tools
# the tests use as real peers. (`make docs` and the API check need only the Swift toolchain: docc,
# swift-symbolgraph-extract and swift-api-digester ship with it.)
# Debian/Ubuntu: apt-get (as root, or through sudo). macOS: Homebrew.
set -euo pipefail

debian_packages=(pkg-config libsqlite3-dev libcurl4-openssl-dev libnghttp2-dev libssl-dev libpq-dev postgresql)
# The dashboard's browser test (Tests/Browser) drives Debian's Chromium through its chromedriver.
debian_packages+=(chromium chromium-driver)
# The operators' guide's backup and restore test (scripts/tests/backup-restore.sh) runs the sqlite3,
# openssl and curl command lines.
debian_packages+=(sqlite3 openssl curl)
brew_packages=(pkg-config sqlite curl libnghttp2 openssl@3 libpq postgresql@16)

# Python peers the tests start (Tests/Peers): the HTTP/2 peer needs the h2 package from PyPI.
if command -v python3 >/dev/null && ! python3 -c "import h2" 2>/dev/null; then
    echo "setup: installing the Python package h2"
    python3 -m pip install --quiet h2
fi
# The provider peers (APNs, FCM, HMS stand-ins) verify ES256 and RS256 signatures with cryptography.
if command -v python3 >/dev/null && ! python3 -c "import cryptography" 2>/dev/null; then
    echo "setup: installing the Python package cryptography"
    python3 -m pip install --quiet cryptography
fi

# The browser test drives Chromium with Selenium (PyPI), pointed at the system's browser: nothing downloads one.
if command -v python3 >/dev/null && ! python3 -c "import selenium" 2>/dev/null; then
    echo "setup: installing the Python package selenium"
    python3 -m pip install --quiet selenium
fi
# scripts/schemathesis.sh checks the API document against a real server with schemathesis (PyPI).
if command -v python3 >/dev/null && ! command -v st >/dev/null; then
    echo "setup: installing the Python package schemathesis"
    python3 -m pip install --quiet schemathesis
fi

if [ "$(uname)" = "Darwin" ]; then
    command -v brew >/dev/null || { echo "setup: Homebrew is required on macOS (https://brew.sh)" >&2; exit 1; }
    missing=()
    for package in "${brew_packages[@]}"; do brew list --versions "$package" >/dev/null 2>&1 || missing+=("$package"); done
    if [ ${#missing[@]} -gt 0 ]; then brew install "${missing[@]}"; fi
    exit 0
fi

missing=()
for package in "${debian_packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    echo "setup: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
