# Sourced by scripts/docs.sh and scripts/api-baseline.sh: the SDK's products and how the toolchain's
# tools (swift-symbolgraph-extract, swift-api-digester, docc) read their compiled modules.
#
# Both tools read the modules the ordinary debug build already made (`swift build --build-tests
# -Xswiftc -warnings-as-errors`, the build `make test` runs), so documentation and the API check add
# no compilation of their own. TERN_MODULES_DIR points them at other modules (the checks' tests do).

# Each SDK product is one module of the same name.
SDK_MODULES=(TernProtocol TernCore TernPush TernNotificationService TernTarget TernProfile TernInbox)
# The build `make test` runs; the same flags here reuse its products instead of rebuilding them.
BUILD_FLAGS=(-Xswiftc -warnings-as-errors)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work="$root/.build/docs"

target_triple() {
    swiftc -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])'
}

# Builds the SDK's products (nothing when the test build is current).
build_sdk() {
    local product
    for product in TernNotificationService TernTarget TernProfile TernInbox; do  # and what they depend on
        (cd "$root" && swift build "${BUILD_FLAGS[@]}" --target "$product" >"$work/build-$product.log" 2>&1) || {
            cat "$work/build-$product.log" >&2
            echo "docs: the SDK did not build (whole log: $work/build-$product.log)" >&2
            return 1
        }
    done
}

modules_dir() {
    if [ -n "${TERN_MODULES_DIR:-}" ]; then echo "$TERN_MODULES_DIR"; return; fi
    echo "$(cd "$root" && swift build --show-bin-path)/Modules"
}

# Flags both tools take to load a module: the built modules and the C shims' module maps.
tool_flags() {
    local modules=$1 dir
    printf '%s\n' -I "$modules" -target "$(target_triple)" -module-cache-path "$work/module-cache"
    for dir in "$root"/Sources/C*/; do printf '%s\n' -I "${dir%/}"; done
}
