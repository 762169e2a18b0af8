# shellcheck shell=bash
# Which of tern's statements a benchmark's PostgreSQL spent its time in (pg_stat_statements), for
# the benchmarks' STATEMENTS=1. The cluster must load the module at start:
#   POSTGRES_OPTS="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=all
#       -c pg_stat_statements.track_planning=on" scripts/postgres.sh start DIR
# (`track=all` counts the statements of triggers and functions too, the foreign-key checks among them;
# `track_planning` counts how often each statement was planned: a prepared statement planned on
# nearly every call is one PostgreSQL keeps choosing a custom plan for).

# postgres_statements_reset URL: creates the extension when missing and forgets every figure so far;
# says why and returns non-zero when the cluster did not load the module.
postgres_statements_reset() {
    psql -qAt "$1" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" -c "SELECT pg_stat_statements_reset()" \
        >/dev/null 2>&1 || {
        echo "STATEMENTS: pg_stat_statements is not loaded by the cluster at $1 (see bench/lib/postgres-statements.sh)" >&2
        return 1
    }
}

# postgres_statements_top URL [N]: the N (12) statements that took the most time since the reset:
# calls, times planned, rows, total and mean milliseconds (planning included), microseconds a row,
# the share of all statements' time and the statement's first 110 characters.
postgres_statements_top() {
    psql -q "$1" -P pager=off -P footer=off -c "
        SELECT calls, plans, rows, round((total_plan_time + total_exec_time)::numeric, 1) AS total_ms,
            round(((total_plan_time + total_exec_time) / greatest(calls, 1))::numeric, 3) AS mean_ms,
            round((1000 * (total_plan_time + total_exec_time) / greatest(rows, 1))::numeric, 1) AS us_per_row,
            round((100 * (total_plan_time + total_exec_time)
                / sum(total_plan_time + total_exec_time) OVER ())::numeric, 1) AS pct,
            left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS statement
        FROM pg_stat_statements ORDER BY total_plan_time + total_exec_time DESC LIMIT ${2:-12}"
}
