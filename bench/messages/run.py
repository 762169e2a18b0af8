#!/usr/bin/env python3
"""The message list's filters at 100,000 messages on SQLite (prints figures; asserts nothing).

    swift build --product tern && python3 bench/messages/run.py [--messages 100000] [--runs 20]

Makes a one-off message and a triggered one through the API, copies them in SQL to --messages
(one triggered copy in 2,500: a few dozen standing among a year of sends), then times
`GET /api/v1/admin/messages?limit=50` with each filter over HTTP on loopback: median and worst of
--runs calls, the answer's size in messages.
"""
import argparse
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Browser"))

from stack import Server  # noqa: E402

FILTERS = [
    {},
    {"state": "standing"},
    {"kind": "trigger"},
    {"state": "scheduled"},
    {"state": "done"},
    {"kind": "ab_test"},
    {"q": "campaign 99990"},
    {"q": "no such text"},
    {"q": "noël"},
    {"state": "done", "kind": "one_off", "q": "campaign"},
    {"created_before": "2000-01-01"},
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "tern"))
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="tern-messages-bench-")
    server = Server(args.binary, scratch)
    try:
        audience = {"type": "resource", "resource_id": server.bootstrap["resource_id"]}
        status, made = server.admin("POST", "/messages", {"title": "Campaign", "body": "Our sale", "audience": audience})
        assert status == 201, made
        status, made = server.admin("POST", "/messages", {"title": "Your cart", "body": "Still there", "audience": audience, "trigger": {"event_name": "cart"}})
        assert status == 201, made
        database = sqlite3.connect(os.path.join(server.data, "tern.sqlite"), timeout=30)
        columns = ("project_id, resource_id, content, audience, payload_prefix, payload_suffix, push_type, priority, "
                   "expiration, collapse_id, topic, environment, fan_out_cursor, fan_out_done, total, created_at, "
                   "trigger_event, trigger_cancel_event, trigger_delay")
        copied = ", ".join("m." + name.strip() for name in columns.split(",")).replace(
            "m.content", "replace(m.content, 'Campaign', 'Campaign ' || n.i)").replace("m.created_at", "m.created_at + n.i")
        started = time.monotonic()
        database.execute(
            f"""WITH RECURSIVE n(i) AS (SELECT 3 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
            INSERT INTO messages (public_id, {columns})
            SELECT printf('m_bench%08d', n.i), {copied} FROM n JOIN messages m ON m.id = CASE WHEN n.i % 2500 = 0 THEN 2 ELSE 1 END""",
            (args.messages,))
        database.commit()
        count = database.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        print(f"{count} messages ({time.monotonic() - started:.1f} s to copy)")
        for query in FILTERS:
            url = server.api + "/admin/messages?" + urllib.parse.urlencode({"limit": 50, **query})
            request = urllib.request.Request(url, headers={"Authorization": "Bearer " + server.admin_key})
            times, size = [], 0
            for _ in range(args.runs):
                started = time.perf_counter()
                with urllib.request.urlopen(request, timeout=60) as response:
                    body = response.read()
                times.append((time.perf_counter() - started) * 1000)
                size = body.count(b'"fan_out_done"')
            label = "&".join(f"{k}={v}" for k, v in query.items()) or "(no filter)"
            print(f"{label:50} {size:3} messages  median {statistics.median(times):7.1f} ms  worst {max(times):7.1f} ms")
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
