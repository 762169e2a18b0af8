#!/usr/bin/env bash
# The operators' guide's move from SQLite to PostgreSQL, run word for word against a real
# `tern serve`: the ```sh block after `<!-- tested: move-to-postgresql -->` in docs/operating.md.
# Run by `make test` once the throwaway cluster is up (TERN_TEST_POSTGRES_URL). The test:
#   1. starts `tern serve` on SQLite in an empty data directory, creates a project "moved", gives
#      project 1 an APNs credential (an EC P-256 key made here) and subscribes a device;
#   2. stops the server (SIGTERM), makes an empty database, and runs the guide's copy block;
#   3. starts `tern serve --database` on the same data directory and expects, with the admin key of
#      its bootstrap.json (reused, not reissued): the project, the device, the credential; and a
#      second copy into the same database refused, changing nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tern="${TERN_BIN:-$(cd "$root" && swift build --show-bin-path)/tern}"
[ -x "$tern" ] || { echo "move-to-postgresql: $tern is not built (swift build --product tern)" >&2; exit 1; }
[ -n "${TERN_TEST_POSTGRES_URL:-}" ] || { echo "move-to-postgresql: TERN_TEST_POSTGRES_URL is not set" >&2; exit 1; }
guide="${TERN_GUIDE:-$root/docs/operating.md}"
tmp=$(mktemp -d)
server=""
database="tern_move_test_$$"
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    psql -q "$TERN_TEST_POSTGRES_URL" -c "DROP DATABASE IF EXISTS $database" || true
    rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
    echo "move-to-postgresql: FAILED: $*" >&2
    [ -f "$tmp/server.log" ] && sed 's/^/  server | /' "$tmp/server.log" | tail -20 >&2
    exit 1
}

python3 - "$guide" >"$tmp/move.sh" <<'PY' || fail "the guide has no tested move-to-postgresql block"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
match = re.search(r"<!-- tested: move-to-postgresql -->\s*```sh\n(.*?)```", text, re.S)
if not match:
    sys.exit("no ```sh block after <!-- tested: move-to-postgresql -->")
print(match.group(1), end="")
PY

# free_port, start_server, stop_server
source "$root/scripts/tests/server-lib.sh"

export TERN_DATA="$tmp/var/lib/tern"
mkdir -p "$(dirname "$TERN_DATA")"
echo "== operators' guide: moving from SQLite to PostgreSQL against a real tern serve"
start_server
key=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["admin_key"])' "$TERN_DATA/bootstrap.json")
rtoken=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["rtoken"])' "$TERN_DATA/bootstrap.json")
admin() { "$tern" "$@" --url "http://127.0.0.1:$port/api/v1" --admin-key "$key"; }
admin projects create moved >/dev/null || fail "could not create a project"
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$tmp/AuthKey.p8"
python3 - "$tmp/AuthKey.p8" >"$tmp/apns.json" <<'PY'
import json, sys
print(json.dumps({"team_id": "TEAM123456", "key_id": "KEY1234567", "private_key": open(sys.argv[1]).read(),
                  "topic": "org.tern.example"}))
PY
curl -fsS -X PUT -H "Authorization: Bearer $key" -H "Content-Type: application/json" --data @"$tmp/apns.json" \
    "http://127.0.0.1:$port/api/v1/admin/projects/1/credentials/apns" >/dev/null || fail "could not set the APNs credential"
token=$(printf 'ab%.0s' $(seq 1 32))
curl -fsS -X POST -H "X-Tern-RToken: $rtoken" -H "Content-Type: application/json" \
    --data "{\"time\": 1, \"provider\": \"ios-apns\", \"subscription_id\": \"$token\"}" \
    "http://127.0.0.1:$port/api/v1/push/subscribe" >/dev/null || fail "could not subscribe a device"
stop_server

psql -q "$TERN_TEST_POSTGRES_URL" -c "CREATE DATABASE $database" || fail "could not create a database for the test"
export TERN_DATABASE_URL="${TERN_TEST_POSTGRES_URL%/*}/$database"
echo "  the guide's copy block, the server stopped"
# As the guide has it: `tern` on the PATH.
(cd "$tmp" && PATH="$(dirname "$tern"):$PATH" bash -euo pipefail "$tmp/move.sh") >"$tmp/copy.out" || fail "the guide's copy block failed: $(cat "$tmp/copy.out")"
grep -q "Rows by table:" "$tmp/copy.out" || fail "the copy printed no rows: $(cat "$tmp/copy.out")"

start_server --database "$TERN_DATABASE_URL"
grep -q '"bootstrap":"reused"' "$tmp/server.log" || fail "bootstrap.json was not reused on PostgreSQL"
projects=$(admin projects list) || fail "the server on PostgreSQL did not list its projects with the same admin key"
grep -q '"moved"' <<<"$projects" || fail "the project made on SQLite is missing: $projects"
found=$(admin subscriptions find 1 "$token") || fail "the device is missing on PostgreSQL"
grep -q "$token" <<<"$found" || fail "the device is missing on PostgreSQL: $found"
credentials=$(curl -fsS -H "Authorization: Bearer $key" "http://127.0.0.1:$port/api/v1/admin/projects/1/credentials") ||
    fail "could not read the credentials"
grep -q 'KEY1234567' <<<"$credentials" || fail "the APNs credential did not come across: $credentials"
stop_server
if "$tern" store copy --data "$TERN_DATA" --database "$TERN_DATABASE_URL" >/dev/null 2>"$tmp/again.err"; then
    fail "a second copy into the same database was not refused"
fi
grep -q "already has data" "$tmp/again.err" || fail "the second copy did not say why: $(cat "$tmp/again.err")"
echo "move-to-postgresql: ok (the project, the device and the APNs credential served from PostgreSQL, the same admin key)"
