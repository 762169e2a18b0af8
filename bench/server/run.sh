#!/usr/bin/env bash
# Server benchmark, one run, side by side under the same wrk settings (threads, connections,
# duration): requests/s, p50 and p99 latency of
#   nginx        Debian's nginx, one worker, a constant JSON 200: the machine's HTTP ceiling
#   django       django-push-notifications registering APNs devices (DRF's APNSDeviceViewSet) on
#                gunicorn with SQLite in WAL mode: the peer a team would pick instead
#   constant     Tern's /bench/constant: the HTTP layer, no store
#   subscribe    push/subscribe, a new token each request
#   update       push/update of one of UPDATE_TOKENS subscriptions
#   event_push   event/push, one delivery report each request
#   event_post   event/post, one goal each request
# with each one's ratio to Tern's no-store route and to nginx, and the tern server's peak memory.
#
#   bench/server/run.sh                       # 10 s per route, 50 connections, 2 wrk threads
#   DURATION=30s CONNECTIONS=100 bench/server/run.sh
#   SKIP_DJANGO=1 bench/server/run.sh         # without the Python peer (no venv, no PyPI)
#
# Installs wrk and nginx with apt-get when missing, and the Python peer into a venv beside this
# script (bench/server/django/.venv), never into the product. wrk runs on the same machine as the
# servers, so they share its cores: the figures are a floor, not a ceiling.
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-50}
WRK_THREADS=${WRK_THREADS:-2}
SERVER_THREADS=${SERVER_THREADS:-4}
LOG_LEVEL=${LOG_LEVEL:-info}
SCRATCH=${SCRATCH:-.build}
UPDATE_TOKENS=${UPDATE_TOKENS:-200}
SKIP_DJANGO=${SKIP_DJANGO:-0}
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

echo "== building tern (release)"
swift build -c release --product tern --scratch-path "$SCRATCH" >/dev/null
binary="$SCRATCH/release/tern"

work=$(mktemp -d -t tern-bench-XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

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

# Tern.
data="$work/tern"
mkdir -p "$data"
"$binary" serve --port 0 --data "$data" --bench-routes --threads "$SERVER_THREADS" --log-level "$LOG_LEVEL" \
    >"$work/server.out" 2>"$work/server.log" &
server=$!
pids+=($server)

for _ in $(seq 1 200); do [ -s "$data/bootstrap.json" ] && break; sleep 0.05; done
field() { sed -n "s/.*\"$1\" : \"\{0,1\}\([^\",]*\)\"\{0,1\}.*/\1/p" "$data/bootstrap.json"; }
api_url=$(field api_url)
rtoken=$(field rtoken)
admin_key=$(field admin_key)
project_id=$(field project_id)
root=${api_url%/api/v1}
for _ in $(seq 1 200); do curl -fs "$root/healthz" >/dev/null && break; sleep 0.05; done
for _ in $(seq 1 200); do curl -fs -o /dev/null "http://127.0.0.1:$nginx_port/" && break; sleep 0.05; done
if [ -n "$django_port" ]; then
    for _ in $(seq 1 200); do curl -s -o /dev/null "http://127.0.0.1:$django_port/device/apns/" && break; sleep 0.1; done
fi

# What event/post and push/update need: a pixel, and subscriptions to update.
pixel_sid=bench-pixel
curl -fs -o /dev/null -X POST "$api_url/admin/projects/$project_id/pixels" -H "Authorization: Bearer $admin_key" \
    -H 'Content-Type: application/json' -d "{\"sid\":\"$pixel_sid\",\"name\":\"bench\"}"
for i in $(seq 0 $((UPDATE_TOKENS - 1))); do
    printf 'url = "%s/push/subscribe"\n-H "X-Tern-RToken: %s"\n-H "Content-Type: application/json"\n-d "{\\"time\\":1,\\"provider\\":\\"ios-apns\\",\\"subscription_id\\":\\"upd-%d\\",\\"sync\\":false}"\n-o /dev/null\n' \
        "$api_url" "$rtoken" "$i"
    [ "$i" -lt $((UPDATE_TOKENS - 1)) ] && echo next
done >"$work/subscribe.curl"
curl -fs -K "$work/subscribe.curl"

results="$work/results"
: >"$results"
run() {
    local name=$1 script=$2 url=$3
    local line
    line=$(RTOKEN=$rtoken PIXEL_SID=$pixel_sid UPDATE_TOKENS=$UPDATE_TOKENS \
        wrk -t "$WRK_THREADS" -c "$CONNECTIONS" -d "$DURATION" -s "$scripts/$script.lua" "$url" \
        | sed -n 's/^RESULT //p')
    echo "$name ${line:-0 0 0 0 0}" >>"$results"
}

echo "== measuring (${DURATION} per route)"
run nginx constant "http://127.0.0.1:$nginx_port/"
[ -n "$django_port" ] && run django django_apns "http://127.0.0.1:$django_port/device/apns/"
run constant constant "$root/bench/constant"
run subscribe subscribe "$api_url/push/subscribe"
run update update "$api_url/push/update"
run event_push event_push "$api_url/event/push"
run event_post event_post "$api_url/event/post"

peak_kib=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$server/status" 2>/dev/null || echo 0)

echo
awk '
    { name[NR] = $1; rate[NR] = $2; p50[NR] = $3; p99[NR] = $4; count[NR] = $5; bad[NR] = $6
      if ($1 == "constant") tern = $2; if ($1 == "nginx") nginx = $2 }
    END {
        printf "%-12s %12s %10s %10s %12s %10s %12s %10s\n", "route", "requests/s", "p50 ms", "p99 ms",
            "requests", "non-2xx", "/ no-store", "/ nginx"
        for (i = 1; i <= NR; i++) {
            toTern = 0; toNginx = 0
            if (tern > 0) toTern = rate[i] / tern
            if (nginx > 0) toNginx = rate[i] / nginx
            printf "%-12s %12.0f %10.2f %10.2f %12d %10d %12.2f %10.2f\n", name[i], rate[i], p50[i], p99[i],
                count[i], bad[i], toTern, toNginx
        }
    }' "$results"
echo
echo "tern server peak memory (VmHWM): $((peak_kib / 1024)) MiB"
echo "tern: $SERVER_THREADS HTTP threads, log level $LOG_LEVEL; nginx: 1 worker; wrk: $WRK_THREADS threads," \
    "$CONNECTIONS keep-alive connections, $DURATION per route; $(nproc 2>/dev/null || sysctl -n hw.ncpu) cores"
