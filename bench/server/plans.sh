#!/usr/bin/env bash
# PostgreSQL plan audit: which of tern's statements read far more than they return, once the tables
# are full and the plans are the ones a long-running server keeps.
#
# PostgreSQL left to choose plans a prepared statement for its arguments five times, then may keep
# one generic plan for every later call on that connection; a plan chosen that way once walked a
# resource's every subscription per subscribe (docs/scaling.md, "the token lookups' plan trap").
# Tern's connections now run every prepared statement's generic plan from its first call
# (`PostgresConnection.genericPlans`) and plan the statements they run unprepared (the audience
# filters, a deliveries page) for each call's values, so the plans audited here are the ones a
# long-running server keeps. The audit fills a project through the APIs (bench/server/plans.py:
# DEVICES devices with built-in and custom fields, tags on a fifth, goals on a quarter, three
# messages, a segment), analyzes the tables, calls every read of the management API and the
# dashboard 8 times, and the SDK's writes again on the full tables.
# Then it prints, from pg_stat_statements, each statement's calls, mean time, rows and shared buffers
# read per call (the figure that does not depend on the machine's noise: a walk shows as thousands of
# buffers for a few rows), the statements planned on most of their calls (the unprepared ones, by
# design), and the plans auto_explain logged for calls over SLOW_MS.
#
#   bench/server/plans.sh [DEVICES]        (20000)
#   TERN_BIN=/tmp/tern SLOW_MS=5 TOP=40 bench/server/plans.sh 50000
#   KEEP=1 bench/server/plans.sh           # keeps the scratch directory (the cluster's log)
#   HOLD=1 bench/server/plans.sh           # keeps the cluster and the server up afterwards (EXPLAIN by hand)
set -euo pipefail
cd "$(dirname "$0")/../.."

devices=${1:-20000}
SLOW_MS=${SLOW_MS:-10}
TOP=${TOP:-30}

work=$(mktemp -d /tmp/tern-bench-plans.XXXXXX)
chmod 755 "$work" # the cluster runs as another user when this runs as root
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    [ -z "${KEEP:-}" ] || cp "$work/pg/server.log" "$work/postgres.log" 2>/dev/null || true
    scripts/postgres.sh stop "$work/pg" >/dev/null 2>&1 || true
    if [ -n "${KEEP:-}" ]; then echo "== kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

if [ -n "${TERN_BIN:-}" ]; then
    tern=$TERN_BIN
else
    echo "== building tern (release)"
    swift build -c release --product tern >/dev/null
    tern=$(swift build -c release --show-bin-path)/tern
fi

echo "== a fresh PostgreSQL cluster with pg_stat_statements and auto_explain (calls over ${SLOW_MS} ms)"
url=$(POSTGRES_OPTS="-c shared_preload_libraries=pg_stat_statements,auto_explain \
-c auto_explain.log_min_duration=${SLOW_MS}ms -c auto_explain.log_analyze=on -c auto_explain.log_buffers=on \
-c pg_stat_statements.max=5000 -c pg_stat_statements.track_utility=off \
-c pg_stat_statements.track_planning=on" scripts/postgres.sh start "$work/pg" | tail -1)
psql_() { PGPASSWORD=tern psql -X -q -v ON_ERROR_STOP=1 "${url%%\?*}" "$@"; }
psql_ -c "CREATE EXTENSION pg_stat_statements"

data="$work/tern"
mkdir -p "$data"
"$tern" serve --port 0 --data "$data" --database "$url" --log-level warn >"$work/server.out" 2>"$work/server.log" &
pids+=($!)
for _ in $(seq 1 400); do [ -s "$data/bootstrap.json" ] && break; sleep 0.05; done
field() { sed -n "s/.*\"$1\" : \"\{0,1\}\([^\",]*\)\"\{0,1\}.*/\1/p" "$data/bootstrap.json"; }
api_url=$(field api_url)
for _ in $(seq 1 200); do curl -fs "${api_url%/api/v1}/healthz" >/dev/null && break; sleep 0.05; done
psql_ -c "SELECT pg_stat_statements_reset()" >/dev/null

echo "== filling and reading ($devices devices)"
python3 bench/server/plans.py "$api_url" "$(field admin_key)" "$(field rtoken)" "$(field project_id)" \
    "$(field resource_id)" "$devices" "$url"

echo
echo "== the $TOP statements that read the most shared buffers per call (full tables)"
psql_ -P pager=off -c "
SELECT calls, round(mean_exec_time::numeric, 2) AS mean_ms, round(max_exec_time::numeric, 1) AS max_ms,
       round(rows::numeric / calls, 1) AS rows_per_call,
       round((shared_blks_hit + shared_blks_read)::numeric / calls) AS buffers_per_call,
       left(regexp_replace(regexp_replace(query, '\s+', ' ', 'g'), '^SELECT .*? FROM ', 'SELECT … FROM '), 200) AS statement
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND calls > 0
ORDER BY (shared_blks_hit + shared_blks_read)::numeric / calls DESC
LIMIT $TOP"

echo "== statements planned on most of their calls (8 or more calls), by planning time"
echo "   Statements tern runs unprepared (the audience filters, a deliveries page) are planned on every"
echo "   call by design; a prepared one here was planned again after each analysis of its tables."
psql_ -P pager=off -c "
SELECT calls, plans, round(total_plan_time::numeric, 1) AS plan_ms, round(total_exec_time::numeric, 1) AS exec_ms,
       left(regexp_replace(regexp_replace(query, '\s+', ' ', 'g'), '^SELECT .*? FROM ', 'SELECT … FROM '), 200) AS statement
FROM pg_stat_statements
WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND calls >= 8 AND plans * 2 > calls
ORDER BY total_plan_time DESC
LIMIT $TOP"

echo "== calls over ${SLOW_MS} ms (auto_explain): each statement once, with its slowest call's plan"
python3 - "$work/pg/server.log" <<'PY'
import re, sys
entries, current = [], None
for line in open(sys.argv[1], errors="replace"):
    match = re.search(r"duration: ([0-9.]+) ms  plan:", line)
    if match:
        current = (float(match.group(1)), [])
        entries.append(current)
    elif re.match(r"\d{4}-\d{2}-\d{2} ", line):
        current = None
    elif current is not None:
        current[1].append(line.rstrip().replace("\t", "  "))
by_statement = {}
for duration, lines in entries:
    # The statement's text, then the plan from its first node (the first line with a cost).
    first = next((n for n, l in enumerate(lines) if "(cost=" in l), len(lines))
    key = re.sub(r"\s+", " ", " ".join(lines[:first]).replace("Query Text:", "")).strip()[:160]
    calls, slowest = by_statement.get(key, (0, (0.0, [])))
    by_statement[key] = (calls + 1, max(slowest, (duration, lines[first:])))
for key, (calls, (duration, plan)) in sorted(by_statement.items(), key=lambda item: -item[1][1][0]):
    print("-- %d call(s), slowest %.1f ms: %s" % (calls, duration, key))
    for line in plan[:30]:
        print("   " + line[:180])
PY

if [ -n "${HOLD:-}" ]; then
    # HOLD=1: the cluster and the server stay up for EXPLAIN by hand until the file goes.
    touch "$work/hold"
    echo "== holding: psql $url, tern at $api_url; rm $work/hold to end"
    while [ -e "$work/hold" ]; do sleep 1; done
fi
