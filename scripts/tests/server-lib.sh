# Sourced by the scripts that run a real `tern serve` (backup-restore.sh, move-to-postgresql.sh):
# start it on a free port and wait for /healthz, stop it with SIGTERM. The sourcing script sets
# `tern` (the binary), `tmp` (its scratch folder, where server.log goes), `TERN_DATA`, `server=""`,
# and a `fail` that says what went wrong.

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_server [tern serve options…]: sets `port` and `server` (its pid).
start_server() {
    port=$(free_port)
    "$tern" serve --host 127.0.0.1 --port "$port" --data "$TERN_DATA" "$@" >>"$tmp/server.log" 2>&1 &
    server=$!
    for _ in $(seq 1 100); do
        if curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then return 0; fi
        kill -0 "$server" 2>/dev/null || fail "tern serve exited at start"
        sleep 0.1
    done
    fail "tern serve did not answer /healthz"
}

stop_server() {
    kill -TERM "$server"
    wait "$server" || true
    server=""
}
