# shellcheck shell=bash
# A server's reference counting and allocations, counted one by one, for the benchmarks'
# RETAINS=1: uprobes on swift_retain, swift_release and malloc, read by `perf stat`. Exact and the
# same run after run, where this machine's timings are not; the probes slow the server several
# times over, so the rates of a run that counts are no figures.

# retains_start PID BINARY FILE: starts counting PID's calls (BINARY's libswiftCore and libc) into
# FILE; sets retains_pid. The probes are added once per machine.
retains_start() {
    local swift_core libc
    swift_core=$(ldd "$2" | sed -n 's/.*=> \(.*libswiftCore\.so\) .*/\1/p')
    libc=$(ldd "$2" | sed -n 's/.*=> \(.*libc\.so\.6\) .*/\1/p')
    perf probe -q -x "$swift_core" -a swift_retain -a swift_release 2>/dev/null || true
    perf probe -q -x "$libc" -a malloc 2>/dev/null || true
    perf stat -x, -e probe_libswiftCore:swift_retain -e probe_libswiftCore:swift_release -e probe_libc:malloc \
        -p "$1" -o "$3" &
    retains_pid=$!
    sleep 0.5
}

# retains_stop: stops the counting retains_start began, once perf has written its file (in the
# shell that started it: a subshell cannot wait for it).
retains_stop() {
    kill -INT "$retains_pid"
    wait "$retains_pid" 2>/dev/null || true
    retains_pid=
}

# retains_report FILE COUNT: each call's count in FILE divided by COUNT (the requests or
# deliveries it covered), as `swift_retain 223.0, swift_release 313.6, malloc 43.1`.
retains_report() {
    awk -F, -v n="$2" '$3 ~ /probe/ { sub(/.*:/, "", $3); out = out sprintf("%s%s %.1f", out ? ", " : "", $3, n > 0 ? $1 / n : 0) }
        END { print out }' "$1"
}
