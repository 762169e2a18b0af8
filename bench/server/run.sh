#!/usr/bin/env bash
# Server benchmark, one run, side by side under the same wrk settings (threads, connections,
# duration): requests/s, p50 and p99 latency of
#   nginx        Debian's nginx, one worker, a constant JSON 200: the machine's HTTP ceiling
#   django       django-push-notifications registering APNs devices (DRF's APNSDeviceViewSet) on
#                gunicorn with SQLite in WAL mode: the peer a team would pick instead
#   constant     Tern's /bench/constant: the HTTP layer, no store
#   subscribe    push/subscribe, a new token each request
#   update       push/update of one of UPDATE_TOKENS subscriptions
#   event_push   event/push, one delivery or open report each request, for a real delivery (the
#                bench sends EVENT_DELIVERIES deliveries first; each gives two counted inserts)
#   event_post   event/post, one goal each request
# for each store in BACKENDS (`tern serve` on SQLite under --data, and on PostgreSQL: a throwaway
# cluster from scripts/postgres.sh, started here and stopped at the end), one table with each row's
# ratio to its own server's no-store route, to nginx and (PostgreSQL's rows) to SQLite's same
# route, tern's CPU time per request (user and system, during the route's run) and the part of it
# in its HTTP event loops (which run the handlers too; the rest is mostly the store), bytes written
# per request (to files: the log's frames, the checkpoints, the log lines), PostgreSQL's CPU time
# per request (its rows: every process of the cluster; on two cores it shares them with tern and
# wrk) and round trips to it per request (tern's /metrics), SQLite's writes per group-committed
# transaction (tern's /metrics), and each tern server's peak memory.
#
#   bench/server/run.sh                       # 10 s per route, 50 connections, 2 wrk threads
#   DURATION=30s CONNECTIONS=100 bench/server/run.sh
#   SKIP_DJANGO=1 bench/server/run.sh         # without the Python peer (no venv, no PyPI)
#   WARMUP=0 bench/server/run.sh              # measure fresh servers: no warm-up (see below)
#   ROUTES="constant update" bench/server/run.sh  # some of tern's routes (default: all five)
#   RETAINS=1 bench/server/run.sh             # each route's swift_retain, swift_release and malloc
#                                             # calls a request (uprobes; slows the server)
#   PERF_DATA=/tmp/p bench/server/run.sh      # perf record of tern serve on each route, to
#                                             # /tmp/p-BACKEND-ROUTE (PERF_OPTS, default -g)
#   TERN_BIN=/tmp/tern bench/server/run.sh    # that tern binary instead of building one (two trees
#                                             # in turns)
#   SERVE_ARGS="--write-batch-wait-ms 1" bench/server/run.sh  # more `tern serve` options
#   KEYS=random bench/server/run.sh           # version 4 idempotency keys (default: version 7,
#                                             # time-ordered, as the SDK makes them)
#   KEEP=1 bench/server/run.sh                # keeps the scratch directory (each server's log,
#                                             # one line per request with its duration; the data;
#                                             # bench/server/handler_latency.py reads the log)
#   STATEMENTS=1 bench/server/run.sh          # after each PostgreSQL route, the statements its
#                                             # database spent its time in (pg_stat_statements)
#   BACKENDS=sqlite bench/server/run.sh       # default: "sqlite postgresql" when PostgreSQL's server
#                                             # programs are installed, else "sqlite"
#   AUTOGROUP=0 bench/server/run.sh           # Linux's kernel.sched_autogroup_enabled for the run
#                                             # (root; put back at the end). The default leaves the
#                                             # machine's setting, printed under the table. With it
#                                             # on, every PostgreSQL process is a scheduling group of
#                                             # its own (each calls setsid) while tern and wrk share
#                                             # one: see docs/scaling.md, "PostgreSQL's stalls".
#   DB_DELAY_MS=0.25 bench/server/run.sh      # PostgreSQL as if on another host: tern reaches it
#                                             # through bench/lib/delay_proxy.py, which holds each
#                                             # chunk that long each way (a round trip 0.5 ms more;
#                                             # the proxy's own CPU comes out of the same two cores)
#   BUILD_FLAGS="-Xswiftc -Xfrontend -Xswiftc -disable-llvm-optzns" bench/server/run.sh
#       (for a toolchain whose LLVM crashes on the release build: see bench/inapp/run.sh)
#
# Installs wrk and nginx with apt-get when missing, and the Python peer into a venv beside this
# script (bench/server/django/.venv), never into the product. wrk runs on the same machine as the
# servers, so they share its cores: the figures are a floor, not a ceiling.
#
# Warm-up: before its routes are measured, each server takes WARMUP (20 s) of its registration
# route unmeasured (nginx its constant answer, django its device registrations, tern push/subscribe).
# A brand-new SQLite database writes at a fraction of its later rate: in 5-second windows from a
# fresh `tern serve`, subscribes ran at 6.1k, 9.4k, 11.6k, 12.9k, 13.9k/s, and a server restarted
# on that database started at 8k/s; the batches were 24 writes each at first, 3 later. The figures
# are meant to be the steady rate a running server keeps, so the first seconds are not counted.
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-20s}
CONNECTIONS=${CONNECTIONS:-50}
WRK_THREADS=${WRK_THREADS:-2}
SERVER_THREADS=${SERVER_THREADS:-4}
LOG_LEVEL=${LOG_LEVEL:-info}
SCRATCH=${SCRATCH:-.build}
UPDATE_TOKENS=${UPDATE_TOKENS:-200}
SKIP_DJANGO=${SKIP_DJANGO:-0}
# 150,000 deliveries give 300,000 distinct reports: more than 10 s of event/push on SQLite asks here
# (with 40,000, two thirds of its requests were repeats, only looked up).
EVENT_DELIVERIES=${EVENT_DELIVERIES:-150000}
ROUTES=${ROUTES:-constant subscribe update event_push event_post}
server=""
BUILD_FLAGS=${BUILD_FLAGS:-}
if [ -z "${BACKENDS:-}" ]; then
    BACKENDS=sqlite
    if command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
        ls /opt/homebrew/opt/postgresql*/bin/initdb /usr/local/opt/postgresql*/bin/initdb >/dev/null 2>&1; then
        BACKENDS="sqlite postgresql"
    fi
