#!/usr/bin/env python3
"""A webhook receiver for the benchmarks: answers every POST 200 and counts the events in it.

    python3 bench/lib/webhook_receiver.py      # prints "PORT <n>" once it listens

GET /count answers how many events it has taken, and the first and last post's times (seconds
since 1970), as JSON. The events are counted by their "type" keys, not parsed.
"""
import http.server
import json
import threading
import time

lock = threading.Lock()
state = {"events": 0, "posts": 0, "first": None, "last": None}


class Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            state["events"] += body.count(b'"type":')
            state["posts"] += 1
            state["first"] = state["first"] or time.time()
            state["last"] = time.time()
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        with lock:
            body = json.dumps(state).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
print("PORT", server.server_address[1], flush=True)
server.serve_forever()
