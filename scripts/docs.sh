#!/usr/bin/env bash
# `make docs`: the DocC reference of each SDK product and of the server, checked, and one static
# site of them all.
#
#   scripts/docs.sh              builds the SDK and the server (with the flags `make test` builds
#                                with, so the two share one build) and the SDK for iOS (through
#                                ../shared/apple/ios-build.sh, when it is there), then everything below
#   scripts/docs.sh --no-build   uses the modules already built (`make test` runs it after its builds)
#   scripts/docs.sh --graphs-only  only step 1, on the modules already built
#
# 1. Symbol graphs: swift-symbolgraph-extract reads each product's compiled module (public symbols
#    and their `///` comments) into .build/docs/symbol-graphs/<Module>/; for the SDK also from its
#    iOS build (.build/ios, made by ios-build.sh) into symbol-graphs-ios/<Module>/, where the
#    Apple-only API (`Apple/` folders, `#if os(iOS)`) is compiled in. Without an iOS build (no
#    ../shared/apple and no Xcode) it says so on one line and the reference has the Linux API only.
# 2. Every public symbol of the SDK (on Linux and on iOS) and of the server's library has a
#    documentation comment: any undocumented one fails (no exceptions; scripts/api-baseline.sh runs
#    the same check on the SDK). The server's library is public only where the `tern` binary and the
#    benchmarks use it (tests reach the rest with `@testable import TernServer`).
# 3. docc convert, per product, its catalog (Sources/<Module>/<Module>.docc) with its symbol graphs
#    (the SDK's Linux and iOS graphs merged by scripts/lib/merge_graphs.py: the iOS-only API is
#    marked as such), warnings as errors: a broken symbol link (``Tern/nope``), an undocumented
#    parameter, a missing article fail. The server's catalog gets the operators' guides from docs/
#    (scripts/lib/docs_articles.py), so a broken link between them fails too. Archives:
#    .build/docs/archives/<Module>.doccarchive.
# 4. The site: .build/docs/site/<Module>/ (each archive transformed for static hosting under that
#    base path) and .build/docs/site/index.html. Serve it with any static server:
#        python3 -m http.server --directory .build/docs/site 8000   # then http://127.0.0.1:8000/
#
# Env (the checks' own tests use them): TERN_MODULES_DIR (modules to read instead of the build's;
# no iOS graphs then, unless TERN_IOS_MODULES_DIR names iOS modules too), TERN_DOCS_MODULES (SDK
# products to document, default all; when set, the server is left out), TERN_DOCS_SERVER_MODULES
# (the server's modules to document even so, read from TERN_MODULES_DIR too), TERN_DOCS_OUT (instead
# of .build/docs), TERN_IOS_SCRATCH (the iOS build, default .build/ios).
set -euo pipefail
# shellcheck source=lib/sdk-modules.sh
source "$(dirname "$0")/lib/sdk-modules.sh"

build=yes
graphs_only=no
for arg in "$@"; do
    case $arg in
        --no-build) build=no ;;
        --graphs-only) build=no graphs_only=yes ;;
        *) echo "usage: scripts/docs.sh [--no-build | --graphs-only]" >&2; exit 2 ;;
    esac
done
read -r -a modules <<<"${TERN_DOCS_MODULES:-${SDK_MODULES[*]}}"
server_modules=()
[ -z "${TERN_DOCS_MODULES:-}" ] && [ $graphs_only = no ] && server_modules=("${SERVER_MODULES[@]}")
[ -n "${TERN_DOCS_SERVER_MODULES:-}" ] && read -r -a server_modules <<<"$TERN_DOCS_SERVER_MODULES"
out=${TERN_DOCS_OUT:-$work}
mkdir -p "$work" "$out"