fi
export WRK_THREADS
scripts=bench/server/wrk

need() {
    command -v "$1" >/dev/null && return
    if command -v apt-get >/dev/null; then
        echo "== installing $2 (apt-get)"
        apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y "$2" >/dev/null; }
    fi
    command -v "$1" >/dev/null || { echo "bench: $1 is missing (apt-get install -y $2)" >&2; exit 1; }
}
need wrk wrk
need nginx nginx

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

autogroup_file=/proc/sys/kernel/sched_autogroup_enabled
autogroup_before=""
if [ -n "${AUTOGROUP:-}" ]; then
    [ -w "$autogroup_file" ] || { echo "bench: AUTOGROUP needs Linux and root (to write $autogroup_file)" >&2; exit 1; }
    [ "$AUTOGROUP" = 0 ] || [ "$AUTOGROUP" = 1 ] || { echo "bench: AUTOGROUP is 0 or 1, not '$AUTOGROUP'" >&2; exit 1; }
fi
if [ -n "${DB_DELAY_MS:-}" ] && ! [[ "$DB_DELAY_MS" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
    echo "bench: DB_DELAY_MS is milliseconds each way, like 0.25, not '$DB_DELAY_MS'" >&2
    exit 1
fi

if [ -n "${TERN_BIN:-}" ]; then
    binary=$TERN_BIN
else
    echo "== building tern (release)"
    # shellcheck disable=SC2086 # BUILD_FLAGS is a list of flags
    swift build -c release $BUILD_FLAGS --product tern --scratch-path "$SCRATCH" >/dev/null
    binary="$SCRATCH/release/tern"
fi

work=$(mktemp -d -t tern-bench-XXXXXX)
pg_dir=""
pids=()
cleanup() {
    [ -z "$autogroup_before" ] || echo "$autogroup_before" >"$autogroup_file"
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    [ -z "$pg_dir" ] || scripts/postgres.sh stop "$pg_dir"
    if [ "${KEEP:-0}" = 1 ]; then echo "== kept $work (server logs, data)"; else rm -rf "$work"; fi
}
trap cleanup EXIT
if [ -n "${AUTOGROUP:-}" ]; then
    autogroup_before=$(cat "$autogroup_file")
    echo "$AUTOGROUP" >"$autogroup_file"
fi

# nginx: one worker, a constant JSON answer, no access log.
nginx_port=$(free_port)
mkdir -p "$work/nginx/logs"
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
error_log $work/nginx/logs/error.log warn;
pid $work/nginx/nginx.pid;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $work/nginx/body;
    server {
        listen 127.0.0.1:$nginx_port;
        location / { default_type application/json; return 200 '{"error":0}'; }
    }
}
EOF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" &
pids+=($!)

# django-push-notifications on gunicorn (sync workers, 2 x cores + 1 as gunicorn advises).
django_port=""
if [ "$SKIP_DJANGO" != 1 ]; then
    venv=bench/server/django/.venv
    if [ ! -x "$venv/bin/gunicorn" ]; then
        echo "== installing django-push-notifications, djangorestframework, gunicorn into $venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q django-push-notifications djangorestframework gunicorn
    fi
    django_port=$(free_port)
    export BENCH_DJANGO_DB="$work/django.sqlite3"
    (cd bench/server/django && "../../../$venv/bin/python" -m django migrate --settings=benchsite.settings -v 0)
    python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA journal_mode=WAL').fetchone()[0])" \
        "$BENCH_DJANGO_DB" >/dev/null
    workers=$(($(nproc) * 2 + 1))
    (cd bench/server/django && exec "../../../$venv/bin/gunicorn" --workers "$workers" \
        --bind "127.0.0.1:$django_port" --log-level warning benchsite.wsgi) &
    pids+=($!)
fi

for _ in $(seq 1 200); do curl -fs -o /dev/null "http://127.0.0.1:$nginx_port/" && break; sleep 0.05; done
if [ -n "$django_port" ]; then
    for _ in $(seq 1 200); do curl -s -o /dev/null "http://127.0.0.1:$django_port/device/apns/" && break; sleep 0.1; done
fi

results="$work/results"
notes="$work/notes"
: >"$results"
: >"$notes"
# db_ticks BACKEND: the PostgreSQL cluster's CPU time (clock ticks) so far; "-" for other backends.
# shellcheck source=bench/lib/postgres-cpu.sh
. bench/lib/postgres-cpu.sh
# shellcheck source=bench/lib/postgres-statements.sh
. bench/lib/postgres-statements.sh
# shellcheck source=bench/lib/retains.sh
. bench/lib/retains.sh
if [ -n "${STATEMENTS:-}" ]; then
    # The cluster loads pg_stat_statements, counting the triggers' and foreign keys' statements too.
    export POSTGRES_OPTS="${POSTGRES_OPTS:-} -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all -c pg_stat_statements.track_planning=on"
fi
db_ticks() {
    if [ "$1" != postgresql ] || [ -z "${pg_dir:-}" ]; then echo -; return; fi
    postgres_cpu_ticks "$(cat "$pg_dir/port")"
}

# db_round_trips: how many times the tern server's PostgreSQL connections waited for an answer
# (its /metrics): a figure of the code, which this machine's noise does not move.
db_round_trips() {
    curl -fs "$root/metrics" | sed -n 's/^tern_db_round_trips_total \([0-9]*\).*/\1/p'
}

# loop_ticks PID: the CPU time (clock ticks) of the server's HTTP event loops so far, the threads
# named tern.http: they read, route and run the handlers; the rest of tern's time is the store's
# writer and reader and the runtime's pool.
loop_ticks() {
    cat /proc/"$1"/task/*/stat 2>/dev/null | awk '$2 == "(tern.http)" {sum += $14 + $15} END {print sum + 0}'
}

# store_batches: "WRITES BATCHES" the SQLite store's writer applied so far (tern's /metrics); each
# route's writes per batch say how much group commit shared its commits.
store_batches() {
    curl -fs "$root/metrics" | awk '/^tern_store_writes_total / {w = $2} /^tern_store_write_batches_total / {b = $2}
        END {print w + 0, b + 0}'
}

# run BACKEND NAME SCRIPT URL: one wrk run, one line of $results.
run() {
    local backend=$1 name=$2 script=$3 url=$4
    local line perf=""
    if [ -n "${PERF_DATA:-}" ] && [ -n "${server:-}" ]; then
        # shellcheck disable=SC2086 # PERF_OPTS is a list of flags
        perf record ${PERF_OPTS:--g} -o "$PERF_DATA-$backend-$name" -p "$server" >/dev/null 2>&1 &
        perf=$!
        sleep 0.5
    fi
    # RETAINS=1: the server's reference counting and allocations across the run.
    local retains=""
    if [ -n "${RETAINS:-}" ] && [ -n "${server:-}" ]; then
        retains_start "$server" "$binary" "$work/retains-$backend-$name.csv"
        retains=yes
    fi
    # Tern's CPU time (user + system) across the run, per request: steadier than the rates on a
    # shared, noisy machine, where the same tree's no-store route swings by a third between runs.
    # And the bytes it wrote to files (the log's frames, the checkpoints' copies, its log lines), per
    # request: what a write's index leaves cost, without the machine's noise.
    local ticks="" written="" db trips=- loopTicks=""
    db=$(db_ticks "$backend")
    if [ "$backend" = postgresql ]; then trips=$(db_round_trips); fi
    local batches=-
    if [ "$backend" = sqlite ]; then batches=$(store_batches); fi
    if [ "$backend" = postgresql ] && [ -n "${STATEMENTS:-}" ]; then postgres_statements_reset "$pg_url"; fi
    if [ "$backend" != - ]; then
        ticks=$(awk '{print $14 + $15}' "/proc/$server/stat")
        written=$(sed -n 's/^wchar: //p' "/proc/$server/io")
        loopTicks=$(loop_ticks "$server")
    fi
    line=$(WRK_RUN=$(date +%s%N) RTOKEN=${rtoken:-} PIXEL_SID=bench-pixel UPDATE_TOKENS=$UPDATE_TOKENS \
        PUSH_IDS=${push_ids:-} wrk -t "$WRK_THREADS" -c "$CONNECTIONS" -d "$DURATION" -s "$scripts/$script.lua" "$url" \
        | sed -n 's/^RESULT //p')
    local cpu=- bytes=- loops=-
    if [ -n "$ticks" ]; then cpu=$(($(awk '{print $14 + $15}' "/proc/$server/stat") - ticks)); fi
    if [ -n "$loopTicks" ]; then loops=$(($(loop_ticks "$server") - loopTicks)); fi
    if [ -n "$written" ]; then bytes=$(($(sed -n 's/^wchar: //p' "/proc/$server/io") - written)); fi
    if [ "$db" != - ]; then db=$(($(db_ticks "$backend") - db)); fi
    if [ "$trips" != - ]; then trips=$(($(db_round_trips) - trips)); fi
    if [ "$batches" != - ]; then
        batches=$(echo "$batches $(store_batches)" | awk '$4 > $2 {printf "%.1f", ($3 - $1) / ($4 - $2); next} {print "-"}')
    fi
    echo "$backend $name ${line:-0 0 0 0 0} $cpu $bytes $db $trips $batches $loops" >>"$results"
    if [ "$backend" = postgresql ] && [ -n "${STATEMENTS:-}" ]; then
        echo "== postgresql $name: the statements the database spent the route's time in"
        postgres_statements_top "$pg_url" 14
    fi
    if [ -n "$perf" ]; then
        kill -INT "$perf"
        wait "$perf" 2>/dev/null || true
    fi
    if [ -n "$retains" ]; then
        retains_stop
        echo "$backend $name: calls a request (RETAINS=1; the run's rates are slowed):" \
            "$(retains_report "$work/retains-$backend-$name.csv" "$(echo "${line:-0 0 0 0}" | awk '{print $4}')")" >>"$notes"
    fi
}

# warm SCRIPT URL: WARMUP of one route, not recorded.
warm() {
    [ "$WARMUP" = 0 ] && return
    WRK_RUN=$(date +%s%N) RTOKEN=${rtoken:-} UPDATE_TOKENS=$UPDATE_TOKENS wrk -t "$WRK_THREADS" -c "$CONNECTIONS" -d "$WARMUP" \
        -s "$scripts/$1.lua" "$2" >/dev/null
}

echo "== measuring (${DURATION} per route, each server warmed for ${WARMUP} first)"
warm constant "http://127.0.0.1:$nginx_port/"
run - nginx constant "http://127.0.0.1:$nginx_port/"
if [ -n "$django_port" ]; then
    warm django_apns "http://127.0.0.1:$django_port/device/apns/"
    run - django django_apns "http://127.0.0.1:$django_port/device/apns/"
fi

# measure BACKEND: a fresh tern serve on that store, its setup, its routes, its peak memory.
measure() {
    local backend=$1 data="$work/tern-$1" store_args=()
    mkdir -p "$data"
    if [ "$backend" = postgresql ]; then
        pg_dir=$(mktemp -d /tmp/tern-bench-pg.XXXXXX)
        pg_url=$(scripts/postgres.sh start "$pg_dir")
        local tern_pg_url=$pg_url
        if [ -n "${DB_DELAY_MS:-}" ]; then
            local proxy_port
            proxy_port=$(free_port)
            python3 bench/lib/delay_proxy.py "$proxy_port" 127.0.0.1 "$(cat "$pg_dir/port")" "$DB_DELAY_MS" \
                >"$work/delay-proxy.out" 2>&1 &
            pids+=($!)
            for _ in $(seq 1 100); do grep -q ready "$work/delay-proxy.out" && break; sleep 0.05; done
            tern_pg_url=${pg_url/:$(cat "$pg_dir/port")\//:$proxy_port/}
        fi
        store_args=(--database "$tern_pg_url")
    fi
    # shellcheck disable=SC2086 # SERVE_ARGS is a list of options
    "$binary" serve --port 0 --data "$data" "${store_args[@]}" --bench-routes --threads "$SERVER_THREADS" \
        --log-level "$LOG_LEVEL" ${SERVE_ARGS:-} >"$work/server-$backend.out" 2>"$work/server-$backend.log" &
    server=$!
    pids+=($server)
    for _ in $(seq 1 400); do [ -s "$data/bootstrap.json" ] && break; sleep 0.05; done
    field() { sed -n "s/.*\"$1\" : \"\{0,1\}\([^\",]*\)\"\{0,1\}.*/\1/p" "$data/bootstrap.json"; }
    local api_url admin_key project_id resource_id root
    api_url=$(field api_url)
    rtoken=$(field rtoken)
    admin_key=$(field admin_key)
    project_id=$(field project_id)
    resource_id=$(field resource_id)
    root=${api_url%/api/v1}
    for _ in $(seq 1 200); do curl -fs "$root/healthz" >/dev/null && break; sleep 0.05; done
    echo "== $backend: $(curl -fs "$root/healthz")"

    # What event/post, push/update and event/push need: a pixel, subscriptions to update, and
    # real deliveries to report.
    curl -fs -o /dev/null -X POST "$api_url/admin/projects/$project_id/pixels" -H "Authorization: Bearer $admin_key" \
        -H 'Content-Type: application/json' -d '{"sid":"bench-pixel","name":"bench"}'
    for i in $(seq 0 $((UPDATE_TOKENS - 1))); do
        printf 'url = "%s/push/subscribe"\n-H "X-Tern-RToken: %s"\n-H "Content-Type: application/json"\n-d "{\\"time\\":1,\\"provider\\":\\"ios-apns\\",\\"subscription_id\\":\\"upd-%d\\",\\"sync\\":false}"\n-o /dev/null\n' \
            "$api_url" "$rtoken" "$i"
        [ "$i" -lt $((UPDATE_TOKENS - 1)) ] && echo next
    done >"$work/subscribe.curl"
    curl -fs -K "$work/subscribe.curl"
    push_ids="$work/push-ids-$backend"
    : >"$push_ids"
    if [[ " $ROUTES " == *" event_push "* ]]; then
        echo "== $backend: $(python3 bench/server/setup_events.py "$api_url" "$admin_key" "$resource_id" \
            "$EVENT_DELIVERIES" "$push_ids") for event/push"
    fi

    warm subscribe "$api_url/push/subscribe"
    local route
    for route in $ROUTES; do
        case $route in
        constant) run "$backend" constant constant "$root/bench/constant" ;;
        subscribe) run "$backend" subscribe subscribe "$api_url/push/subscribe" ;;
        update) run "$backend" update update "$api_url/push/update" ;;
        event_push) run "$backend" event_push event_push "$api_url/event/push" ;;
        event_post) run "$backend" event_post event_post "$api_url/event/post" ;;
        *) echo "bench: unknown route $route in ROUTES" >&2; exit 2 ;;
        esac
    done

    # How many of event/push's reports were not counted (repeats and unknown ones are lookups only).
    local ignored
    ignored=$(curl -fs "$root/metrics" | sed -n 's/^tern_push_events_ignored_total{reason="\([a-z_]*\)"} \([0-9]*\).*/\2 \1/p' | paste -sd, -)
    echo "$backend event/push: $(($(wc -l <"$push_ids") * 2)) distinct reports prepared; ignored: ${ignored:-none}" >>"$notes"
    if [ "$backend" = postgresql ]; then
        # Batches rolled back for a write's failure and run again with a savepoint per write.
        echo "$backend write batches run again with savepoints (all routes):" \
            "$(curl -fs "$root/metrics" | sed -n 's/^tern_db_batches_run_again_total \([0-9]*\).*/\1/p')" >>"$notes"
    fi
    local peak_kib
    peak_kib=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$server/status" 2>/dev/null || echo 0)
    echo "$backend tern server peak memory (VmHWM): $((peak_kib / 1024)) MiB" >>"$notes"
    kill -TERM "$server"
    wait "$server" 2>/dev/null || true
    server=""
    # The answers that were not 2xx, by route and status, and how many of them were deadlocks.
    python3 - "$backend" "$work/server-$backend.log" >>"$notes" <<'PY'
