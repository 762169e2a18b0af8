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
# TERN_BENCH_SCRATCH picks SwiftPM's scratch path (.build); SERVE_ARGS adds `tern serve` options;
# PERF_DATA=FILE records the server's profile during the send.
set -euo pipefail
cd "$(dirname "$0")/../.."

devices=${1:-20000}
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
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d /tmp/tern-bench-send.XXXXXX)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now() { date +%s.%N; }

# The stand-in: a test CA, a certificate for 127.0.0.1, nginx reading each body before answering.
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$work/server.ext"
ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
(cd "$work" && openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 1 -subj "/CN=Tern Bench CA" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null &&
    openssl req "${ec[@]}" -keyout server.key -out server.csr -subj /CN=localhost 2>/dev/null &&
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 1 \
        -extfile server.ext 2>/dev/null)
port=$(free_port)
mkdir -p "$work/logs"
cat >"$work/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_http_echo_module.so;
worker_processes 1;
error_log $work/logs/error.log warn;
pid $work/nginx.pid;
daemon off;
events { worker_connections 1024; }
http {
    access_log off;
    map \$http_apns_id \$apns_id { "" \$request_id; default \$http_apns_id; }
    client_body_temp_path $work/body;
    server {
        listen 127.0.0.1:$port ssl http2;
        ssl_certificate $work/server.pem;
        ssl_certificate_key $work/server.key;
        http2_max_concurrent_streams 128;
        keepalive_requests 100000000;
        keepalive_timeout 300s;
        client_body_buffer_size 16k;
        location /3/device/ {
            echo_read_request_body;
            echo_exec @answer;
        }
        location @answer {
            add_header apns-id \$apns_id always;
            return 200;
        }
    }
}
CONF
"$nginx_bin" -c "$work/nginx.conf" -p "$work" &
pids+=($!)
for _ in $(seq 50); do
    curl -s -o /dev/null --cacert "$work/ca.pem" "https://127.0.0.1:$port/" && break
    sleep 0.1
done

echo "== building tern (release)"
scratch=(--scratch-path "${TERN_BENCH_SCRATCH:-.build}")
swift build -c release "${scratch[@]}" --product tern >/dev/null
tern=$(swift build -c release "${scratch[@]}" --show-bin-path)/tern

data="$work/tern"
mkdir -p "$data"
# shellcheck disable=SC2086
"$tern" serve --port 0 --data "$data" --apns-production-url "https://127.0.0.1:$port" \
    --apns-sandbox-url "https://127.0.0.1:$port" --provider-ca-file "$work/ca.pem" --log-level warn $SERVE_ARGS \
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

# APNs credentials: a fresh P-256 key in .p8 (PKCS#8) form; the stand-in does not check the JWT.
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/apns.p8" 2>/dev/null
python3 - "$work/apns.p8" >"$work/apns.json" <<'PY'
import json, sys
print(json.dumps({"team_id": "TEAM123456", "key_id": "KEY1234567", "topic": "com.example.bench",
                  "private_key": open(sys.argv[1]).read()}))
PY
curl -fs -o /dev/null -X PUT "$api_url/admin/projects/$project_id/credentials/apns" \
    -H "Authorization: Bearer $admin_key" -H 'Content-Type: application/json' --data-binary "@$work/apns.json"

echo "== subscribing $devices devices through push/subscribe (50 at a time)"
python3 - "$devices" "$api_url" "$rtoken" >"$work/subscribe.curl" <<'PY'
import sys
count, api, rtoken = int(sys.argv[1]), sys.argv[2], sys.argv[3]
for i in range(count):
    token = "%064x" % (0xbe7c4 << 200 | i)
    if i:
        print("next")
    print('url = "%s/push/subscribe"' % api)
    print('header = "X-Tern-RToken: %s"' % rtoken)
    print('header = "Content-Type: application/json"')
    print('header = "Idempotency-Key: bench-%d"' % i)
    print('data = "{\\"time\\":1,\\"provider\\":\\"ios-apns\\",\\"subscription_id\\":\\"%s\\",\\"sync\\":false}"' % token)
    print('output = "/dev/null"')
PY
started=$(now)
curl -fsSZ --parallel-max 50 -K "$work/subscribe.curl"
subscribed=$(now)

echo "== sending one message to the resource"
# PERF_DATA=/tmp/send.data records the server's profile while it sends (perf record -g).
if [ -n "${PERF_DATA:-}" ]; then
    perf record -F 999 -g -p "$server" -o "$PERF_DATA" >/dev/null 2>&1 &
    perf_pid=$!
    sleep 0.5
fi
"$tern" send --title "Sale" --body "30% off today" --resource "$resource_id" --data "$data" --interval 0.05 \
    --json >"$work/send.out" 2>"$work/send.err" || { cat "$work/send.err" >&2; exit 1; }
finished=$(now)
stats=$(tail -1 "$work/send.out")
if [ -n "${perf_pid:-}" ]; then kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true; fi

echo "== h2load: $devices requests to the same stand-in (1 connection x 100 streams)"
token=$(printf 'a%.0s' $(seq 64))
printf '%s' '{"aps":{"alert":{"title":"Sale","body":"30% off today"},"mutable-content":1},"tern":{"v":1,"message_id":"bench"}}' \
    >"$work/payload.json"
h2load_out=$(h2load -n "$devices" -c 1 -m 100 -t 1 -d "$work/payload.json" -H "apns-topic: com.example.bench" \
    -H "apns-push-type: alert" -H "authorization: bearer x" "https://127.0.0.1:$port/3/device/$token" 2>&1)
h2load_rate=$(echo "$h2load_out" | sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p')

peak_kib=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\).*/\1/p' "/proc/$server/status" 2>/dev/null || echo 0)
python3 - "$devices" "$started" "$subscribed" "$finished" "${h2load_rate:-0}" "$stats" "$peak_kib" <<'PY'
import json, sys
devices, started, subscribed, finished, h2load = int(sys.argv[1]), *map(float, sys.argv[2:6])
stats, peak = json.loads(sys.argv[6]), int(sys.argv[7])
send = finished - subscribed
rate = stats.get("sent", 0) / send if send > 0 else 0
print()
print("subscribe   %6d devices in %6.2f s = %8.0f subscribes/s (curl, 50 in parallel)" % (devices, subscribed - started, devices / (subscribed - started)))
print("send        %6d sent, %d failed, done=%s in %6.2f s = %8.0f deliveries/s end to end" % (
    stats.get("sent", 0), stats.get("failed", 0), stats.get("done"), send, rate))
print("h2load      %6d requests = %8.0f requests/s (same stand-in)" % (devices, h2load))
print("ratio       tern end to end / h2load = %.2f (aim: 0.5 or better)" % (rate / h2load if h2load else 0))
print("tern serve peak memory (VmHWM): %d MiB" % (peak // 1024))
PY
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
