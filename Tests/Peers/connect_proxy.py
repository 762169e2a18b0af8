#!/usr/bin/env python3
"""An HTTP CONNECT proxy for the connection pool's tests, on asyncio.

Prints "PORT <n>" once it listens, then serves until killed. A CONNECT host:port opens a tunnel
and pipes bytes both ways; with --user and --password it first asks for those (Basic) and answers
407 without them. GET /stats answers JSON: tunnels opened, CONNECTs refused, the last target.
"""
import argparse
import asyncio
import base64
import json
import signal
import sys

import peer_core

STATS = {"tunnels": 0, "refused": 0, "target": ""}


async def pipe(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


def answer(writer, status, body=b""):
    writer.write(b"HTTP/1.1 %s\r\ncontent-length: %d\r\n\r\n%s" % (status.encode(), len(body), body))


async def serve(reader, writer, credentials):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    if method == "GET" and target == "/stats":
        answer(writer, "200 OK", json.dumps(STATS).encode())
        await writer.drain()
        writer.close()
        return
    if method != "CONNECT":
        answer(writer, "405 Method Not Allowed")
        writer.close()
        return
    if credentials and headers.get("proxy-authorization") != "Basic " + credentials:
        STATS["refused"] += 1
        answer(writer, "407 Proxy Authentication Required")
        await writer.drain()
        writer.close()
        return
    host, port = target.rsplit(":", 1)
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection(host.strip("[]"), int(port))
    except OSError:
        answer(writer, "502 Bad Gateway")
        writer.close()
        return
    STATS["tunnels"] += 1
    STATS["target"] = target
    writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
    await writer.drain()
    await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))


async def main():
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    peer_core.exit_with_parent()
    parser = argparse.ArgumentParser()
    parser.add_argument("--user")
    parser.add_argument("--password", default="")
    args = parser.parse_args()
    credentials = None
    if args.user:
        credentials = base64.b64encode(f"{args.user}:{args.password}".encode()).decode()
    server = await asyncio.start_server(lambda r, w: serve(r, w, credentials), "127.0.0.1", 0)
    print("PORT", server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
