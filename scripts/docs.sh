#!/usr/bin/env bash
# `make docs`: the DocC reference of each SDK product, checked, and one static site of them all.
#
#   scripts/docs.sh              builds the SDK (with the flags `make test` builds with, so the two
#                                share one build), then everything below
#   scripts/docs.sh --no-build   uses the modules already built (`make test` runs it after its build)
#   scripts/docs.sh --graphs-only  only step 1, on the modules already built
#
# 1. Symbol graphs: swift-symbolgraph-extract reads each product's compiled module (public symbols
#    and their `///` comments) into .build/docs/symbol-graphs/<Module>/.
# 2. Every public symbol has a documentation comment: any undocumented one fails (no exceptions;
#    scripts/api-baseline.sh runs the same check).
# 3. docc convert, per product, its catalog (Sources/<Module>/<Module>.docc) with its symbol graphs,
#    warnings as errors: a broken symbol link (``Tern/nope``), an undocumented parameter, a missing
#    article fail. Archives: .build/docs/archives/<Module>.doccarchive.
# 4. The site: .build/docs/site/<Module>/ (each archive transformed for static hosting under that
#    base path) and .build/docs/site/index.html. Serve it with any static server:
#        python3 -m http.server --directory .build/docs/site 8000   # then http://127.0.0.1:8000/
#
# Env (the checks' own tests use them): TERN_MODULES_DIR (modules to read instead of the build's),
# TERN_DOCS_MODULES (products to document, default all), TERN_DOCS_OUT (instead of .build/docs).
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
out=${TERN_DOCS_OUT:-$work}
mkdir -p "$work" "$out"

if [ $build = yes ]; then
    echo "docs: building the SDK"
    build_sdk
fi
modules_path=$(modules_dir)
mapfile -t flags < <(tool_flags "$modules_path")

echo "docs: symbol graphs of ${modules[*]}"
graphs="$out/symbol-graphs"
for module in "${modules[@]}"; do
    rm -rf "${graphs:?}/$module"
    mkdir -p "$graphs/$module"
    swift-symbolgraph-extract -module-name "$module" "${flags[@]}" -minimum-access-level public \
        -output-dir "$graphs/$module" >"$out/symbolgraph-$module.log" 2>&1 || {
        cat "$out/symbolgraph-$module.log" >&2
        echo "docs: no symbol graph for $module (is it built? run 'make docs')" >&2
        exit 1
    }
done

[ $graphs_only = yes ] && exit 0

echo "docs: every public symbol documented"
python3 "$root/scripts/lib/undocumented.py" "$graphs" "$root" --modules "${modules[@]}"

echo "docs: docc convert (warnings are errors)"
site="$out/site"
rm -rf "$site"
mkdir -p "$site" "$out/archives"
links=""
for module in "${modules[@]}"; do
    catalog="$root/Sources/$module/$module.docc"
    [ -d "$catalog" ] || { echo "docs: $module has no catalog: $catalog" >&2; exit 1; }
    archive="$out/archives/$module.doccarchive"
    rm -rf "$archive"
    if ! docc convert "$catalog" --additional-symbol-graph-dir "$graphs/$module" --output-path "$archive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.tern.$module" \
        --transform-for-static-hosting --hosting-base-path "$module" --warnings-as-errors \
        >"$out/docc-$module.log" 2>&1; then
        sed "s|\\(\\.\\./\\)*${root#/}/||" "$out/docc-$module.log" >&2
        echo "docs: DocC found problems in $module (whole log: $out/docc-$module.log)" >&2
        exit 1
    fi
    cp -R "$archive" "$site/$module"
    lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    links+="<li><a href=\"$module/documentation/$lower/\">$module</a></li>"
done
cat >"$site/index.html" <<HTML
<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tern SDK documentation</title></head>
<body><h1>Tern SDK documentation</h1><p>One reference per product; start with TernCore.</p>
<ul>$links</ul></body></html>
HTML
echo "docs: site in $site (serve: python3 -m http.server --directory $site 8000)"
