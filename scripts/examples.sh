#!/usr/bin/env bash
# Compiles the example app (Examples/TernExample) for iOS: the app's Swift sources as an app, and its
# Notification Service Extension's as an app extension (`ios-build.sh --extension`), each with the SDK
# products it uses, through ../shared/apple/ios-build.sh (on macOS, Xcode's iOS SDK). Run by
# `make test`.
#
# Examples/Package.swift names the example's two folders as targets (TernExampleApp,
# TernExampleNotificationService) that depend on this package by path, so the same files Xcode
# builds from TernExample.xcodeproj compile here against Apple's iOS 17 SDK interfaces: SwiftUI,
# UIKit, UserNotifications, availability, @MainActor and Sendable as Apple declares them.
#
# Where neither ../shared/apple nor Xcode exists, it says so on one line and skips. Where the SDK
# itself does not compile for iOS, the example cannot be checked: it says so, with the SDK's
# errors, and fails unless TERN_EXAMPLES_SDK_MAY_FAIL=1 (set by scripts/test.sh until the SDK's
# own iOS build is green; that build is checked by the SDK's own step).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
script="$root/../shared/apple/ios-build.sh"
if [ "$(uname)" != Darwin ] && [ ! -x "$script" ]; then
    echo "examples: skipped, no iOS SDK here (neither ../shared/apple/ios-build.sh nor Xcode)"
    exit 0
fi
if [ "$(uname)" = Darwin ] && [ ! -x "$script" ]; then
    echo "examples: skipped, ../shared/apple/ios-build.sh is not here (open Examples/TernExample/TernExample.xcodeproj in Xcode)"
    exit 0
fi

log=$(mktemp)
trap 'rm -rf "$log"' EXIT
status=0
# The app as an app; the Notification Service Extension as an app extension links it (--extension:
# it and every SDK module it uses built with -application-extension, so app-only API such as
# UIApplication.shared is an error there, as it is in Xcode's extension target).
# The build cache keeps object files of sources that moved or went away, which then clash with their
# new selves: start it afresh whenever the list of the SDK's and the example's files changed.
cache="$root/.build/ios-examples"
files=$(cd "$root" && find Sources Examples -name '*.swift' | LC_ALL=C sort | cksum)
if [ -d "$cache" ] && [ "$(cat "$cache/.tern-files" 2>/dev/null)" != "$files" ]; then
    echo "examples: the SDK's files changed since the last build: starting its cache afresh"
    rm -rf "$cache"
fi
mkdir -p "$cache"
echo "$files" >"$cache/.tern-files"
# The SDK's own iOS build (make test's step before this one, in .build/ios) has unpacked Apple's SDK
# and built SwiftUI from its interface (over a minute): the example's build takes both from there.
shared="$root/.build/ios"
if [ "$(uname)" != Darwin ] && [ -d "$shared/sdk/iPhoneOS17.0.sdk" ] && [ -f "$shared/prebuilt/SwiftUI.swiftmodule" ]; then
    export TERN_IOS_SDK="$shared/sdk/iPhoneOS17.0.sdk"
    [ -e "$cache/prebuilt" ] || ln -s "$shared/prebuilt" "$cache/prebuilt"
    # Apple's modules compiled from the SDK's headers and interfaces (UIKit, SwiftUI's dependents,
    # Foundation): the same flags build the same modules, and the cache names each by a hash of
    # them, so the example uses the SDK build's instead of compiling its own (a minute and more).
    [ -e "$cache/module-cache" ] || ln -s "$shared/module-cache" "$cache/module-cache"
fi
(cd "$root/Examples" && TERN_IOS_SCRATCH="$cache" "$script" TernExampleApp) \
    >"$log" 2>&1 || status=$?
(cd "$root/Examples" && TERN_IOS_SCRATCH="$cache" "$script" --extension TernExampleNotificationService) \
    >>"$log" 2>&1 || status=$?
cat "$log"
if [ $status -eq 0 ]; then
    echo "examples: the example app compiles for iOS, and its Notification Service Extension as an app extension"
    exit 0
fi
# Errors only in the SDK's files (Sources/...) mean the example was never reached.
errors=$(grep -E ':[0-9]+:[0-9]+: error:' "$log" || true)
if [ -n "$errors" ] && ! grep -qvE "^(\\.\\./)?Sources/|^$root/Sources/" <<<"$errors"; then
    echo "examples: NOT CHECKED: the SDK itself does not compile for iOS (its errors above), so the example's sources were not reached"
    if [ "${TERN_EXAMPLES_SDK_MAY_FAIL:-}" = 1 ]; then exit 0; fi
fi
echo "examples: the example does not compile for iOS (errors above)"
exit 1
