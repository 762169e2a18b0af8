#!/usr/bin/env bash
# The operators' guide's backup and restore steps, run word for word against a real `tern serve`
# and its SQLite file, or (`backup-restore.sh postgresql`) its PostgreSQL database. Run by
# `make test`, after the build (the PostgreSQL run after the throwaway cluster is up).
#
#   scripts/tests/backup-restore.sh              the SQLite steps
#   scripts/tests/backup-restore.sh postgresql   the PostgreSQL steps, in a database of their own
#                                                made in the cluster TERN_TEST_POSTGRES_URL names
#                                                (scripts/postgres.sh starts one) and dropped after
#
# The blocks come from docs/operating.md (the ```sh block after `<!-- tested: backup -->` and the
# one after `<!-- tested: restore -->`; `backup-postgresql` and `restore-postgresql` for
# PostgreSQL), so the guide cannot drift from what works. The test:
#   1. starts `tern serve` on an empty data directory, creates a project "before-backup" and gives
#      project 1 an APNs credential (an EC P-256 key made here);
#   2. runs the guide's backup block while the server runs;
#   3. creates a project "after-backup", then stops the server (SIGTERM);
#   4. runs the guide's restore block, starts `tern serve` again on the restored directory;
#   5. expects, through the management API with the restored admin key: "before-backup" there,
#      "after-backup" gone, the APNs credential configured, and (SQLite) the store's integrity
#      check "ok".
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
store=${1:-sqlite}
case $store in sqlite | postgresql) ;; *) echo "usage: backup-restore.sh [sqlite|postgresql]" >&2; exit 2 ;; esac
tern="${TERN_BIN:-$(cd "$root" && swift build --show-bin-path)/tern}"
[ -x "$tern" ] || { echo "backup-restore: $tern is not built (swift build --product tern)" >&2; exit 1; }
guide="${TERN_GUIDE:-$root/docs/operating.md}"
tmp=$(mktemp -d)
server=""
database=""
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    if [ -n "$database" ]; then psql -q "$TERN_TEST_POSTGRES_URL" -c "DROP DATABASE IF EXISTS $database" || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
    echo "backup-restore: FAILED: $*" >&2
    [ -f "$tmp/server.log" ] && sed 's/^/  server | /' "$tmp/server.log" | tail -20 >&2
    exit 1
}

# The guide's block after the marker, as a script of its own.
block() {
    python3 - "$guide" "$1" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
match = re.search(r"<!-- tested: " + re.escape(sys.argv[2]) + r" -->\s*```sh\n(.*?)```", text, re.S)
if not match:
    sys.exit(f"no ```sh block after <!-- tested: {sys.argv[2]} --> in {sys.argv[1]}")
print(match.group(1), end="")
PY
}
suffix=""
[ "$store" = postgresql ] && suffix=-postgresql
block "backup$suffix" >"$tmp/backup.sh" || fail "the guide has no tested backup$suffix block"
block "restore$suffix" >"$tmp/restore.sh" || fail "the guide has no tested restore$suffix block"

# free_port, start_server, stop_server; this script's servers run on the store it tests.
source "$root/scripts/tests/server-lib.sh"
start_store_server() {
    local database_option=()
    [ "$store" = postgresql ] && database_option=(--database "$TERN_DATABASE_URL")
    start_server "${database_option[@]}"
}

# The management API, with the admin key of the data directory's bootstrap.json.
admin() {
    local key
    key=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["admin_key"])' "$TERN_DATA/bootstrap.json")
    "$tern" "$@" --url "http://127.0.0.1:$port/api/v1" --admin-key "$key"
}

export TERN_DATA="$tmp/var/lib/tern" BACKUP="$tmp/backups/tern/first"
mkdir -p "$(dirname "$TERN_DATA")"
if [ "$store" = postgresql ]; then
    [ -n "${TERN_TEST_POSTGRES_URL:-}" ] || fail "TERN_TEST_POSTGRES_URL is not set (scripts/postgres.sh start DIR prints one)"
    database="tern_backup_test_$$"
    psql -q "$TERN_TEST_POSTGRES_URL" -c "CREATE DATABASE $database" || fail "could not create a database for the test"
    export TERN_DATABASE_URL="${TERN_TEST_POSTGRES_URL%/*}/$database"
    mkdir -p "$TERN_DATA"
fi

echo "== operators' guide: backup and restore ($store) against a real tern serve"
start_store_server
admin projects create before-backup >/dev/null || fail "could not create a project"
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$tmp/AuthKey.p8"
python3 - "$tmp/AuthKey.p8" >"$tmp/apns.json" <<'PY'
import json, sys
print(json.dumps({"team_id": "TEAM123456", "key_id": "KEY1234567", "private_key": open(sys.argv[1]).read(),
                  "topic": "org.tern.example"}))
PY
key=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["admin_key"])' "$TERN_DATA/bootstrap.json")
curl -fsS -X PUT -H "Authorization: Bearer $key" -H "Content-Type: application/json" --data @"$tmp/apns.json" \
    "http://127.0.0.1:$port/api/v1/admin/projects/1/credentials/apns" >/dev/null || fail "could not set the APNs credential"

echo "  the guide's backup block, the server running"
(cd "$tmp" && bash -euo pipefail "$tmp/backup.sh") || fail "the guide's backup block failed"
admin projects create after-backup >/dev/null || fail "could not create a project after the backup"
stop_server

echo "  the guide's restore block, the server stopped"
(cd "$tmp" && bash -euo pipefail "$tmp/restore.sh") || fail "the guide's restore block failed"
start_store_server

projects=$(admin projects list) || fail "the restored server did not list its projects with the restored admin key"
grep -q '"before-backup"' <<<"$projects" || fail "the project made before the backup is missing: $projects"
if grep -q '"after-backup"' <<<"$projects"; then fail "the project made after the backup is there: $projects"; fi
credentials=$(curl -fsS -H "Authorization: Bearer $key" "http://127.0.0.1:$port/api/v1/admin/projects/1/credentials") ||
    fail "could not read the restored credentials"
grep -q 'KEY1234567' <<<"$credentials" || fail "the APNs credential did not come back: $credentials"
if [ "$store" = sqlite ]; then
    [ "$(sqlite3 "$TERN_DATA/tern.sqlite" "PRAGMA integrity_check")" = ok ] || fail "the restored store is not intact"
    ls -d "$TERN_DATA".before-restore.* >/dev/null || fail "the old data directory was not kept aside"
fi
stop_server
echo "backup-restore ($store): ok (the project before the backup restored, the one after it gone, the credential back)"
