#!/usr/bin/env bash
# The documentation and API checks' own tests: each must pass on the real sources and fail on a
# planted mistake, naming it. Run by `make test`.
#
# A temporary copy of TernProtocol (an SDK product with no dependencies, so it compiles alone in
# seconds) is compiled with the toolchain into a module of its own, then the real checks read it
# (TERN_MODULES_DIR) against the real, committed baseline and catalog:
#   1. the copy as it is: `make docs`' steps and the API check pass (the test can pass);
#   2. an undocumented public function planted: the documentation check fails and names it, and so
#      does the API check (scripts/api-baseline.sh), even with the function in its baseline;
#   3. a broken symbol link planted in a doc comment: docc fails and names it;
#   4. a property's and an initializer's type changed: the API check fails and prints both, the
#      baseline's line as removed and the new one as added;
#   5. with the iOS SDK here (ios-build.sh unpacks it): the copy compiled for iOS too, with a public
#      function under `#if os(iOS)`: documented, it has its page in the reference, marked iOS-only;
#      undocumented, `make docs` and the API check fail and name it;
#   6. the server's library: a copy of TernServer's sources with an undocumented public function
#      planted, its module emitted against the build's modules (function bodies skipped: only the
#      declarations matter): `make docs` fails, names it, and finds nothing else undocumented.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/sdk-modules.sh
source "$root/scripts/lib/sdk-modules.sh"
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
failures=0

