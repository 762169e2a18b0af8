#!/usr/bin/env bash
# Fan-out of one message to DEVICES subscriptions (100,000), in one run, side by side:
#   engine sqlite       tern-bench-delivery DEVICES: the engine alone (fan-out, claim, a sender that
#                       accepts everything at once, record) on SQLite
#   engine postgresql   the same on PostgreSQL (SKIP_ENGINE_PG=1 leaves it out)
#   1 node postgresql   `tern serve --database URL`: one message to the resource, through the APNs
#                       stand-in (bench/lib/apns-standin.sh, nginx over HTTP/2 and TLS)
#   2 nodes postgresql  a second `tern serve` on another port and the same database: a second
#                       message to the same devices, claimed by both nodes
# For each: seconds until the fan-out is done and until every delivery is recorded, deliveries
# recorded per second, what the stand-in received (pushes, distinct tokens: each device once), and
# where the time went: CPU cores used by the tern node(s), PostgreSQL and nginx during the send,
# each node's share of the claims, and PostgreSQL's busiest statements (pg_stat_statements).
#
#   bench/fanout/run.sh [DEVICES]
#   BUILD_FLAGS="-Xswiftc -Xfrontend -Xswiftc -disable-llvm-optzns" bench/fanout/run.sh
#       (for a toolchain whose LLVM crashes on the release build: see bench/inapp/run.sh)
#
# The devices are subscribed through the store (tern-bench-delivery --seed), not the API: the
# subscribe path is bench/server's. PostgreSQL is scripts/postgres.sh's throwaway cluster (fsync off),
# started here and stopped at the end. Everything shares this machine's cores.
set -euo pipefail
cd "$(dirname "$0")/../.."

devices=${1:-100000}
SCRATCH=${SCRATCH:-.build}
BUILD_FLAGS=${BUILD_FLAGS:-}
SKIP_ENGINE_PG=${SKIP_ENGINE_PG:-0}
SERVE_ARGS=${SERVE_ARGS:-}

missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ] || missing+=(libnginx-mod-http-echo)
if [ ${#missing[@]} -gt 0 ]; then
    echo "bench: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== building tern and tern-bench-delivery (release)"
# shellcheck disable=SC2086 # BUILD_FLAGS is a list of flags
swift build -c release $BUILD_FLAGS --product tern --scratch-path "$SCRATCH" >/dev/null
# shellcheck disable=SC2086
swift build -c release $BUILD_FLAGS --product tern-bench-delivery --scratch-path "$SCRATCH" >/dev/null
tern="$SCRATCH/release/tern"
engine="$SCRATCH/release/tern-bench-delivery"

work=$(mktemp -d /tmp/tern-bench-fanout.XXXXXX)
pg_dir=$(mktemp -d /tmp/tern-bench-fanout-pg.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    scripts/postgres.sh stop "$pg_dir"
    rm -rf "$work"
}
trap cleanup EXIT
results="$work/results"
: >"$results"

echo "== engine alone on SQLite: tern-bench-delivery $devices"
"$engine" "$devices" | tee "$work/engine-sqlite"

echo "== PostgreSQL (with pg_stat_statements)"
url=$(scripts/postgres.sh start "$pg_dir")
psql "$url" -qAt -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
scripts/postgres.sh halt "$pg_dir"
scripts/postgres.sh resume "$pg_dir"
psql "$url" -qAt -c "CREATE EXTENSION pg_stat_statements"
postmaster=$(head -1 "$pg_dir/data/postmaster.pid")

if [ "$SKIP_ENGINE_PG" != 1 ]; then
    psql "$url" -qAt -c "CREATE DATABASE tern_engine"
    echo "== engine alone on PostgreSQL: tern-bench-delivery --database … $devices"
    "$engine" --database "${url%/*}/tern_engine" "$devices" | tee "$work/engine-postgresql"
fi

# CPU seconds (user + system) of each process given and every process under it, living or reaped.
cpu() {
    python3 - "$@" <<'PY'
import os, sys
tick = os.sysconf("SC_CLK_TCK")
def stat(pid):
    try:
        fields = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields
children = {}
for pid in os.listdir("/proc"):
    if pid.isdigit():
        fields = stat(pid)
        if fields:
            children.setdefault(fields[1], []).append(pid)
def total(pid):
    fields = stat(pid)
    if not fields:
        return 0
    own = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return own + sum(total(child) for child in children.get(pid, []))
print(" ".join("%.2f" % (total(pid) / tick) for pid in sys.argv[1:]))
PY
}

# The machine's busy CPU seconds so far (every process, this bench's or not).
machine_busy() { awk '/^cpu / { print ($2 + $3 + $4 + $7 + $8) / 100 }' /proc/stat; }

echo "== APNs stand-in"
# shellcheck source=bench/lib/apns-standin.sh
. bench/lib/apns-standin.sh
mkdir -p "$work/standin"
start_apns_standin "$work/standin" "$work/standin/pushes.log"
pids+=("$standin_pid")

node_field() { sed -n "s/.*\"$1\" : \"\{0,1\}\([^\",]*\)\"\{0,1\}.*/\1/p" "$node_data/bootstrap.json"; }

# node NAME: starts a tern serve on the database, through the stand-in; sets node_pid, node_root.
node() {
    local data="$work/$1"
    node_data=$data
    mkdir -p "$data"
    # shellcheck disable=SC2086 # SERVE_ARGS is a list of options
    "$tern" serve --port 0 --data "$data" --database "$url" --apns-production-url "https://127.0.0.1:$standin_port" \
        --apns-sandbox-url "https://127.0.0.1:$standin_port" --provider-ca-file "$work/standin/ca.pem" \
        --log-level warn $SERVE_ARGS >"$work/$1.out" 2>"$work/$1.log" &
    node_pid=$!
    pids+=("$node_pid")
    for _ in $(seq 1 400); do [ -s "$data/bootstrap.json" ] && break; sleep 0.05; done
    node_api=$(node_field api_url)
    node_root=${node_api%/api/v1}
    for _ in $(seq 1 400); do curl -fs "$node_root/healthz" >/dev/null && break; sleep 0.05; done
}

node a
a_pid=$node_pid
a_root=$node_root
api_url=$node_api
admin_key=$(node_field admin_key)
project_id=$(node_field project_id)
resource_id=$(node_field resource_id)
apns_credential_json "$work" >"$work/apns.json"
curl -fs -o /dev/null -X PUT "$api_url/admin/projects/$project_id/credentials/apns" \
    -H "Authorization: Bearer $admin_key" -H 'Content-Type: application/json' --data-binary "@$work/apns.json"
echo "== seeding $devices devices into resource $resource_id"
"$engine" --database "$url" --seed "$resource_id" "$devices"
psql "$url" -qAt -c "VACUUM ANALYZE"

claimed() { curl -fs "$1/metrics" | sed -n 's/^tern_outbox_claimed_total \([0-9]*\).*/\1/p'; }
claim_seconds() { curl -fs "$1/metrics" | sed -n 's/^tern_outbox_claim_seconds_sum \([0-9.e+-]*\).*/\1/p'; }

# send NAME ROOT...: one message to the resource through node a, timed until done; CPU of the
# nodes, PostgreSQL and nginx meanwhile; each node's claims; what the stand-in received.
send() {
    local name=$1
    shift
    local roots=("$@") node_pids=("${send_pids[@]}")
    local before_lines before_cpu after_cpu claims_before=() claims=() timing
    before_lines=$(wc -l <"$work/standin/pushes.log")
    local seconds_before=()
    for root in "${roots[@]}"; do
        claims_before+=("$(claimed "$root")")
        seconds_before+=("$(claim_seconds "$root")")
    done
    psql "$url" -qAt -c "SELECT pg_stat_statements_reset()" >/dev/null
    before_cpu="$(cpu "${node_pids[@]}" "$postmaster" "$standin_pid") $(machine_busy)"
    timing=$(python3 - "$api_url" "$admin_key" "$resource_id" "$name" <<'PY'
import json, sys, time, urllib.request
api, key, resource, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
def call(method, path, body=None):
    request = urllib.request.Request(api + "/admin" + path, method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": "Bearer " + key, "Content-Type": "application/json", "Idempotency-Key": name})
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read())
start = time.monotonic()
message = call("POST", "/messages", {"title": "Sale", "body": "30% off today", "data": {"order": "A-1"},
                                    "audience": {"type": "resource", "resource_id": resource}})["id"]
fan_out = None
while True:
    state = call("GET", "/messages/" + message)
    if fan_out is None and state["fan_out_done"]:
        fan_out = time.monotonic() - start
    if state["done"]:
        break
    time.sleep(1)  # each look counts the message's deliveries: polling faster loads the database
total = time.monotonic() - start
counts = state["counts"]
print("%.2f %.2f %d %d %d" % (fan_out, total, counts["total"], counts["sent"], counts["failed"]))
PY
)
    after_cpu="$(cpu "${node_pids[@]}" "$postmaster" "$standin_pid") $(machine_busy)"
    for i in "${!roots[@]}"; do
        claims+=($(($(claimed "${roots[$i]}") - ${claims_before[$i]})))
        echo "$name: node ${i/0/a} spent $(python3 -c "print(round($(claim_seconds "${roots[$i]}") - ${seconds_before[$i]}, 2))") s in claims" \
            >>"$work/claim-notes"
    done
    sleep 0.5 # the last answers reach the log
    tail -n +$((before_lines + 1)) "$work/standin/pushes.log" >"$work/pushes-$name"
    local pushes tokens ok
    pushes=$(wc -l <"$work/pushes-$name")
    ok=$(awk '$2 == 200' "$work/pushes-$name" | wc -l)
    tokens=$(cut -d' ' -f1 "$work/pushes-$name" | sort -u | wc -l)
    echo "$name $timing $pushes $ok $tokens ${#node_pids[@]} $before_cpu $after_cpu ${claims[*]}" >>"$results"
    psql "$url" -qAt -F ' | ' -c "SELECT round(total_exec_time::numeric / 1000, 2), calls, rows,
        regexp_replace(left(query, 110), '\s+', ' ', 'g') FROM pg_stat_statements
        WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC LIMIT 6" >"$work/statements-$name"
}

echo "== one node: one message to $devices devices"
send_pids=("$a_pid")
send one_node "$a_root"

echo "== two nodes: a second message to the same devices"
node b
b_pid=$node_pid
b_root=$node_root
send_pids=("$a_pid" "$b_pid")
send two_nodes "$a_root" "$b_root"

echo
printf '%-20s %9s %9s %9s %12s %10s %10s\n' "run" "devices" "fan-out s" "done s" "deliveries/s" "sent" "failed"
for store in sqlite postgresql; do
    [ -f "$work/engine-$store" ] || continue
    python3 - "$store" "$work/engine-$store" <<'PY'
import re, sys
text = open(sys.argv[2]).read()
fan, total = map(float, re.search(r"fan-out done after ([\d.]+) s, all \d+ sent and recorded after ([\d.]+) s", text).groups())
targeted, sent = map(int, re.search(r"message to (\d+) devices: .* all (\d+) sent", text).groups())
print("%-20s %9d %9.2f %9.2f %12.0f %10d %10s" % ("engine " + sys.argv[1], targeted, fan, total, sent / total, sent, "-"))
PY
done
while read -r name fan total count sent failed _; do
    printf '%-20s %9d %9.2f %9.2f %12.0f %10d %10d\n' "${name/_/ } postgresql" "$count" "$fan" "$total" \
        "$(python3 -c "print($sent / $total)")" "$sent" "$failed"
done <"$results"

echo
echo "during each send: CPU cores busy (CPU seconds / wall seconds), the stand-in's log, each node's claims"
while read -r name _ total _ _ _ pushes ok tokens nodes rest; do
    python3 - "$name" "$total" "$pushes" "$ok" "$tokens" "$nodes" $rest <<'PY'
import sys
name, total, pushes, ok, tokens, nodes = sys.argv[1], float(sys.argv[2]), *map(int, sys.argv[3:7])
values = list(map(float, sys.argv[7:7 + 2 * (nodes + 3)]))
before, after = values[:nodes + 3], values[nodes + 3:]
claims = sys.argv[7 + 2 * (nodes + 3):]
used = [(a - b) / total for a, b in zip(after, before)]
labels = ["tern node %s" % "ab"[i] for i in range(nodes)] + ["postgresql", "nginx", "whole machine"]
print("%-10s %s; stand-in: %d pushes, %d answered 200, %d distinct tokens; claims per node: %s" % (
    name, ", ".join("%s %.2f" % pair for pair in zip(labels, used)), pushes, ok, tokens, " / ".join(claims)))
PY
done <"$results"
sed 's/node 1/node b/' "$work/claim-notes"
for name in one_node two_nodes; do
    echo
    echo "PostgreSQL's busiest statements during $name (seconds | calls | rows | statement):"
    cat "$work/statements-$name"
done
echo
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); PostgreSQL: scripts/postgres.sh (fsync off)," \
    "each node's default pool (8), batch and concurrency"
