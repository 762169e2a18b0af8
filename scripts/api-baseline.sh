#!/usr/bin/env bash
# The SDK's public API against its committed baseline, api-baseline/<Module>.txt.
#
#   scripts/api-baseline.sh check    (make test) fails when a product's public API differs from its
#                                    baseline, and prints what was added, removed or changed; and
#                                    fails on any public symbol without a documentation comment,
#                                    naming its file and line (no exceptions: public API is
#                                    documented in the change that adds it)
#   scripts/api-baseline.sh update   (make api-baseline) rewrites the baselines from the current
#                                    build; commit them with the change that made them differ
#
# The toolchain's swift-api-digester dumps each product's module (-dump-sdk, public declarations
# only) from the debug build `make test` made; scripts/lib/api_text.py turns the dump into one
# sorted line per declaration, so a change is a readable diff. Both read the same modules as
# `make docs`: nothing is compiled again. The baselines are the Linux build's public API: on
# other systems (where the Apple-only API is compiled in) the check says it was skipped.
#
# TernInAppUI and TernInboxUI (IOS_API_MODULES) are the exception: every line of them is under
# `#if os(iOS)`, so their Linux modules are empty and a Linux dump would baseline nothing. Their
# baselines are dumped from the SDK's iOS build instead (.build/ios, made by
# ../shared/apple/ios-build.sh, which `make test` runs first): swift-api-digester reads the iOS
# modules against the iOS SDK's interfaces as swift-symbolgraph-extract does for `make docs`.
# Without an iOS build they are skipped, with a line that says so.
#
# Env (the checks' own tests use them): TERN_MODULES_DIR, TERN_API_MODULES (products to check),
# TERN_API_BASELINE (a baseline directory instead of api-baseline/).
set -euo pipefail
export LC_ALL=C
# shellcheck source=lib/sdk-modules.sh
source "$(dirname "$0")/lib/sdk-modules.sh"

mode=${1:-check}
case $mode in check | update) ;; *) echo "usage: scripts/api-baseline.sh check|update" >&2; exit 2 ;; esac
read -r -a modules <<<"${TERN_API_MODULES:-${SDK_MODULES[*]}}"
baseline=${TERN_API_BASELINE:-$root/api-baseline}

if [ "$(uname)" != Linux ]; then
    echo "api-baseline: skipped (the baselines are the Linux build's public API; run it on Linux)"
    exit 0
fi
mkdir -p "$work"
current=$(mktemp -d)
trap 'rm -rf "$current"' EXIT
if [ -z "${TERN_MODULES_DIR:-}" ] && [ "$mode" = update ]; then
    build_sdk
    ios_status=0
    build_sdk_ios || ios_status=$?
    [ $ios_status -eq 2 ] && exit 1
fi
modules_path=$(modules_dir)
mapfile -t flags < <(tool_flags "$modules_path")

ios_only() { # ios_only MODULE: true for a product whose API exists only in the iOS build
    local each
    for each in "${IOS_API_MODULES[@]}"; do [ "$each" = "$1" ] && return 0; done
    return 1
}

dumped=()
skipped=()
for module in "${modules[@]}"; do
    module_flags=("${flags[@]}")
    from=$modules_path
    if ios_only "$module"; then
        from=$(ios_modules_dir)
        if [ -n "${TERN_MODULES_DIR:-}" ] && [ -z "${TERN_IOS_MODULES_DIR:-}" ] || [ ! -e "$from/$module.swiftmodule" ]; then
            skipped+=("$module")
            continue
        fi
        mapfile -t module_flags < <(ios_tool_flags)
    fi
    swift-api-digester -dump-sdk -module "$module" "${module_flags[@]}" -swift-version 6 -abort-on-module-fail \
        -avoid-location -avoid-tool-args -o "$current/$module.json" >"$current/$module.log" 2>&1 || {
        cat "$current/$module.log" >&2
        echo "api-baseline: swift-api-digester could not read $module from $from (is it built?)" >&2
        exit 1
    }
    python3 "$root/scripts/lib/api_text.py" "$current/$module.json" >"$current/$module.txt"
    dumped+=("$module")
done
for module in "${skipped[@]}"; do
    echo "api-baseline: $module skipped: its public API exists only in the iOS build (on Linux the module is" \
        "empty), and there is no iOS build in $(ios_modules_dir) (../shared/apple/ios-build.sh makes it)"
done

if [ "$mode" = update ]; then
    mkdir -p "$baseline"
    for module in "${dumped[@]}"; do cp "$current/$module.txt" "$baseline/$module.txt"; done
    echo "api-baseline: wrote ${dumped[*]/%/.txt} in $baseline"
    exit 0
fi

status=0
for module in "${dumped[@]}"; do
    where=""
    ios_only "$module" && where=" (from the iOS build: on Linux the module is empty)"
    if [ ! -f "$baseline/$module.txt" ]; then
        echo "api-baseline: $module has no baseline ($baseline/$module.txt): run 'make api-baseline'"
        status=1
        continue
    fi
    if cmp -s "$baseline/$module.txt" "$current/$module.txt"; then
        echo "api-baseline: $module unchanged$where"
        continue
    fi
    status=1
    echo "api-baseline: the public API of $module$where changed without its baseline:"
    # Lines only in the baseline are declarations removed or changed: a breaking change for apps.
    comm -23 "$baseline/$module.txt" "$current/$module.txt" | sed 's/^/  - removed or changed (breaks apps): /'
    comm -13 "$baseline/$module.txt" "$current/$module.txt" | sed 's/^/  + added or changed: /'
done
if [ $status -ne 0 ]; then
    echo "api-baseline: if the change is intended, run 'make api-baseline' and commit api-baseline/ with it"
fi

# Every public symbol documented: symbol graphs of the same modules (swift-symbolgraph-extract
# keeps each declaration's `///` comment), read by the check `make docs` also runs; also of the
# SDK's iOS build when there is one (.build/ios, from ios-build.sh), for the Apple-only API.
if TERN_DOCS_MODULES="${modules[*]}" TERN_DOCS_OUT="$current/docs" "$root/scripts/docs.sh" --graphs-only \
    >"$current/graphs.log" 2>&1; then
    documented=yes
    python3 "$root/scripts/lib/undocumented.py" "$current/docs/symbol-graphs" "$root" --modules "${modules[@]}" \
        >"$current/undocumented.log" 2>&1 || documented=no
    platforms="Linux"
    if [ -d "$current/docs/symbol-graphs-ios" ]; then  # the Apple-only API, from the iOS build
        platforms="Linux and iOS"
        python3 "$root/scripts/lib/undocumented.py" "$current/docs/symbol-graphs-ios" "$root" \
            --modules "${modules[@]}" >>"$current/undocumented.log" 2>&1 || documented=no
    fi
    if [ $documented = yes ]; then
        echo "api-baseline: every public symbol of ${modules[*]} is documented ($platforms)"
    else
        sed 's/^/api-baseline: /' "$current/undocumented.log"
        status=1
    fi
else
    cat "$current/graphs.log" >&2
    echo "api-baseline: no symbol graphs, so the documentation could not be checked"
    status=1
fi
exit $status