compile() { # compile SOURCES_DIR MODULES_DIR
    mkdir -p "$2"
    swiftc -emit-module -module-name TernProtocol -parse-as-library -swift-version 6 \
        -emit-module-path "$2/TernProtocol.swiftmodule" -module-cache-path "$root/.build/docs/module-cache" \
        "$1"/*.swift
}

fresh_copy() { # fresh_copy NAME: a copy of TernProtocol's sources in $tmp/NAME/src
    rm -rf "${tmp:?}/$1"
    mkdir -p "$tmp/$1"
    cp -R "$root/Sources/TernProtocol" "$tmp/$1/src"
    rm -rf "$tmp/$1/src/TernProtocol.docc"
}

docs_check() { # docs_check NAME
    TERN_MODULES_DIR="$tmp/$1/Modules" TERN_DOCS_MODULES=TernProtocol TERN_DOCS_OUT="$tmp/$1/out" \
        "$root/scripts/docs.sh" --no-build >"$tmp/$1/docs.log" 2>&1
}

api_check() { # api_check NAME
    TERN_MODULES_DIR="$tmp/$1/Modules" TERN_API_MODULES=TernProtocol \
        "$root/scripts/api-baseline.sh" check >"$tmp/$1/api.log" 2>&1
}

expect() { # expect DESCRIPTION LOG outcome(pass|fail) [TEXT the log must contain]...
    local description=$1 log=$2 outcome=$3 status=$4
    shift 4
    local ok=yes text
    if [ "$outcome" = pass ] && [ "$status" -ne 0 ]; then ok=no; fi
    if [ "$outcome" = fail ] && [ "$status" -eq 0 ]; then ok=no; fi
    for text in "$@"; do grep -qF -- "$text" "$log" || ok=no; done
    if [ $ok = yes ]; then
        echo "  ok: $description"
    else
        echo "  FAILED: $description (expected to $outcome$([ $# -gt 0 ] && printf ' mentioning: %s' "$*")); its output:"
        sed 's/^/    | /' "$log"
        failures=$((failures + 1))
    fi
}

echo "== the documentation and API checks' own tests"

fresh_copy clean
compile "$tmp/clean/src" "$tmp/clean/Modules"
status=0; docs_check clean || status=$?
expect "the real sources pass the documentation checks" "$tmp/clean/docs.log" pass $status
linux=no
[ "$(uname)" = Linux ] && linux=yes
if [ $linux = yes ]; then
    status=0; api_check clean || status=$?
    expect "the real sources match the API baseline" "$tmp/clean/api.log" pass $status "TernProtocol unchanged" \
        "every public symbol of TernProtocol is documented"
else
    echo "  skipped: the API baseline is Linux's (scripts/api-baseline.sh)"
fi

fresh_copy undocumented
printf '\npublic func plantedUndocumentedFunction() -> Int { 1 }\n' >>"$tmp/undocumented/src/Tags.swift"
compile "$tmp/undocumented/src" "$tmp/undocumented/Modules"
status=0; docs_check undocumented || status=$?
expect "a planted undocumented public function fails make docs" "$tmp/undocumented/docs.log" fail $status \
    "public symbol without a documentation comment: TernProtocol: function plantedUndocumentedFunction()" \
    "Tags.swift"
if [ $linux = yes ]; then
    # The API check too, against a baseline that already has the function (made from the planted
    # module itself), so the only thing wrong is the missing comment: it must fail on that alone.
    TERN_MODULES_DIR="$tmp/undocumented/Modules" TERN_API_MODULES=TernProtocol \
        TERN_API_BASELINE="$tmp/undocumented/baseline" "$root/scripts/api-baseline.sh" update >/dev/null
    status=0
    TERN_MODULES_DIR="$tmp/undocumented/Modules" TERN_API_MODULES=TernProtocol \
        TERN_API_BASELINE="$tmp/undocumented/baseline" "$root/scripts/api-baseline.sh" check \
        >"$tmp/undocumented/api.log" 2>&1 || status=$?
    expect "a planted undocumented public function fails the API check (its signature in the baseline)" \
        "$tmp/undocumented/api.log" fail $status "TernProtocol unchanged" \
        "public symbol without a documentation comment: TernProtocol: function plantedUndocumentedFunction()" \
        "Tags.swift"
fi

# The server's library: the same check on a copy of TernServer with a planted undocumented public
# function. Its module is emitted against the modules the build made (TernProtocol, TernHTTP, ...),
# without checking function bodies, so it takes seconds, not the minutes the build takes. In one
# frontend (-wmo): without it the driver type-checks the module's declarations once per file (64 s
# against 18 here).
built_modules=$(modules_dir)
if [ -e "$built_modules/TernHTTP.swiftmodule" ] && [ -e "$built_modules/TernSQLite.swiftmodule" ]; then
    server=$tmp/server-undocumented
    mkdir -p "$server/Modules"
    cp -R "$root/Sources/TernServer" "$server/src"
    printf '\npublic func plantedUndocumentedServerFunction() -> Int { 1 }\n' >>"$server/src/App/Bootstrap.swift"
    for module in TernProtocol TernSQLite TernHTTP TernCrypto; do  # with their comments and source locations
        for file in "$built_modules/$module".swift{module,doc,sourceinfo}; do
            [ -e "$file" ] && ln -s "$file" "$server/Modules/"
        done
    done
    mapfile -t c_flags < <(server_tool_flags)
    c_includes=()
    for dir in "$root"/Sources/C*/; do c_includes+=(-I "${dir%/}"); done
    accessor=$(find "$(cd "$root" && swift build --show-bin-path)/TernServer.build" -name resource_bundle_accessor.swift | head -1)
    status=0
    find "$server/src" -name '*.swift' -print0 | xargs -0 swiftc -emit-module -module-name TernServer \
        -parse-as-library -swift-version 6 -wmo -experimental-skip-non-inlinable-function-bodies \
        -I "$server/Modules" "${c_includes[@]}" "${c_flags[@]}" -module-cache-path "$root/.build/docs/module-cache" \
        -emit-module-path "$server/Modules/TernServer.swiftmodule" ${accessor:+"$accessor"} \
        >"$server/compile.log" 2>&1 || status=$?
    if [ $status -ne 0 ]; then
        echo "  FAILED: the copy of TernServer did not compile; its output:"
        sed 's/^/    | /' "$server/compile.log"
        failures=$((failures + 1))
    else
        status=0
        TERN_MODULES_DIR="$server/Modules" TERN_DOCS_MODULES=TernProtocol TERN_DOCS_SERVER_MODULES=TernServer \
            TERN_DOCS_OUT="$server/out" "$root/scripts/docs.sh" --no-build >"$server/docs.log" 2>&1 || status=$?
        expect "a planted undocumented public TernServer function fails make docs, and nothing else there" \
            "$server/docs.log" fail $status \
            "public symbol without a documentation comment: TernServer: function plantedUndocumentedServerFunction()" \
            "Bootstrap.swift" "1 public symbols without documentation"
    fi
else
    echo "  skipped: the server's check (no build of the server's dependencies in $built_modules: swift build first)"
fi

# The Apple-only API: a copy compiled for iOS too (with the iOS SDK ios-build.sh unpacked), with a
# function only iOS has. Documented, it must be in the reference; undocumented, both checks fail.
if [ -e "$(ios_sdk_path)" ] && { [ "$(uname)" = Darwin ] || [ -d "$(ios_scratch)/resource" ]; }; then
    compile_ios() { # compile_ios SOURCES_DIR MODULES_DIR
        local extra=()
        [ "$(uname)" = Darwin ] || extra=(-resource-dir "$(ios_scratch)/resource")
        mkdir -p "$2"
        swiftc -emit-module -module-name TernProtocol -parse-as-library -swift-version 6 -target "$IOS_TARGET" \
            -sdk "$(ios_sdk_path)" "${extra[@]}" -module-cache-path "$(ios_scratch)/module-cache" \
            -emit-module-path "$2/TernProtocol.swiftmodule" "$1"/*.swift
    }
    for variant in apple-documented apple-undocumented; do
        fresh_copy $variant
        comment=""
        [ $variant = apple-documented ] && comment="    /// A planted function that only the iOS build has."
        printf '\n#if os(iOS)\n%s\n    public func plantedAppleOnlyFunction() -> Int { 1 }\n#endif\n' "$comment" \
            >>"$tmp/$variant/src/Tags.swift"
        compile "$tmp/$variant/src" "$tmp/$variant/Modules"
        compile_ios "$tmp/$variant/src" "$tmp/$variant/ModulesIOS"
        status=0
        TERN_IOS_MODULES_DIR="$tmp/$variant/ModulesIOS" docs_check $variant || status=$?
        if [ $variant = apple-documented ]; then
            expect "an Apple-only public function is in the reference" "$tmp/$variant/docs.log" \
                pass $status "1 iOS-only" "iOS only: plantedAppleOnlyFunction()"
            page="$tmp/$variant/out/archives/TernProtocol.doccarchive/data/documentation/ternprotocol/plantedappleonlyfunction().json"
            if python3 - "$page" <<'PY'; then echo "  ok: ...with its page in the archive, saying iOS"; else
import json, sys
platforms = json.load(open(sys.argv[1]))["metadata"].get("platforms") or []
sys.exit(0 if "iOS" in [p["name"] for p in platforms] else f"platforms on the page: {platforms}")
PY
                echo "  FAILED: no page for the Apple-only function saying iOS: $page"; failures=$((failures + 1))
            fi
        else
            expect "a planted undocumented Apple-only public function fails make docs" "$tmp/$variant/docs.log" \
                fail $status "public symbol without a documentation comment: TernProtocol: function plantedAppleOnlyFunction()"
            if [ $linux = yes ]; then
                status=0
                TERN_MODULES_DIR="$tmp/$variant/Modules" TERN_IOS_MODULES_DIR="$tmp/$variant/ModulesIOS" \
                    TERN_API_MODULES=TernProtocol "$root/scripts/api-baseline.sh" check >"$tmp/$variant/api.log" 2>&1 \
                    || status=$?
                expect "a planted undocumented Apple-only public function fails the API check" "$tmp/$variant/api.log" \
                    fail $status "TernProtocol unchanged" \
                    "public symbol without a documentation comment: TernProtocol: function plantedAppleOnlyFunction()"
            fi
        fi
    done
else
    echo "  skipped: the Apple-only API checks (no iOS SDK: run ../shared/apple/ios-build.sh once, or use Xcode)"
fi

fresh_copy broken-link
python3 - "$tmp/broken-link/src/Tags.swift" <<'PY'
import sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
declaration = "public struct TagsSetRequest"
assert declaration in text, "TagsSetRequest moved: update the planted link"
text = text.replace(declaration, "/// See ``TagsSetRequest/plantedMissingMember``.\n" + declaration, 1)
open(path, "w", encoding="utf-8").write(text)
PY
compile "$tmp/broken-link/src" "$tmp/broken-link/Modules"
status=0; docs_check broken-link || status=$?
expect "a planted broken symbol link fails make docs" "$tmp/broken-link/docs.log" fail $status \
    "plantedMissingMember" "DocC found problems in TernProtocol"

if [ $linux = yes ]; then
    fresh_copy signature
    python3 - "$tmp/signature/src/Tags.swift" <<'PY'
import sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
for old, new in (("public var keys: [String]", "public var keys: Set<String>"),
                 ("subscriptionId: String, keys: [String])", "subscriptionId: String, keys: Set<String>)")):
    assert old in text, f"{old!r} moved: update the planted signature change"
    text = text.replace(old, new, 1)
open(path, "w", encoding="utf-8").write(text)
PY
    compile "$tmp/signature/src" "$tmp/signature/Modules"
    status=0; api_check signature || status=$?
    expect "a planted signature change fails the API check and says what changed" "$tmp/signature/api.log" fail $status \
        "the public API of TernProtocol changed" \
        "- removed or changed (breaks apps): var TernProtocol.TagsRemoveRequest.keys : [Swift.String]" \
        "+ added or changed: var TernProtocol.TagsRemoveRequest.keys : Swift.Set<Swift.String>" \
        "init TernProtocol.TagsRemoveRequest.init(provider:subscriptionId:keys:) (Swift.String, Swift.String, Swift.Set<Swift.String>)"
fi

if [ $failures -gt 0 ]; then
    echo "docs-checks: $failures failed"
    exit 1
fi
echo "docs-checks: all passed"
