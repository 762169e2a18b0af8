#!/usr/bin/env bash
# Runs schemathesis (PyPI) against docs/api/openapi.yaml and a real `tern serve`: the SDK endpoints
# with the bootstrap rToken, the management API with the admin key, and /healthz and /metrics.
#
#   scripts/schemathesis.sh                  # every check, 100 examples per operation
#   MAX_EXAMPLES=500 scripts/schemathesis.sh
#   CHECKS=not_a_server_error scripts/schemathesis.sh
#
# Installs schemathesis with pip when it is missing. Exits non-zero when schemathesis found a failure;
# its reports (JUnit) are left in ${REPORT_DIR:-$SCRATCH/schemathesis}.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

MAX_EXAMPLES=${MAX_EXAMPLES:-100}
CHECKS=${CHECKS:-all}
SCRATCH=${SCRATCH:-.build}
REPORT_DIR=${REPORT_DIR:-$SCRATCH/schemathesis}
case $REPORT_DIR in /*) ;; *) REPORT_DIR="$repo/$REPORT_DIR" ;; esac

command -v st >/dev/null || python3 -m pip install --quiet schemathesis
command -v st >/dev/null || { echo "schemathesis: the st command is missing after pip install" >&2; exit 1; }

echo "== building tern"
swift build --product tern --scratch-path "$SCRATCH" >/dev/null
binary="$SCRATCH/debug/tern"

data=$(mktemp -d -t tern-schemathesis-XXXXXX)
"$binary" serve --port 0 --data "$data" --log-level warn >"$data/server.out" 2>"$data/server.log" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 200); do [ -s "$data/bootstrap.json" ] && break; sleep 0.05; done
api_url=$(sed -n 's/.*"api_url" : "\(.*\)".*/\1/p' "$data/bootstrap.json")
rtoken=$(sed -n 's/.*"rtoken" : "\(.*\)".*/\1/p' "$data/bootstrap.json")
admin_key=$(sed -n 's/.*"admin_key" : "\(.*\)".*/\1/p' "$data/bootstrap.json")
project_id=$(sed -n 's/.*"project_id" : \([0-9]*\).*/\1/p' "$data/bootstrap.json")
resource_id=$(sed -n 's/.*"resource_id" : \([0-9]*\).*/\1/p' "$data/bootstrap.json")
root=${api_url%/api/v1}
for _ in $(seq 1 200); do curl -fs "$root/healthz" >/dev/null && break; sleep 0.05; done

# Something for generated requests to find: a pixel and a category.
curl -fs -X POST "$api_url/admin/projects/$project_id/pixels" -H "Authorization: Bearer $admin_key" \
    -H "Content-Type: application/json" -d '{"sid":"pixel"}' >/dev/null
curl -fs -X PUT "$api_url/admin/resources/$resource_id/categories/news" -H "Authorization: Bearer $admin_key" \
    -H "Content-Type: application/json" -d '{"title":"News"}' >/dev/null

mkdir -p "$REPORT_DIR"
status=0
run() {
    local name=$1
    shift
    echo "== schemathesis: $name"
    # From the temporary directory: schemathesis leaves a .schemathesis folder where it runs.
    (cd "$data" && st run "$repo/docs/api/openapi.yaml" --url "$root" --checks "$CHECKS" \
        --max-examples "$MAX_EXAMPLES" --generation-database ":memory:" --report junit \
        --report-dir "$REPORT_DIR/$name" "$@") || status=1
}
run sdk --include-path-regex '^/api/v1/(push|profile|event)/' -H "X-Tern-RToken: $rtoken"
run admin --include-path-regex '^/api/v1/admin/' -H "Authorization: Bearer $admin_key"
run ops --include-path-regex '^/(healthz|metrics)$'

if grep -q '"level":"error"' "$data/server.log"; then
    echo "== the server logged errors:"
    grep '"level":"error"' "$data/server.log" | head -20
    status=1
fi
exit $status
