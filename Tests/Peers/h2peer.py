#!/usr/bin/env python3
"""A small HTTP/2 server over TLS (or cleartext h2c) for TernHTTP's client tests.

Prints "PORT <n>" once it listens, then serves until killed. Paths:
  /echo               200, JSON of the request (method, path, headers, body, connection, stream)
  /status/<code>      that status, header x-peer: h2peer
  /barrier/<n>        answers once n streams wait on this path at the same time (proves multiplexing)
  /never              never answers (for timeouts and cancellation)
  /size/<n>           200 with n bytes
  /goaway             answers 200, then sends GOAWAY and closes the connection
  /stats              JSON: connections accepted, most streams open at once, streams waiting on
                      /never, streams the client reset
"""
import argparse
import asyncio
import json
import signal
import ssl
import sys

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

STATS = {"connections": 0, "max_open_streams": 0, "waiting": 0, "resets": 0}
BARRIERS = {}  # path -> list of (protocol, stream id)


class Peer(asyncio.Protocol):
    def __init__(self, max_streams):
        self.max_streams = max_streams
        self.connection_number = 0
        self.streams = {}
        self.pending = {}  # stream id -> remaining bytes to send
        self.conn = None
        self.transport = None

    def connection_made(self, transport):
        STATS["connections"] += 1
        self.connection_number = STATS["connections"]
        self.transport = transport
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.local_settings = h2.settings.Settings(
            client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.max_streams}
        )
        self.conn.initiate_connection()
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.transport.is_closing():
            self.transport.write(data)

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError:
            self.flush()
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = {"headers": list(event.headers), "body": b""}
                STATS["max_open_streams"] = max(STATS["max_open_streams"], len(self.streams))
            elif isinstance(event, h2.events.DataReceived):
                if event.stream_id in self.streams:
                    self.streams[event.stream_id]["body"] += event.data
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                self.handle(event.stream_id)
            elif isinstance(event, h2.events.StreamReset):
                STATS["resets"] += 1
                if self.streams.pop(event.stream_id, {}).get("waiting"):
                    STATS["waiting"] -= 1
                self.pending.pop(event.stream_id, None)
            elif isinstance(event, h2.events.WindowUpdated):
                self.send_pending()
        self.flush()

    def handle(self, stream_id):
        request = self.streams[stream_id]
        headers = dict(request["headers"])
        path = headers.get(":path", "")
        if path == "/echo":
            echo = {
                "method": headers.get(":method"),
                "path": path,
                "headers": {k: v for k, v in request["headers"] if not k.startswith(":")},
                "body": request["body"].decode("utf-8", "replace"),
                "connection": self.connection_number,
                "stream": stream_id,
            }
            self.respond(stream_id, 200, json.dumps(echo).encode(), [("content-type", "application/json")])
        elif path.startswith("/status/"):
            self.respond(stream_id, int(path.split("/")[2]), b'{"reason":"as asked"}', [("x-peer", "h2peer")])
        elif path.startswith("/barrier/"):
            waiting = BARRIERS.setdefault(path, [])
            waiting.append((self, stream_id))
            if len(waiting) >= int(path.split("/")[2]):
                del BARRIERS[path]
                for protocol, waiting_id in waiting:
                    protocol.respond(waiting_id, 200, str(waiting_id).encode())
                    protocol.flush()
        elif path == "/never":
            request["waiting"] = True
            STATS["waiting"] += 1
        elif path.startswith("/size/"):
            self.respond(stream_id, 200, b"x" * int(path.split("/")[2]))
        elif path == "/goaway":
            self.respond(stream_id, 200, b"bye")
            self.conn.close_connection()
            self.flush()
            self.transport.close()
        elif path == "/stats":
            self.respond(stream_id, 200, json.dumps(STATS).encode(), [("content-type", "application/json")])
        else:
            self.respond(stream_id, 404, b"no such path")

    def respond(self, stream_id, status, body, headers=()):
        if self.transport.is_closing():
            return
        self.streams.pop(stream_id, None)
        if status in (204, 304):
            body = b""
        self.conn.send_headers(
            stream_id, [(":status", str(status)), ("content-length", str(len(body)))] + list(headers)
        )
        self.pending[stream_id] = body
        self.send_pending()

    def send_pending(self):
        for stream_id in list(self.pending):
            body = self.pending[stream_id]
            while True:
                window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
                if not body or window <= 0:
                    break
                self.conn.send_data(stream_id, body[:window])
                body = body[window:]
            if body:
                self.pending[stream_id] = body
            else:
                self.conn.end_stream(stream_id)
                del self.pending[stream_id]
        self.flush()


async def main():
    # A parent may have spawned us with signals blocked (libdispatch threads block them): unblock,
    # so that SIGTERM ends the peer.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--max-streams", type=int, default=100)
    args = parser.parse_args()
    context = None
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        context.set_alpn_protocols(["h2"])
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Peer(args.max_streams), "127.0.0.1", 0, ssl=context)
    print("PORT", server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
