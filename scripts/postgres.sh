#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: `scripts/postgres.sh start DIR` creates one in DIR
# (initdb as a non-root user; as root, as the `postgres` user), listening on 127.0.0.1 on a free port
# with password authentication, with a role `tern` (password `tern`) owning a database `tern_test`,
# and prints the URL the tests read (TERN_TEST_POSTGRES_URL). `scripts/postgres.sh stop DIR` stops
# it and removes DIR; `halt DIR` stops the server and `resume DIR` starts it again. Exits 3 when PostgreSQL's server programs are not installed.
# POSTGRES_OPTS adds server options at `start` (bench/server/plans.sh: `-c shared_preload_libraries=…`).
set -euo pipefail

command="${1:-}"
dir="${2:-}"
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: scripts/postgres.sh start|halt|resume|stop DIR" >&2; exit 2; }

bindir=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) /opt/homebrew/opt/postgresql*/bin /usr/local/opt/postgresql*/bin; do
    if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then bindir="$candidate"; break; fi
done
if [ -z "$bindir" ] && command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
    bindir="$(dirname "$(command -v initdb)")"
fi

# The server outlives this script: it must not keep a descriptor its caller waits on (a test's
# Process watches one), so everything past stderr is closed first.
if [ -d /proc/$$/fd ]; then
    for fd in $(ls /proc/$$/fd); do
        if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
fi

# Runs a server program as the cluster's owner: root may not run PostgreSQL.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$command" in
start)
    [ -n "$bindir" ] || { echo "postgres: initdb/pg_ctl not found (install postgresql)" >&2; exit 3; }
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
        chown postgres "$dir"
    fi
    chmod 700 "$dir"
    password_file="$dir/password"
    echo tern >"$password_file"
    [ "$(id -u)" -ne 0 ] || chown postgres "$password_file"
    as_owner "$bindir/initdb" -D "$dir/data" -U tern --pwfile="$password_file" --auth=scram-sha-256 \
        --encoding=UTF8 --locale=C >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    # Durability settings off: the cluster lives for one test run on a shared machine. And new WAL
    # segments not zero-filled: a fresh cluster has no old segments to recycle, so every 16 MB of
    # WAL one committing backend wrote 16 MB of zeros while holding the WAL write lock, and every
    # other commit waited (40-60 ms each 1.7-1.8 s under the benchmarks' writes: their p99).
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c wal_init_zero=off -c max_connections=300 ${POSTGRES_OPTS:-}" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    echo "$port" >"$dir/port"
    echo "${POSTGRES_OPTS:-}" >"$dir/options"
    PGPASSWORD=tern "$bindir/psql" -q -h 127.0.0.1 -p "$port" -U tern -d postgres -c "CREATE DATABASE tern_test" \
        >/dev/null
    echo "postgresql://tern:tern@127.0.0.1:$port/tern_test"
    ;;
halt)
    # Stops the server and keeps the cluster, for `resume` (the tests' "database away under load").
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
resume)
    port="$(cat "$dir/port")"
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c wal_init_zero=off -c max_connections=300 $(cat "$dir/options" 2>/dev/null)" \
        start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    ;;
stop)
    if [ -n "$bindir" ] && [ -d "$dir/data" ]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: scripts/postgres.sh start|halt|resume|stop DIR" >&2
    exit 2
    ;;
esac
