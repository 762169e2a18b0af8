#!/usr/bin/env bash
# The whole send path, end to end, in one run: N devices subscribed through the SDK API of a
# release-built `tern serve` whose APNs origin is a local HTTP/2 TLS stand-in (the nginx of
# bench/apns/run.sh: it reads each body and answers 200 with the apns-id), then one `tern send` to
# the resource, timed from its start until its statistics say done. Beside it, h2load sends the
# same number of requests to the same stand-in (this machine's ceiling for the provider side).
#
#   bench/send/run.sh [DEVICES]        (20000)
#
# Prints subscribes/s, deliveries/s end to end (and the time to done), h2load's requests/s and the
# ratio. Installs nginx-light, its echo module and nghttp2-client with apt-get when missing.
# TERN_BENCH_SCRATCH picks SwiftPM's scratch path (.build); TERN_BIN runs that tern instead of
# building one (two builds side by side); SERVE_ARGS adds `tern serve` options;
# BARE=1 subscribes the devices without the custom fields Tern's SDK sends with every subscribe;
# RETAINS=1 counts the server's swift_retain, swift_release and malloc calls in the first send
# (uprobes: exact, unlike the timings; the send itself is slowed). PERF_DATA=FILE records the
# server's profile during the send (PERF_ALL=1: every process, the
# database's too); PROGRESS=1 prints `tern send`'s progress lines, each stamped with the seconds
# since the send began; ROUNDS=N sends N messages in turn to the same devices, each one's ratio to
# the h2load runs before and after it, and prints their median. With `--database` in SERVE_ARGS the send starts once the
# server's statistics upkeep after the subscribes is done (tern_db_tables_analyzed_total still for 3 s), and it also prints PostgreSQL's CPU time (the
# cluster on that URL's port, as scripts/postgres.sh starts it) per subscribe and per delivery: on two cores the database and
# tern share the CPU, so the rate follows whichever of them costs more. STATEMENTS=1 then prints the
# statements PostgreSQL spent the send's time in (pg_stat_statements: bench/lib/postgres-statements.sh
# says how to start the cluster with it).
# PERSONALIZED=1 sends "Hi {{_fname|there}}" (each push made for its person as it is sent), half
# the devices' people subscribed with a first name.
# WEBHOOK=1 gives the project a webhook of push.sent to a receiver on loopback
# (bench/lib/webhook_receiver.py) before the send: each delivery's outcome then writes an event
# for it, and the run also prints how long after the send began the receiver had them all.
set -euo pipefail
cd "$(dirname "$0")/../.."

devices=${1:-20000}
ROUNDS=${ROUNDS:-1}
SERVE_ARGS=${SERVE_ARGS:-}

missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ] || missing+=(libnginx-mod-http-echo)
command -v h2load >/dev/null || missing+=(nghttp2-client)
if [ ${#missing[@]} -gt 0 ]; then
    echo "bench: installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/tern-bench-send.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s.%N; }

# The stand-in (bench/lib/apns-standin.sh): nginx reading each body before answering.
# shellcheck source=bench/lib/apns-standin.sh
. bench/lib/apns-standin.sh
start_apns_standin "$work"
pids+=("$standin_pid")
port=$standin_port

if [ -n "${TERN_BIN:-}" ]; then
    tern=$TERN_BIN
else
    echo "== building tern (release)"
    scratch=(--scratch-path "${TERN_BENCH_SCRATCH:-.build}")
    swift build -c release "${scratch[@]}" --product tern >/dev/null
    tern=$(swift build -c release "${scratch[@]}" --show-bin-path)/tern
fi

# APNS_DELAY_MS: APNs as far away as the real one (tens of milliseconds): tern reaches the stand-in
# through bench/lib/delay_proxy.py, which holds each chunk that long each way. The send is then
# bound by how many pushes are in flight, not by the CPU; h2load still reaches the stand-in directly.
apns_port=$port
if [ -n "${APNS_DELAY_MS:-}" ]; then
    apns_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    python3 bench/lib/delay_proxy.py "$apns_port" 127.0.0.1 "$port" "$APNS_DELAY_MS" >"$work/apns-proxy.out" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do grep -q ready "$work/apns-proxy.out" && break; sleep 0.05; done
fi

data="$work/tern"
mkdir -p "$data"
# shellcheck disable=SC2086
"$tern" serve --port 0 --data "$data" --apns-production-url "https://127.0.0.1:$apns_port" \
    --apns-sandbox-url "https://127.0.0.1:$apns_port" --provider-ca-file "$work/ca.pem" --log-level warn $SERVE_ARGS \
    >"$work/server.out" 2>"$work/server.log" &
server=$!
pids+=($server)
for _ in $(seq 1 200); do [ -s "$data/bootstrap.json" ] && break; sleep 0.05; done
field() { sed -n "s/.*\"$1\" : \"\{0,1\}\([^\",]*\)\"\{0,1\}.*/\1/p" "$data/bootstrap.json"; }
api_url=$(field api_url)
rtoken=$(field rtoken)
admin_key=$(field admin_key)
project_id=$(field project_id)
resource_id=$(field resource_id)
root=${api_url%/api/v1}
for _ in $(seq 1 200); do curl -fs "$root/healthz" >/dev/null && break; sleep 0.05; done

# APNs credentials: a fresh P-256 key; the stand-in does not check the JWT.
apns_credential_json "$work" >"$work/apns.json"
curl -fs -o /dev/null -X PUT "$api_url/admin/projects/$project_id/credentials/apns" \
    -H "Authorization: Bearer $admin_key" -H 'Content-Type: application/json' --data-binary "@$work/apns.json"

if [ -n "${WEBHOOK:-}" ]; then
    python3 bench/lib/webhook_receiver.py >"$work/receiver.out" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 100); do grep -q PORT "$work/receiver.out" && break; sleep 0.05; done
    receiver_port=$(sed -n 's/^PORT //p' "$work/receiver.out")
    curl -fs -o /dev/null -X POST "$api_url/admin/projects/$project_id/webhooks" \
        -H "Authorization: Bearer $admin_key" -H 'Content-Type: application/json' \
        --data "{\"url\":\"http://127.0.0.1:$receiver_port/tern\",\"events\":[\"push.sent\"]}"
fi

echo "== subscribing $devices devices through push/subscribe (50 at a time)"
python3 - "$devices" "$api_url" "$rtoken" "${BARE:-}" "${PERSONALIZED:-}" >"$work/subscribe.curl" <<'PY'
import json, sys
count, api, rtoken, bare = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1"
personalized = sys.argv[5] == "1"
# The custom fields Tern's SDK sends with every subscribe (DeviceFields, the app's identity and the
# session's figures), as an iPhone would: every real subscription carries them, and the fan-out
# reads each candidate's row. BARE=1 subscribes without them, as this bench did before 6 December.
fields = {
    "_os": "IOS", "_os_tz": "+0100", "_os_language": "en", "_device_type": "Mob",
    "_device_model": "iPhone15,2", "_device_name": "iPhone", "_ad_track": False,
    "_os_ver": {"raw": "18.6.2", "ver": "[\"18.0\", \"6.0\", \"2.0\"]"},
    "_app_id": "com.example.bench", "_app_iid": "1", "_app_ver": "3.4.1",
    "_session_count": 12, "_foreground_time": 1834, "_first_session": 1764000000000,
    "_last_session": 1764900000000,
}
for i in range(count):
    token = "%064x" % (0xbe7c4 << 200 | i)
    body = {"time": 1, "provider": "ios-apns", "subscription_id": token, "sync": False}
    if not bare:
        body["custom_fields"] = fields
    if personalized and i % 2 == 0:
        body["profile_fields"] = {"_fname": "Ana"}
    data = json.dumps(body, separators=(",", ":")).replace("\\", "\\\\").replace('"', '\\"')
    if i:
        print("next")
    print('url = "%s/push/subscribe"' % api)
    print('header = "X-Tern-RToken: %s"' % rtoken)
    print('header = "Content-Type: application/json"')
    print('header = "Idempotency-Key: bench-%d"' % i)
    print('data = "%s"' % data)
    print('output = "/dev/null"')
PY
# The database's CPU time (clock ticks), when SERVE_ARGS names a PostgreSQL URL; 0 without one.
# shellcheck source=bench/lib/postgres-cpu.sh
. bench/lib/postgres-cpu.sh
db_port=$(printf '%s' "$SERVE_ARGS" | sed -n 's|.*--database [^ ]*://[^ ]*:\([0-9][0-9]*\)/.*|\1|p')
db_ticks() { if [ -n "$db_port" ]; then postgres_cpu_ticks "$db_port"; else echo 0; fi; }
# shellcheck source=bench/lib/postgres-statements.sh
. bench/lib/postgres-statements.sh
# shellcheck source=bench/lib/retains.sh
. bench/lib/retains.sh
db_url=$(printf '%s' "$SERVE_ARGS" | sed -n 's|.*--database \([^ ]*\).*|\1|p')
if [ -n "${STATEMENTS:-}" ]; then
    [ -n "$db_url" ] || { echo "STATEMENTS=1 needs --database in SERVE_ARGS" >&2; exit 2; }
    postgres_statements_reset "$db_url" # before the subscribes: a cluster without the module stops the run here
fi
db_before_subscribe=$(db_ticks)
started=$(now)
curl -fsSZ --parallel-max 50 -K "$work/subscribe.curl"
subscribed=$(now)
# On PostgreSQL the server analyzes the tables the subscribes grew (profiles, subscriptions, the
# stored answers) at its next look, every two seconds: wait until a look past the subscribes
# analyzed nothing, so that work is counted with the subscribes' database time and not in the
# send's (it landed in the send about one run in two; 0.1-0.2 s of the database's CPU).
if [ -n "$db_port" ]; then
    analyzed() { curl -fs "$root/metrics" | sed -n 's/^tern_db_tables_analyzed_total \([0-9]*\).*/\1/p'; }
    last=$(analyzed) quiet=0
    for _ in $(seq 1 60); do
        sleep 0.5
        now_analyzed=$(analyzed)
        if [ "$now_analyzed" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0 last=$now_analyzed; fi
        [ "$quiet" -ge 6 ] && break
    done
fi
db_after_subscribe=$(db_ticks)

# The server's CPU time (user + system, clock ticks) across a send: a steadier figure than the
# rate on a shared, noisy machine.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
# The stand-in's worker (nginx's one worker process): its CPU per request in the send and under
# h2load says how much of the gap is the provider side's own work on tern's requests.
standin_worker=$(pgrep -P "$standin_pid" | head -1)
standin_ticks() { awk '{print $14 + $15}' "/proc/$standin_worker/stat"; }

# h2load: as many requests as there are devices, to the same stand-in; appends its rate and the
# stand-in's and tern's CPU ticks while it ran.
token=$(printf 'a%.0s' $(seq 64))
printf '%s' '{"aps":{"alert":{"title":"Sale","body":"30% off today"},"mutable-content":1},"tern":{"v":1,"message_id":"bench"}}' \
    >"$work/payload.json"
h2load_rates=() h2load_standin=() h2load_tern=()
run_h2load() {
    local standin_before tern_before out
    standin_before=$(standin_ticks)
    tern_before=$(cpu_ticks)
    out=$(h2load -n "$devices" -c 1 -m 100 -t 1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
        -H "apns-push-type: alert" -H "authorization: bearer x" "https://127.0.0.1:$port/3/device/$token" 2>&1)
    h2load_standin+=($(($(standin_ticks) - standin_before)))
    h2load_tern+=($(($(cpu_ticks) - tern_before)))
    local rate
    rate=$(echo "$out" | sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p')
    h2load_rates+=("${rate:-0}")
}

# One `tern send` to the resource, timed from its start until its statistics say done; appends
# its seconds, its last statistics line and the CPU ticks of tern, the stand-in and the database.
send_seconds=() send_stats=() send_cpu=() send_standin=() send_db=()
run_send() {
    local round=$1 cpu_before standin_before db_before sending finished
    cpu_before=$(cpu_ticks)
    standin_before=$(standin_ticks)
    db_before=$(db_ticks)
    sending=$EPOCHREALTIME
    # Each progress line is stamped with the seconds since the send began (PROGRESS=1 prints them).
    "$tern" send --title "${PERSONALIZED:+Hi {{_fname|there\}\}: }Sale" --body "30% off today" --resource "$resource_id" --data "$data" --interval 0.05 \
        --json 2>"$work/send.err" | while IFS= read -r line; do
            elapsed=$((${EPOCHREALTIME/./} - ${sending/./}))
            printf '%3d.%03d %s\n' $((elapsed / 1000000)) $((elapsed / 1000 % 1000)) "$line"
        done >"$work/send-$round.out" \
        || { cat "$work/send.err" >&2; exit 1; }
    finished=$EPOCHREALTIME
    send_cpu+=($(($(cpu_ticks) - cpu_before)))
    send_standin+=($(($(standin_ticks) - standin_before)))
    send_db+=($(($(db_ticks) - db_before)))
    send_seconds+=("$(python3 -c "print($finished - $sending)")")
    send_stats+=("$(tail -1 "$work/send-$round.out" | cut -c9-)")
    if [ -n "${PROGRESS:-}" ]; then sed '$d' "$work/send-$round.out"; fi
}

# h2load runs before the first send and after each one, and each send's ratio is to the mean of
# the two h2load runs around it: this machine's speed drifts by a third from one minute to the
# next, and a ratio to one h2load run taken after the send moved with that drift (0.39 to 0.63
# for the same build in one afternoon). ROUNDS=3 sends three messages in turn to the same devices.
echo "== h2load: $devices requests to the same stand-in (1 connection x 100 streams), then $ROUNDS send(s) of one message to the resource, each followed by h2load again"
run_h2load
if [ -n "${STATEMENTS:-}" ]; then postgres_statements_reset "$db_url"; fi
first_send=$(now)
for round in $(seq 1 "$ROUNDS"); do
    # PERF_DATA=/tmp/send.data records the server's profile during the first send (perf record -g).
    if [ "$round" = 1 ] && [ -n "${PERF_DATA:-}" ]; then
        target=(-p "$server")
        if [ -n "${PERF_ALL:-}" ]; then target=(-a); fi
        perf record ${PERF_OPTS:--F 999 -g} "${target[@]}" -o "$PERF_DATA" >/dev/null 2>&1 &
        perf_pid=$!
        sleep 0.5
    fi
    # BARE=1 subscribes the devices without the custom fields Tern's SDK sends with every subscribe;
# RETAINS=1 counts the server's reference counting and allocations during the first send.
    if [ "$round" = 1 ] && [ -n "${RETAINS:-}" ]; then retains_start "$server" "$tern" "$work/retains.csv"; fi
    run_send "$round"
    if [ -n "${perf_pid:-}" ]; then kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true; perf_pid=; fi
    if [ -n "${retains_pid:-}" ]; then
        retains_stop
        echo "  calls a delivery (RETAINS=1; the send is slowed): $(retains_report "$work/retains.csv" "$devices")"
    fi
    run_h2load
done

if [ -n "${WEBHOOK:-}" ]; then
    # Every push.sent event of every round, as the receiver counted them.
    expected=$((devices * ROUNDS))
    for _ in $(seq 1 1200); do
        received=$(curl -fs "http://127.0.0.1:$receiver_port/count" | python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])')
        [ "$received" -ge "$expected" ] && break
        sleep 0.1
    done
    curl -fs "http://127.0.0.1:$receiver_port/count" | python3 -c '
import json, sys
state, started, expected = json.load(sys.stdin), float(sys.argv[1]), int(sys.argv[2])
took = (state["last"] or started) - started
print("webhook     %d of %d push.sent events in %d posts, the last %.2f s after the first send began (%.0f events/s)" % (
    state["events"], expected, state["posts"], took, state["events"] / took if took > 0 else 0))' "$first_send" "$expected"
fi

peak_kib=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$server/status" 2>/dev/null || echo 0)
list() { local IFS=,; echo "[$*]"; }
stats_json=$(printf '%s\n' "${send_stats[@]}" | python3 -c 'import json, sys; print(json.dumps([json.loads(l) for l in sys.stdin]))')
python3 - "$devices" "$started" "$subscribed" "$peak_kib" "$(getconf CLK_TCK)" \
    "$((db_after_subscribe - db_before_subscribe))" "$(list "${h2load_rates[@]}")" "$(list "${h2load_standin[@]}")" \
    "$(list "${h2load_tern[@]}")" "$(list "${send_seconds[@]}")" "$stats_json" "$(list "${send_cpu[@]}")" \
    "$(list "${send_standin[@]}")" "$(list "${send_db[@]}")" <<'PY'
import json, statistics, sys
devices, started, subscribed, peak, ticks = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
db_subscribe = int(sys.argv[6]) / ticks
h2load, h2load_standin, h2load_tern = (json.loads(a) for a in sys.argv[7:10])
seconds, stats, cpu, standin, db = (json.loads(a) for a in sys.argv[10:15])
print()
print("subscribe   %6d devices in %6.2f s = %8.0f subscribes/s (curl, 50 in parallel)" % (devices, subscribed - started, devices / (subscribed - started)))
if db_subscribe:
    print("database CPU %5.2f s during the subscribes and the upkeep after them = %5.1f µs per subscribe" % (db_subscribe, 1e6 * db_subscribe / devices))
ratios = []
for i, (send, stat) in enumerate(zip(seconds, stats)):
    sent = stat.get("sent", 0)
    rate = sent / send if send > 0 else 0
    around = (h2load[i] + h2load[i + 1]) / 2
    ratios.append(rate / around if around else 0)
    label = "send" if len(seconds) == 1 else "send %d" % (i + 1)
    print("%-11s %6d sent, %d failed, done=%s in %6.2f s = %8.0f deliveries/s end to end" % (
        label, sent, stat.get("failed", 0), stat.get("done"), send, rate))
    print("  h2load    %8.0f requests/s before, %8.0f after (same stand-in; %d requests each)" % (h2load[i], h2load[i + 1], devices))
    print("  tern CPU  %6.2f s = %5.1f µs per delivery; stand-in %5.1f µs per push (%5.1f per h2load request)" % (
        cpu[i] / ticks, 1e6 * cpu[i] / ticks / sent if sent else 0, 1e6 * standin[i] / ticks / sent if sent else 0,
        1e6 * (h2load_standin[i] + h2load_standin[i + 1]) / 2 / ticks / devices))
    if db[i]:
        print("  database CPU %5.2f s = %5.1f µs per delivery" % (db[i] / ticks, 1e6 * db[i] / ticks / sent if sent else 0))
    print("  ratio     %.2f of h2load's mean around it" % ratios[-1])
print("tern's CPU while h2load ran: %.2f s in all" % (sum(h2load_tern) / ticks))
if len(ratios) == 1:
    print("ratio       tern end to end / h2load = %.2f (aim: 0.5 or better)" % ratios[0])
else:
    print("ratio       tern end to end / h2load: median %.2f of %s (aim: 0.5 or better)" % (
        statistics.median(ratios), ", ".join("%.2f" % r for r in ratios)))
print("tern serve peak memory (VmHWM): %d MiB" % (peak // 1024))
PY
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${STATEMENTS:-}" ]; then
    echo "== PostgreSQL's statements during the send (pg_stat_statements, by total time)"
    postgres_statements_top "$db_url"
fi
