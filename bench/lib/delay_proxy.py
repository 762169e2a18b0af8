#!/usr/bin/env python3
"""A TCP proxy that holds every chunk for a fixed time each way: a database on another host, for
benchmarks on one machine (Linux's netem needs a kernel module containers rarely have).

    python3 bench/lib/delay_proxy.py LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS

Prints "ready" once listening. Each direction keeps its chunks in order, each sent DELAY_MS after it
arrived, so a round trip through the proxy takes twice DELAY_MS more. It costs CPU of its own (a
Python callback per chunk): figures through it are for comparing builds in the same run. asyncio
sets TCP_NODELAY on both sockets itself.
"""
import asyncio
import collections
import sys


class Direction:
    """Chunks from one side, sent on to the other when due, in arrival order."""

    def __init__(self, loop, delay):
        self.loop, self.delay = loop, delay
        self.queue = collections.deque()
        self.timer = None
        self.transport = None  # where the chunks go; set once connected
        self.closing = False

    def add(self, data):
        self.queue.append((self.loop.time() + self.delay, data))
        if self.timer is None:
            self.timer = self.loop.call_at(self.queue[0][0], self.flush)

    def close_after_queue(self):
        self.closing = True
        if self.timer is None:
            self.flush()

    def flush(self):
        self.timer = None
        if self.transport is None:
            return  # not connected yet: connecting flushes
        now = self.loop.time()
        while self.queue and self.queue[0][0] <= now:
            self.transport.write(self.queue.popleft()[1])
        if self.queue:
            self.timer = self.loop.call_at(max(self.queue[0][0], now + 0.0001), self.flush)
        elif self.closing:
            self.transport.close()


class Side(asyncio.Protocol):
    def __init__(self, outgoing):
        self.outgoing = outgoing  # the Direction this side's chunks go into
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.outgoing.add(data)

    def connection_lost(self, exc):
        self.outgoing.close_after_queue()


async def main():
    listen_port, host, port, delay_ms = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    loop = asyncio.get_running_loop()
    delay = delay_ms / 1000

    class Client(Side):
        def connection_made(self, transport):
            super().connection_made(transport)
            transport.pause_reading()
            loop.create_task(self.connect())

        async def connect(self):
            to_server, to_client = self.outgoing, Direction(loop, delay)
            to_client.transport = self.transport
            server_transport, _ = await loop.create_connection(lambda: Side(to_client), host, port)
            to_server.transport = server_transport
            to_server.flush()
            self.transport.resume_reading()

    server = await loop.create_server(lambda: Client(Direction(loop, delay)), "127.0.0.1", listen_port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