import collections, json, sys
counts, deadlocks = collections.Counter(), collections.Counter()
for line in open(sys.argv[2], errors="replace"):
    try:
        entry = json.loads(line)
    except ValueError:
        continue
    status = entry.get("status")
    if isinstance(status, int) and status >= 300:
        key = (entry.get("route", "?"), status)
        counts[key] += 1
        deadlocks[key] += "deadlock detected" in entry.get("error", "")
for (route, status), count in sorted(counts.items()):
    print("%s %s: %d answers %d (%d of them: deadlock detected)" % (sys.argv[1], route, count, status,
                                                                  deadlocks[(route, status)]))
PY
    if [ "$backend" = postgresql ]; then
        scripts/postgres.sh stop "$pg_dir"
        pg_dir=""
    fi
}
for backend in $BACKENDS; do measure "$backend"; done

echo
awk -v hz="$(getconf CLK_TCK)" '
    { backend[NR] = $1; name[NR] = $2; rate[NR] = $3; p50[NR] = $4; p99[NR] = $5; count[NR] = $6; bad[NR] = $7
      ticks[NR] = $8; bytes[NR] = $9; db[NR] = $10; trips[NR] = $11; perBatch[NR] = $12; loops[NR] = $13
      if ($2 == "constant") tern[$1] = $3; if ($2 == "nginx") nginx = $3; if ($1 == "sqlite") sqlite[$2] = $3 }
    END {
        printf "%-10s %-11s %11s %8s %8s %10s %8s %10s %8s %8s %9s %9s %8s %8s %8s %8s\n", "store", "route", "requests/s", "p50 ms",
            "p99 ms", "requests", "non-2xx", "/no-store", "/nginx", "/sqlite", "CPU us/r", "loops", "KiB w/r", "DB us/r",
            "trips/r", "w/batch"
        for (i = 1; i <= NR; i++) {
            toTern = "-"; toNginx = "-"; toSQLite = "-"; cpu = "-"; written = "-"; dbcpu = "-"; perTrip = "-"
            if (tern[backend[i]] > 0) toTern = sprintf("%.2f", rate[i] / tern[backend[i]])
            if (nginx > 0) toNginx = sprintf("%.2f", rate[i] / nginx)
            if (backend[i] != "sqlite" && backend[i] != "-" && sqlite[name[i]] > 0)
                toSQLite = sprintf("%.2f", rate[i] / sqlite[name[i]])
            if (ticks[i] != "-" && ticks[i] != "" && count[i] > 0) cpu = sprintf("%.1f", ticks[i] / hz * 1e6 / count[i])
            if (bytes[i] != "-" && bytes[i] != "" && count[i] > 0) written = sprintf("%.1f", bytes[i] / 1024 / count[i])
            if (db[i] != "-" && db[i] != "" && count[i] > 0) dbcpu = sprintf("%.1f", db[i] / hz * 1e6 / count[i])
            if (trips[i] != "-" && trips[i] != "" && count[i] > 0) perTrip = sprintf("%.2f", trips[i] / count[i])
            if (perBatch[i] == "") perBatch[i] = "-"
            loopcpu = "-"
            if (loops[i] != "-" && loops[i] != "" && count[i] > 0) loopcpu = sprintf("%.1f", loops[i] / hz * 1e6 / count[i])
            printf "%-10s %-11s %11.0f %8.2f %8.2f %10d %8d %10s %8s %8s %9s %9s %8s %8s %8s %8s\n", backend[i], name[i], rate[i],
                p50[i], p99[i], count[i], bad[i], toTern, toNginx, toSQLite, cpu, loopcpu, written, dbcpu, perTrip, perBatch[i]
        }
    }' "$results"
echo
cat "$notes"
echo "tern: $SERVER_THREADS HTTP threads, log level $LOG_LEVEL; nginx: 1 worker; wrk: $WRK_THREADS threads," \
    "$CONNECTIONS keep-alive connections, $DURATION per route after a $WARMUP warm-up per server; $(nproc 2>/dev/null || sysctl -n hw.ncpu) cores," \
    "load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
[ ! -r "$autogroup_file" ] ||
    echo "scheduler: kernel.sched_autogroup_enabled = $(cat "$autogroup_file")$([ -z "$autogroup_before" ] || echo " for this run (AUTOGROUP; $autogroup_before before and after)")"
[[ " $BACKENDS " != *" postgresql "* ]] ||
    echo "postgresql: scripts/postgres.sh's throwaway cluster on this machine (fsync and wal_init_zero off), the server's default pool$(
        [ -z "${DB_DELAY_MS:-}" ] || echo "; tern reached it through bench/lib/delay_proxy.py, $DB_DELAY_MS ms each way")"
