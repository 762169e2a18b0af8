"""The HTTP/2 server core (TLS with ALPN h2, or cleartext h2c) under the test peers: the provider
stand-ins (provider_peer.py) and the HTTP/2 client's peer (h2peer.py).

A handler gets a Request and answers with request.respond(...), or never (to test timeouts).
The core counts connections and concurrent streams and can end a connection with GOAWAY after
a number of requests, the way APNs does when it sheds load.
"""
import asyncio
import ssl

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings


def exit_with_parent():
    """Ends this peer when the test process that started it is gone, so no peer outlives its test run
    (an orphan would also keep the test runner's output pipes open)."""
    import os
    import threading
    import time

    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()

STATS = {"connections": 0, "max_open_streams": 0, "requests": 0, "goaways": 0, "resets": 0}


class Request:
    def __init__(self, protocol, stream_id, headers, body):
        self.protocol = protocol
        self.stream_id = stream_id
        self.headers = headers  # dict, names lowercased (HTTP/2)
        self.body = body
        self.method = headers.get(":method", "")
        self.path = headers.get(":path", "")
        self.connection = protocol.number

    def respond(self, status, body=b"", headers=()):
        self.protocol.respond(self.stream_id, status, body, headers)


class Protocol(asyncio.Protocol):
    def __init__(self, server):
        self.server = server
        self.number = 0
        self.streams = {}
        self.pending = {}
        self.answered = 0
        self.going_away = False
        self.conn = None
        self.transport = None

    def connection_made(self, transport):
        STATS["connections"] += 1
        self.number = STATS["connections"]
        self.transport = transport
        if self.server.silent:
            return
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.local_settings = h2.settings.Settings(
            client=False,
            initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.server.max_streams},
        )
        self.conn.initiate_connection()
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.transport.is_closing():
            self.transport.write(data)

    def data_received(self, data):
        if self.conn is None:
            return
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError:
            self.flush()
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = {"headers": dict(event.headers), "body": b""}
                STATS["max_open_streams"] = max(STATS["max_open_streams"], len(self.streams))
            elif isinstance(event, h2.events.DataReceived):
                if event.stream_id in self.streams:
                    self.streams[event.stream_id]["body"] += event.data
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                stream = self.streams.get(event.stream_id)
                if stream is not None and not self.going_away:
                    STATS["requests"] += 1
                    self.server.handler(Request(self, event.stream_id, stream["headers"], stream["body"]))
            elif isinstance(event, h2.events.StreamReset):
                STATS["resets"] += 1
                self.streams.pop(event.stream_id, None)
                self.pending.pop(event.stream_id, None)
            elif isinstance(event, h2.events.WindowUpdated):
                self.send_pending()
        self.flush()

    def respond(self, stream_id, status, body=b"", headers=()):
        if self.transport.is_closing() or stream_id not in self.streams:
            return
        del self.streams[stream_id]
        if status in (204, 304):
            body = b""
        self.conn.send_headers(
            stream_id, [(":status", str(status)), ("content-length", str(len(body)))] + list(headers)
        )
        self.pending[stream_id] = body
        self.send_pending()
        self.answered += 1
        limit = self.server.goaway_after
        if limit and self.answered >= limit and not self.going_away:
            # Streams after this one are refused: the client must send them again elsewhere.
            self.going_away = True
            STATS["goaways"] += 1
            self.conn.close_connection(last_stream_id=stream_id)
            self.flush()
            asyncio.get_running_loop().call_later(0.05, self.transport.close)

    def send_pending(self):
        for stream_id in list(self.pending):
            body = self.pending[stream_id]
            try:
                while True:
                    window = min(self.conn.local_flow_control_window(stream_id), self.conn.max_outbound_frame_size)
                    if not body or window <= 0:
                        break
                    self.conn.send_data(stream_id, body[:window])
                    body = body[window:]
                if not body:
                    self.conn.end_stream(stream_id)
            except h2.exceptions.StreamClosedError:
                # The client reset the stream in the frames this batch of events came from.
                body = b""
            if body:
                self.pending[stream_id] = body
            else:
                del self.pending[stream_id]
        self.flush()


class Server:
    def __init__(self, handler, max_streams=100):
        self.handler = handler
        self.max_streams = max_streams
        self.goaway_after = 0
        self.silent = False  # accept TLS, then never speak HTTP/2

    async def start(self, cert, key):
        """Listens on a free loopback port: TLS with `cert` and `key`, cleartext h2c when cert is None."""
        context = None
        if cert:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            context.set_alpn_protocols(["h2"])
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: Protocol(self), "127.0.0.1", 0, ssl=context)
        return server, server.sockets[0].getsockname()[1]
