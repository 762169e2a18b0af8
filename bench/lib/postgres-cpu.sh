# shellcheck shell=bash
# The CPU time of a PostgreSQL cluster on this machine, for the benchmarks' "database CPU" figures.

# postgres_cpu_ticks PORT: clock ticks of user and system time so far of the cluster listening on
# PORT (started by scripts/postgres.sh, whose command line names its port): the postmaster, the
# children it has reaped (connections closed) and every live child. 0 when no such cluster runs.
postgres_cpu_ticks() {
    local postmaster total pid
    postmaster=$(pgrep -o -u postgres -f -- "-p $1 " || true)
    if [ -z "$postmaster" ]; then echo 0; return; fi
    total=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$postmaster/stat")
    for pid in $(pgrep -P "$postmaster"); do
        total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
