#!/usr/bin/env bash
# Server benchmark: requests per second and p50/p99 latency for push/subscribe and event/push at 50
# concurrent keep-alive connections, beside the HTTP layer's own ceiling (/bench/constant answers
# {"error":0} without touching the store), all against one release-built `tern serve` in one run.
#
#   bench/server/run.sh                       # 10 s per route, 50 connections, 2 wrk threads
#   DURATION=30s CONNECTIONS=100 bench/server/run.sh
#
# Needs wrk (Debian: apt-get install -y wrk; macOS: brew install wrk). wrk runs on the same machine
# as the server, so the two share its cores: the figures are a floor, not a ceiling.
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
WRK_THREADS=${WRK_THREADS:-2}
SERVER_THREADS=${SERVER_THREADS:-4}
LOG_LEVEL=${LOG_LEVEL:-info}
SCRATCH=${SCRATCH:-.build}

command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install -y wrk, or brew install wrk)" >&2; exit 1; }

echo "== building tern (release)"
swift build -c release --product tern --scratch-path "$SCRATCH" >/dev/null
binary="$SCRATCH/release/tern"

data=$(mktemp -d -t tern-bench-XXXXXX)
"$binary" serve --port 0 --data "$data" --bench-routes --threads "$SERVER_THREADS" --log-level "$LOG_LEVEL" \
    >"$data/server.out" 2>/dev/null &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT

for _ in $(seq 1 200); do [ -s "$data/bootstrap.json" ] && break; sleep 0.05; done
api_url=$(sed -n 's/.*"api_url" : "\(.*\)".*/\1/p' "$data/bootstrap.json")
rtoken=$(sed -n 's/.*"rtoken" : "\(.*\)".*/\1/p' "$data/bootstrap.json")
root=${api_url%/api/v1}
for _ in $(seq 1 200); do curl -fs "$root/healthz" >/dev/null && break; sleep 0.05; done

scripts=bench/server/wrk
printf "\n%-22s %12s %10s %10s %10s %10s\n" "route" "requests/s" "p50 ms" "p99 ms" "requests" "non-2xx"
for route in constant subscribe event_push; do
    case $route in
        constant) url="$root/bench/constant" ;;
        subscribe) url="$api_url/push/subscribe" ;;
        event_push) url="$api_url/event/push" ;;
    esac
    RTOKEN=$rtoken wrk -t "$WRK_THREADS" -c "$CONNECTIONS" -d "$DURATION" -s "$scripts/$route.lua" "$url" \
        | sed -n 's/^RESULT //p' \
        | awk -v route="$route" '{ printf "%-22s %12.0f %10.2f %10.2f %10d %10d\n", route, $1, $2, $3, $4, $5 }'
done
echo
echo "server: $SERVER_THREADS HTTP threads, log level $LOG_LEVEL; wrk: $WRK_THREADS threads, $CONNECTIONS keep-alive connections, $DURATION per route; $(nproc 2>/dev/null || sysctl -n hw.ncpu) cores"
