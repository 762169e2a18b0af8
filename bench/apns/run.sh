#!/usr/bin/env bash
# Issue 7's benchmark: 100,000 notifications through Tern's APNs client to a local HTTP/2 TLS
# stand-in (nginx that reads each request's body, as APNs does, and answers 200 with the request's
# apns-id), beside h2load against the same stand-in (this machine's ceiling) and the Python
# client aioapns sending the same 100,000. Each runs in two shapes: one connection with 100
# streams, and 8 connections with 4 streams each. Prints notifications per second and peak
# memory, then the ratios.
#
#   bench/apns/run.sh [COUNT]      (100000)
#
# Installs what it needs when missing: nginx-light, its echo module and nghttp2-client (apt),
# aioapns (pip). TERN_BENCH_SCRATCH picks SwiftPM's scratch path (.build).
set -euo pipefail
cd "$(dirname "$0")/../.."

count=${1:-100000}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
[ -f /usr/lib/nginx/modules/ngx_http_echo_module.so ] || missing+=(libnginx-mod-http-echo)
command -v h2load >/dev/null || missing+=(nghttp2-client)
if [ ${#missing[@]} -gt 0 ]; then
    echo "bench: installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
python3 -c "import aioapns" 2>/dev/null || python3 -m pip install --quiet aioapns
python3 -c "import cryptography" 2>/dev/null || python3 -m pip install --quiet cryptography
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

work=$(mktemp -d /tmp/tern-bench-apns.XXXXXX)
nginx_pid=""
cleanup() {
    if [ -n "$nginx_pid" ]; then kill "$nginx_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# The shared stand-in (bench/lib/apns-standin.sh): a test CA, a certificate for 127.0.0.1, nginx
# over HTTP/2 + TLS. APNs reads the payload before it answers; so does the stand-in (nginx's
# "return" alone would answer first and reset the stream, which no client meets in production).
# shellcheck source=bench/lib/apns-standin.sh
. bench/lib/apns-standin.sh
start_apns_standin "$work"
nginx_pid=$standin_pid
port=$standin_port

echo "== building tern-bench-apns (release)"
scratch=(--scratch-path "${TERN_BENCH_SCRATCH:-.build}")
swift build -c release "${scratch[@]}" --product tern-bench-apns >/dev/null
bench_bin=$(swift build -c release "${scratch[@]}" --show-bin-path)/tern-bench-apns

token=$(printf 'a%.0s' $(seq 64))
payload='{"aps":{"alert":{"title":"Sale","body":"30% off today"},"mutable-content":1},"tern":{"v":1,"message_id":"bench","track":{"delivery":true,"open":true}}}'
printf '%s' "$payload" >"$work/payload.json"
echo "== stand-in: nginx $("$nginx_bin" -v 2>&1 | sed 's/.*\///'), HTTP/2 over TLS on 127.0.0.1:$port, 1 worker; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"

rate() { echo "$1" | sed -n 's/.*= \([0-9]*\) notifications\/s.*/\1/p'; }
declare -A results
run_shape() {
    local connections=$1 streams=$2
    echo "== $count notifications, $connections connection(s) x $streams streams"
    local tern_line h2load_out h2load_rate aioapns_line
    tern_line=$("$bench_bin" --url "https://127.0.0.1:$port" --ca "$work/ca.pem" --count "$count" \
        --connections "$connections" --streams "$streams")
    echo "$tern_line"
    h2load_out=$(h2load -n "$count" -c "$connections" -m "$streams" -t 1 -d "$work/payload.json" \
        -H "apns-topic: com.example.bench" -H "apns-push-type: alert" -H "apns-priority: 10" \
        -H "authorization: bearer x" "https://127.0.0.1:$port/3/device/$token" 2>&1)
    h2load_rate=$(echo "$h2load_out" | sed -n 's/^finished in [^,]*, \([0-9]*\).*req\/s.*/\1/p')
    echo "h2load: $count requests = ${h2load_rate:-?} requests/s, $(echo "$h2load_out" | grep '^status codes' | cut -d, -f1)"
    aioapns_line=$(python3 bench/apns/aioapns_bench.py --port "$port" --ca "$work/ca.pem" --count "$count" \
        --connections "$connections" --in-flight "$((connections * streams))" 2>/dev/null | tail -1)
    echo "$aioapns_line"
    results["$connections x $streams"]="$(rate "$tern_line") ${h2load_rate:-0} $(rate "$aioapns_line")"
}

run_shape 1 100
run_shape 8 4

echo "== ratios (tern / h2load: the share of this machine's ceiling; tern / aioapns: the lead over the Python peer)"
for shape in "1 x 100" "8 x 4"; do
    read -r tern h2load aioapns <<<"${results[$shape]}"
    python3 -c 'import sys
shape, tern, h2load, aioapns = sys.argv[1], *(float(x or 0) for x in sys.argv[2:])
print("%-8s tern / h2load %.2f   tern / aioapns %.1fx" % (shape, tern / h2load if h2load else 0, tern / aioapns if aioapns else 0))' \
        "$shape" "${tern:-0}" "${h2load:-0}" "${aioapns:-0}"
done
