# Sourced by scripts/docs.sh and scripts/api-baseline.sh: the SDK's products and how the toolchain's
# tools (swift-symbolgraph-extract, swift-api-digester, docc) read their compiled modules.
#
# Both tools read the modules the ordinary debug build already made (`swift build --build-tests
# -Xswiftc -warnings-as-errors`, the build `make test` runs), so documentation and the API check add
# no compilation of their own. TERN_MODULES_DIR points them at other modules (the checks' tests do).

# Each SDK product is one module of the same name. TernInAppUI and TernInboxUI are iOS only: on
# Linux they are empty modules, and their API comes from the SDK's iOS build (docs: the iOS symbol
# graphs; api-baseline: IOS_API_MODULES).
SDK_MODULES=(TernProtocol TernCore TernPush TernNotificationService TernTarget TernProfile TernInApp TernInbox
    TernInAppUI TernInboxUI)
# The products whose public API exists only in the iOS build.
IOS_API_MODULES=(TernInAppUI TernInboxUI)
# The server's library product: `make docs` builds its reference (the operators' guides and its API).
SERVER_MODULES=(TernServer)
# The SDK's iOS minimum (Package.swift's platforms): the target of the iOS symbol graphs.
IOS_TARGET=arm64-apple-ios16.0
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
    for product in TernNotificationService TernTarget TernProfile TernInAppUI TernInboxUI; do  # and what they depend on
        (cd "$root" && swift build "${BUILD_FLAGS[@]}" --target "$product" >"$work/build-$product.log" 2>&1) || {
            cat "$work/build-$product.log" >&2
            echo "docs: the SDK did not build (whole log: $work/build-$product.log)" >&2
            return 1
        }
    done
}

# The server's C libraries' include directories (libpq's is not on the default path), for
# swift-symbolgraph-extract to load the server's C shims.
server_tool_flags() {
    local flag
    for flag in $(pkg-config --cflags-only-I libpq libcurl openssl libnghttp2 2>/dev/null); do
        printf '%s\n' -Xcc "$flag"
    done
}

# Builds the server's library (nothing when the test build is current).
build_server() {
    (cd "$root" && swift build "${BUILD_FLAGS[@]}" --target TernServer >"$work/build-TernServer.log" 2>&1) || {
        cat "$work/build-TernServer.log" >&2
        echo "docs: the server did not build (whole log: $work/build-TernServer.log)" >&2
        return 1
    }
}

# The iOS build of the SDK (../shared/apple/ios-build.sh, which `make test` runs before the docs):
# where its modules are, and how the tools read them for an Apple target.
ios_scratch() { echo "${TERN_IOS_SCRATCH:-$root/.build/ios}"; }
ios_modules_dir() { echo "${TERN_IOS_MODULES_DIR:-$(ios_scratch)/build/arm64-apple-ios/debug/Modules}"; }
ios_build_script() { echo "$root/../shared/apple/ios-build.sh"; }

ios_sdk_path() {
    if [ "$(uname)" = Darwin ]; then
        xcrun --sdk iphoneos --show-sdk-path
    else
        echo "$(ios_scratch)/sdk/iPhoneOS17.0.sdk"
    fi
}

# Builds the SDK for iOS (the Apple-only API compiled in); false when there is no iOS SDK here.
build_sdk_ios() {
    local script
    script=$(ios_build_script)
    [ -x "$script" ] || return 1
    (cd "$root" && TERN_IOS_SCRATCH="$(ios_scratch)" "$script" TernCore TernPush TernNotificationService \
        TernTarget TernProfile TernInApp TernInAppUI TernInbox TernInboxUI >"$work/build-ios.log" 2>&1) || {
        cat "$work/build-ios.log" >&2
        echo "docs: the SDK did not build for iOS (whole log: $work/build-ios.log)" >&2
        return 2
    }
}

# Flags swift-symbolgraph-extract takes to read the iOS modules: the iOS SDK's interfaces, and on
# Linux the resource directory and module cache ios-build.sh made (with Apple's API notes).
ios_tool_flags() {
    local scratch dir
    scratch=$(ios_scratch)
    printf '%s\n' -I "$(ios_modules_dir)" -target "$IOS_TARGET" -sdk "$(ios_sdk_path)" \
        -module-cache-path "$scratch/module-cache"
    if [ "$(uname)" != Darwin ]; then printf '%s\n' -resource-dir "$scratch/resource" -I "$scratch/prebuilt"; fi
    for dir in "$root"/Sources/C*/; do printf '%s\n' -I "${dir%/}"; done
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
