#!/usr/bin/env bash
# Issue 20's figures for the body limits, in one run against one release-built `tern serve`:
#  1. what the limit scan costs beside decoding, per body (tern-bench-limits), on the ingest
#     benchmark's bodies and on the largest body the limits allow;
#  2. a normal request's p50/p95/p99 alone, then while four clients send the largest body the limits
#     allow, then while four clients send the probe's 70,000-key body (now refused by the scan).
#
#   bench/limits/run.sh                 # 10 s per phase
#   DURATION=20s bench/limits/run.sh
#
# Needs wrk. wrk and the server share the machine's cores: compare the rows, not the machines.
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-10s}
SCRATCH=${SCRATCH:-.build}
command -v wrk >/dev/null || { echo "bench: wrk is missing (apt-get install -y wrk)" >&2; exit 1; }

echo "== building tern and tern-bench-limits (release)"
swift build -c release --product tern --scratch-path "$SCRATCH" >/dev/null
swift build -c release --product tern-bench-limits --scratch-path "$SCRATCH" >/dev/null

data=$(mktemp -d -t tern-limits-XXXXXX)
# The largest push/subscribe body the limits allow: 200 profile fields of 8 strings of 30
# characters (1,811 values of the 2,000, 63 KB of the 64 KiB), and the probe's body of 70,000
# custom fields (0.9 MB).
python3 - "$data" <<'PY'
import json, sys
directory = sys.argv[1]
fields = {f"f{i}": ["x" * 30 for _ in range(8)] for i in range(200)}
largest = {"time": 1700000000000, "provider": "ios-apns", "subscription_id": "heavy", "sync": True,
           "profile_fields": fields}
open(f"{directory}/largest.json", "w").write(json.dumps(largest))
probe = {"time": 1700000000000, "provider": "ios-apns", "subscription_id": "probe", "sync": True,
         "custom_fields": {f"k{i}": 0 for i in range(70000)}}
open(f"{directory}/probe.json", "w").write(json.dumps(probe))
PY
echo "largest allowed body: $(wc -c <"$data/largest.json") bytes; probe body: $(wc -c <"$data/probe.json") bytes"

echo
echo "== scan beside decode (µs per body, release)"
"$SCRATCH/release/tern-bench-limits" "$data/largest.json"

"$SCRATCH/release/tern" serve --port 0 --data "$data" --threads 4 --log-level warn >"$data/server.out" 2>/dev/null &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 1 200); do [ -s "$data/bootstrap.json" ] && break; sleep 0.05; done
api_url=$(sed -n 's/.*"api_url" : "\(.*\)".*/\1/p' "$data/bootstrap.json")
export RTOKEN=$(sed -n 's/.*"rtoken" : "\(.*\)".*/\1/p' "$data/bootstrap.json")
for _ in $(seq 1 200); do curl -fs "${api_url%/api/v1}/healthz" >/dev/null && break; sleep 0.05; done
echo "one largest body: HTTP $(curl -s -o /dev/null -w '%{http_code}' -H "X-Tern-RToken: $RTOKEN" \
    -H 'Content-Type: application/json' --data-binary @"$data/largest.json" "$api_url/push/subscribe");" \
    "one probe body: HTTP $(curl -s -o /dev/null -w '%{http_code}' -H "X-Tern-RToken: $RTOKEN" \
    -H 'Content-Type: application/json' --data-binary @"$data/probe.json" "$api_url/push/subscribe")"

normal() {
    wrk -t 1 -c 1 -d "$DURATION" -s bench/limits/normal.lua "$api_url/push/subscribe" | sed -n 's/^RESULT //p'
}
echo
printf "%-40s %10s %9s %9s %9s %14s\n" "normal push/subscribe, 1 client" "req/s" "p50 ms" "p95 ms" "p99 ms" "heavy req/s"
alone=$(normal)
echo "$alone" | awk '{ printf "%-40s %10.0f %9.2f %9.2f %9.2f %14s\n", "alone", $1, $2, $3, $4, "-" }'
for load in largest probe; do
    BODY_FILE="$data/$load.json" wrk -t 1 -c 4 -d "$DURATION" -s bench/limits/heavy.lua "$api_url/push/subscribe" \
        >"$data/heavy.out" &
    heavy=$!
    sleep 1
    beside=$(normal)
    wait $heavy
    rate=$(sed -n 's/^HEAVY //p' "$data/heavy.out" | awk '{ printf "%.1f (%d non-2xx)", $1, $3 }')
    label="with 4 clients sending the $load body"
    echo "$beside" | awk -v label="$label" -v rate="$rate" \
        '{ printf "%-40s %10.0f %9.2f %9.2f %9.2f %14s\n", label, $1, $2, $3, $4, rate }'
done
echo
echo "server: 4 HTTP threads; $(nproc 2>/dev/null || sysctl -n hw.ncpu) cores shared with wrk; $DURATION per phase"
