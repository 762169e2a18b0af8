#!/usr/bin/env python3
"""A small HTTP/2 server over TLS (or cleartext h2c) for TernHTTP's client tests, on peer_core.

Prints "PORT <n>" once it listens, then serves until killed. Paths:
  /echo               200, JSON of the request (method, path, headers, body, connection, stream)
  /status/<code>      that status, header x-peer: h2peer
  /barrier/<n>        answers once n streams wait on this path at the same time (proves multiplexing)
  /never              never answers (for timeouts and cancellation)
  /size/<n>           200 with n bytes
  /goaway             answers 200, then sends GOAWAY and closes the connection
  --goaway-after N    each connection answers N requests, then sends GOAWAY naming the last one
                      (the streams after it are refused) and closes
  --silent            completes TLS, then never sends a frame (no SETTINGS)
  /stats              JSON: connections accepted, most streams open at once, streams waiting on
                      /never, streams the client reset
"""
import argparse
import asyncio
import json
import signal
import sys

import peer_core

BARRIERS = {}  # path -> list of requests waiting there
WAITING = []  # requests on /never; one counts as waiting until the client resets its stream


def waiting():
    WAITING[:] = [request for request in WAITING if request.stream_id in request.protocol.streams]
    return len(WAITING)


def handle(request):
    path = request.path
    if path == "/echo":
        echo = {
            "method": request.method,
            "path": path,
            "headers": {k: v for k, v in request.headers.items() if not k.startswith(":")},
            "body": request.body.decode("utf-8", "replace"),
            "connection": request.connection,
            "stream": request.stream_id,
        }
        request.respond(200, json.dumps(echo).encode(), [("content-type", "application/json")])
    elif path.startswith("/status/"):
        request.respond(int(path.split("/")[2]), b'{"reason":"as asked"}', [("x-peer", "h2peer")])
    elif path.startswith("/barrier/"):
        queue = BARRIERS.setdefault(path, [])
        queue.append(request)
        if len(queue) >= int(path.split("/")[2]):
            del BARRIERS[path]
            for waiter in queue:
                waiter.respond(200, str(waiter.stream_id).encode())
                waiter.protocol.flush()
    elif path == "/never":
        WAITING.append(request)
    elif path.startswith("/size/"):
        request.respond(200, b"x" * int(path.split("/")[2]))
    elif path == "/goaway":
        request.respond(200, b"bye")
        request.protocol.conn.close_connection()
        request.protocol.flush()
        request.protocol.transport.close()
    elif path == "/stats":
        stats = {key: peer_core.STATS[key] for key in ("connections", "max_open_streams", "resets", "goaways", "requests")}
        stats["waiting"] = waiting()
        request.respond(200, json.dumps(stats).encode(), [("content-type", "application/json")])
    else:
        request.respond(404, b"no such path")


async def main():
    # A parent may have spawned us with signals blocked (libdispatch threads block them): unblock,
    # so that SIGTERM ends the peer.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    peer_core.exit_with_parent()
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--max-streams", type=int, default=100)
    parser.add_argument("--goaway-after", type=int, default=0)
    parser.add_argument("--silent", action="store_true")
    args = parser.parse_args()
    server = peer_core.Server(handle, max_streams=args.max_streams)
    server.goaway_after = args.goaway_after
    server.silent = args.silent
    listener, port = await server.start(args.cert, args.key)
    print("PORT", port, flush=True)
    await listener.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
