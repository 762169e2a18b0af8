# The APNs stand-in of the send benchmarks (bench/send, bench/fanout), sourced by them: Debian's
# nginx with a test CA's certificate for 127.0.0.1, HTTP/2 over TLS, reading each push's body and
# answering 200 with its apns-id (it checks no JWT). Needs nginx-light and libnginx-mod-http-echo.
#
#   start_apns_standin DIR [ACCESS_LOG]
#
# writes DIR/ca.pem (the CA to give tern serve's --provider-ca-file), sets standin_port and
# standin_pid, and waits until it answers. With ACCESS_LOG, nginx writes each push's path and status
# there (one line a push: the benches count pushes per device token from it). STANDIN_STREAMS sets
# the streams a connection may have in flight (128; APNs allows up to 1,000).
start_apns_standin() {
    local dir=$1 access_log=${2:-} nginx_bin log_directive="access_log off;"
    nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
    [ -z "$access_log" ] || log_directive="log_format pushes '\$uri \$status'; access_log $access_log pushes;"
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >"$dir/server.ext"
    local ec=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
    (cd "$dir" && openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 1 -subj "/CN=Tern Bench CA" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null &&
        openssl req "${ec[@]}" -keyout server.key -out server.csr -subj /CN=localhost 2>/dev/null &&
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 1 \
            -extfile server.ext 2>/dev/null)
    standin_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    mkdir -p "$dir/logs"
    cat >"$dir/nginx.conf" <<CONF
load_module /usr/lib/nginx/modules/ngx_http_echo_module.so;
worker_processes 1;
error_log $dir/logs/error.log warn;
pid $dir/nginx.pid;
daemon off;
events { worker_connections 1024; }
http {
    $log_directive
    map \$http_apns_id \$apns_id { "" \$request_id; default \$http_apns_id; }
    client_body_temp_path $dir/body;
    server {
        listen 127.0.0.1:$standin_port ssl http2;
        ssl_certificate $dir/server.pem;
        ssl_certificate_key $dir/server.key;
        http2_max_concurrent_streams ${STANDIN_STREAMS:-128};
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
    "$nginx_bin" -c "$dir/nginx.conf" -p "$dir" &
    standin_pid=$!
    for _ in $(seq 50); do
        curl -s -o /dev/null --cacert "$dir/ca.pem" "https://127.0.0.1:$standin_port/" && break
        sleep 0.1
    done
}

# apns_credential_json DIR: a fresh P-256 key in .p8 (PKCS#8) form as the body of
# PUT …/credentials/apns (the stand-in does not check the JWT it signs).
apns_credential_json() {
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1/apns.p8" 2>/dev/null
    python3 - "$1/apns.p8" <<'PY'
import json, sys
print(json.dumps({"team_id": "TEAM123456", "key_id": "KEY1234567", "topic": "com.example.bench",
                  "private_key": open(sys.argv[1]).read()}))
PY
}