ios=no
if [ $build = yes ]; then
    echo "docs: building the SDK and the server"
    build_sdk
    [ ${#server_modules[@]} -gt 0 ] && build_server
    ios_status=0
    build_sdk_ios || ios_status=$?
    [ $ios_status -eq 2 ] && exit 1
fi
if { [ -z "${TERN_MODULES_DIR:-}" ] || [ -n "${TERN_IOS_MODULES_DIR:-}" ]; } \
    && [ -e "$(ios_modules_dir)/${modules[0]}.swiftmodule" ]; then
    ios=yes
fi
modules_path=$(modules_dir)
mapfile -t flags < <(tool_flags "$modules_path")

extract() { # extract MODULE DIR LOG FLAGS...: one module's symbol graphs into DIR
    local module=$1 dir=$2 log=$3
    shift 3
    rm -rf "$dir"
    mkdir -p "$dir"
    swift-symbolgraph-extract -module-name "$module" "$@" -minimum-access-level public -output-dir "$dir" \
        >"$log" 2>&1 || {
        cat "$log" >&2
        echo "docs: no symbol graph for $module in $dir (is it built? run 'make docs')" >&2
        exit 1
    }
}

echo "docs: symbol graphs of ${modules[*]} ${server_modules[*]}"
graphs="$out/symbol-graphs"
for module in "${modules[@]}"; do
    extract "$module" "$graphs/$module" "$out/symbolgraph-$module.log" "${flags[@]}"
done
if [ ${#server_modules[@]} -gt 0 ]; then
    mapfile -t server_flags < <(server_tool_flags)
    for module in "${server_modules[@]}"; do
        extract "$module" "$graphs/$module" "$out/symbolgraph-$module.log" "${flags[@]}" "${server_flags[@]}"
    done
fi
ios_graphs="$out/symbol-graphs-ios"
rm -rf "$ios_graphs"
if [ $ios = yes ]; then
    echo "docs: symbol graphs of ${modules[*]} for iOS (the Apple-only API)"
    mapfile -t ios_flags < <(ios_tool_flags)
    for module in "${modules[@]}"; do
        extract "$module" "$ios_graphs/$module" "$out/symbolgraph-ios-$module.log" "${ios_flags[@]}"
    done
elif [ -z "${TERN_MODULES_DIR:-}" ]; then
    echo "docs: the Apple-only API is left out: no iOS build of the SDK in $(ios_modules_dir)" \
        "(../shared/apple/ios-build.sh or Xcode makes it)"
fi

[ $graphs_only = yes ] && exit 0

echo "docs: every public symbol documented"
python3 "$root/scripts/lib/undocumented.py" "$graphs" "$root" --modules "${modules[@]}"
if [ $ios = yes ]; then
    python3 "$root/scripts/lib/undocumented.py" "$ios_graphs" "$root" --modules "${modules[@]}"
fi
if [ ${#server_modules[@]} -gt 0 ]; then
    python3 "$root/scripts/lib/undocumented.py" "$graphs" "$root" --modules "${server_modules[@]}"
fi

echo "docs: docc convert (warnings are errors)"
site="$out/site"
rm -rf "$site"
mkdir -p "$site" "$out/archives"
sdk_links=""
server_links=""
for module in "${modules[@]}" "${server_modules[@]}"; do
    catalog="$root/Sources/$module/$module.docc"
    [ -d "$catalog" ] || { echo "docs: $module has no catalog: $catalog" >&2; exit 1; }
    module_graphs="$graphs/$module"
    if [ $ios = yes ] && [ -d "$ios_graphs/$module" ]; then
        module_graphs="$out/symbol-graphs-merged/$module"
        python3 "$root/scripts/lib/merge_graphs.py" "$graphs/$module" "$ios_graphs/$module" "$module_graphs" \
            >"$out/merge-$module.log"
        echo "docs: $module: $(head -1 "$out/merge-$module.log")"
        tail -n +2 "$out/merge-$module.log" | sed 's/^ */docs:   /'
    fi
    if [ "$module" = TernServer ]; then
        # The operators' guides, made from docs/ for this build: never a second copy to keep.
        generated="$out/catalogs/$module.docc"
        rm -rf "$generated"
        mkdir -p "$out/catalogs"
        cp -R "$catalog" "$generated"
        python3 "$root/scripts/lib/docs_articles.py" "$root/docs" "$generated" operating providers sending \
            scaling dashboard segments
        catalog="$generated"
    fi
    archive="$out/archives/$module.doccarchive"
    rm -rf "$archive"
    if ! docc convert "$catalog" --additional-symbol-graph-dir "$module_graphs" --output-path "$archive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.tern.$module" \
        --transform-for-static-hosting --hosting-base-path "$module" --warnings-as-errors \
        >"$out/docc-$module.log" 2>&1; then
        sed "s|\\(\\.\\./\\)*${root#/}/||" "$out/docc-$module.log" >&2
        echo "docs: DocC found problems in $module (whole log: $out/docc-$module.log)" >&2
        exit 1
    fi
    cp -R "$archive" "$site/$module"
    lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    link="<li><a href=\"$module/documentation/$lower/\">$module</a></li>"
    if [ "$module" = TernServer ]; then server_links+=$link; else sdk_links+=$link; fi
done
server_section=""
[ -n "$server_links" ] && server_section="<h2>Server</h2><p>Running <code>tern serve</code>, and its library.</p><ul>$server_links</ul>"
cat >"$site/index.html" <<HTML
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tern documentation</title></head>
<body><h1>Tern documentation</h1><h2>SDK</h2><p>One reference per product; start with TernCore.</p>
<ul>$sdk_links</ul>$server_section</body></html>
HTML
echo "docs: site in $site (serve: python3 -m http.server --directory $site 8000)"
