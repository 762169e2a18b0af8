#!/usr/bin/env bash
# In-app placements benchmark, one run, under the same wrk settings (threads, connections, duration):
# requests/s, p50 and p99 latency of
#   constant              Tern's /bench/constant: the HTTP layer, no store
#   placements            inapp/placements of an identified device (profile, in-app subscription,
#                         screen filter, audience) in a project of CAMPAIGNS active campaigns
#   placements_anonymous  inapp/placements of a device without identity (anonymous campaigns only)
# with each one's ratio to the no-store route. Answers carry up to 20 placements each.
#
#   bench/inapp/run.sh                        # 10 s per route, 50 connections, 1,000 campaigns
#   DURATION=3s CAMPAIGNS=200 bench/inapp/run.sh
#   BUILD_FLAGS="-Xswiftc -Xfrontend -Xswiftc -disable-llvm-optzns" bench/inapp/run.sh
#       (Swift's optimizer without LLVM's: for a toolchain whose LLVM coroutine pass crashes on the
#       release build, as Swift 6.3.1's did on DashboardRoutes in December 2026)
#
# wrk runs on the same machine as the server, so they share its cores: the figures are a floor.
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
WRK_THREADS=${WRK_THREADS:-2}
SERVER_THREADS=${SERVER_THREADS:-4}
CAMPAIGNS=${CAMPAIGNS:-1000}
SCRATCH=${SCRATCH:-.build}
BUILD_FLAGS=${BUILD_FLAGS:-}
export CAMPAIGNS

command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install -y wrk)" >&2; exit 1; }

echo "== building tern (release)"
# shellcheck disable=SC2086 # BUILD_FLAGS is a list of flags
swift build -c release $BUILD_FLAGS --product tern --scratch-path "$SCRATCH" >/dev/null
binary="$SCRATCH/release/tern"

work=$(mktemp -d -t tern-inapp-bench-XXXXXX)
server=""
cleanup() {
    [ -n "$server" ] && { kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; }
    rm -rf "$work"
}
trap cleanup EXIT

data="$work/tern"
mkdir -p "$data"
"$binary" serve --port 0 --data "$data" --bench-routes --threads "$SERVER_THREADS" --log-level warn \
    >"$work/server.out" 2>"$work/server.log" &
server=$!
for _ in $(seq 1 200); do [ -s "$data/bootstrap.json" ] && break; sleep 0.05; done
field() { sed -n "s/.*\"$1\" : \"\{0,1\}\([^\",]*\)\"\{0,1\}.*/\1/p" "$data/bootstrap.json"; }
api_url=$(field api_url)
rtoken=$(field rtoken)
root=${api_url%/api/v1}
for _ in $(seq 1 200); do curl -fs "$root/healthz" >/dev/null && break; sleep 0.05; done

echo "== creating $CAMPAIGNS campaigns"
python3 bench/inapp/setup.py "$api_url" "$rtoken" "$(field admin_key)" "$(field project_id)" "$(field resource_id)"
placed=$(curl -fs -X POST "$api_url/inapp/placements" -H "X-Tern-RToken: $rtoken" -H 'Content-Type: application/json' \
    -d '{"provider":"ios-apns","subscription_id":"bench-device","screen":"home","max_placements":20}' |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["placements"]))')
echo "   an identified device on home gets $placed placements"

results="$work/results"
: >"$results"
run() {
    local name=$1 script=$2 url=$3 line
    RTOKEN=$rtoken wrk -t "$WRK_THREADS" -c "$CONNECTIONS" -d "$DURATION" -s "$script" "$url" >"$work/$name.out" 2>&1 ||
        true
    line=$(sed -n 's/^RESULT //p' "$work/$name.out")
    if [ -z "$line" ]; then
        echo "bench: wrk gave no result for $name:" >&2
        tail -5 "$work/$name.out" >&2
        kill -0 "$server" 2>/dev/null || { echo "bench: the server exited:" >&2; tail -20 "$work/server.log" >&2; }
    fi
    echo "$name ${line:-0 0 0 0 0}" >>"$results"
}

echo "== measuring (${DURATION} per route)"
run constant bench/server/wrk/constant.lua "$root/bench/constant"
run placements bench/inapp/placements.lua "$api_url/inapp/placements"
run placements_anonymous bench/inapp/placements_anonymous.lua "$api_url/inapp/placements"

echo
awk '
    { name[NR] = $1; rate[NR] = $2; p50[NR] = $3; p99[NR] = $4; count[NR] = $5; bad[NR] = $6
      if ($1 == "constant") tern = $2 }
    END {
        printf "%-22s %12s %10s %10s %12s %10s %12s\n", "route", "requests/s", "p50 ms", "p99 ms", "requests",
            "non-2xx", "/ no-store"
        for (i = 1; i <= NR; i++) {
            ratio = 0; if (tern > 0) ratio = rate[i] / tern
            printf "%-22s %12.0f %10.2f %10.2f %12d %10d %12.2f\n", name[i], rate[i], p50[i], p99[i], count[i],
                bad[i], ratio
        }
    }' "$results"
echo
echo "tern: $SERVER_THREADS HTTP threads, $CAMPAIGNS active campaigns; wrk: $WRK_THREADS threads," \
    "$CONNECTIONS keep-alive connections, $DURATION per route; $(nproc 2>/dev/null || sysctl -n hw.ncpu) cores"
