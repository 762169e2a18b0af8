"""The handler's own latency per route, from a `tern serve` log (one JSON line per request, with
`duration_ms` from routing to answer): p50, p99, max, and the 10-ms windows in which most of the
requests at or over the p99 finished.

wrk's p99 is not this one: wrk corrects its latencies for coordinated omission before reporting
them (for each request slower than the run's mean interval per connection, it adds the requests a
steady client would have sent meanwhile), so one pause of every connection weighs as much as the
time it lasted. When wrk's p99 is far over the handler's, look for such pauses in the windows
printed here: requests that finish together in one window waited for the same thing (a batch, a
checkpoint).

    KEEP=1 bench/server/run.sh        # keeps the scratch directory, says where
    python3 bench/server/handler_latency.py /tmp/tern-bench-XXXXXX/server-sqlite.log
"""
import collections
import json
import sys

MIN_REQUESTS = 1000


def main(path):
    durations = collections.defaultdict(list)
    for line in open(path, encoding="utf-8"):
        if '"msg":"request"' not in line:
            continue
        entry = json.loads(line)
        durations[entry["route"]].append((entry["duration_ms"], entry["ts"]))
    for route, rows in sorted(durations.items()):
        if len(rows) < MIN_REQUESTS:
            continue
        ordered = sorted(ms for ms, _ in rows)
        p99 = ordered[int(len(ordered) * 0.99)]
        print("%-45s %8d requests  p50 %7.2f ms  p99 %7.2f ms  max %8.2f ms"
              % (route, len(rows), ordered[len(ordered) // 2], p99, ordered[-1]))
        # "2026-12-03T19:49:04.317Z" -> "19:49:04.31": the 10-ms window a request finished in.
        windows = collections.Counter(ts[11:22] for ms, ts in rows if ms >= p99)
        busiest = ", ".join("%s (%d)" % item for item in windows.most_common(6))
        print("    slowest 1%% finished in: %s" % busiest)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: handler_latency.py SERVER_LOG")
    main(sys.argv[1])
