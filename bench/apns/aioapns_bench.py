#!/usr/bin/env python3
"""Sends N notifications with aioapns (PyPI) to the APNs stand-in, the Python peer a user might
pick instead of Tern; prints notifications per second and peak memory.

    aioapns_bench.py --port 8443 --ca ca.pem [--count 100000] [--connections 1] [--in-flight 1000]
"""
import argparse
import asyncio
import resource
import ssl
import sys
import time
import uuid

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

import aioapns
from aioapns import NotificationRequest
from aioapns.connection import APNsProductionClientProtocol


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--count", type=int, default=100000)
    parser.add_argument("--connections", type=int, default=1)
    parser.add_argument("--in-flight", type=int, default=1000)
    args = parser.parse_args()

    # aioapns connects to api.push.apple.com:443; point its protocol class at the stand-in.
    APNsProductionClientProtocol.APNS_SERVER = "127.0.0.1"
    APNsProductionClientProtocol.APNS_PORT = args.port
    context = ssl.create_default_context(cafile=args.ca)
    context.set_alpn_protocols(["h2"])
    key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    client = aioapns.APNs(
        key=key, key_id="BENCHKEY01", team_id="BENCH12345", topic="com.example.bench",
        max_connections=args.connections, ssl_context=context,
    )
    message = {
        "aps": {"alert": {"title": "Sale", "body": "30% off today"}, "mutable-content": 1},
        "tern": {"v": 1, "message_id": "bench", "track": {"delivery": True, "open": True}},
    }

    def request(index):
        token = format(index, "x").rjust(64, "a")
        return NotificationRequest(device_token=token, message=message, notification_id=str(uuid.uuid4()))

    warmup = await client.send_notification(request(0))
    if not warmup.is_successful:
        sys.exit("the stand-in did not accept a push: %s" % warmup.status)

    window = asyncio.Semaphore(args.in_flight)
    sent = 0

    async def one(index):
        nonlocal sent
        async with window:
            result = await client.send_notification(request(index))
            if result.is_successful:
                sent += 1

    start = time.perf_counter()
    await asyncio.gather(*(one(index) for index in range(args.count)))
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("aioapns: %d notifications in %.2f s = %d notifications/s, sent %d, peak memory %.1f MiB "
          "(connections %d, in flight %d)" % (args.count, seconds, args.count / seconds, sent, peak,
                                              args.connections, args.in_flight))


if __name__ == "__main__":
    asyncio.run(main())
