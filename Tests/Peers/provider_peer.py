#!/usr/bin/env python3
"""Stand-ins for APNs, FCM HTTP v1 and HMS Push Kit over HTTP/2 with TLS, for Tern's provider tests.

    provider_peer.py --config peer.json --cert server.pem --key server.key

Prints "PORT <n>" once it listens. The config names the provider ("apns", "fcm" or "hms") and
the credentials to check (public keys, ids, the HMS secret). Every request is checked the way the
provider checks it: the APNs provider token's ES256 signature, `kid`, `iss` and `iat`; the FCM
service-account grant's RS256 signature and claims; the HMS client credentials; then the
headers and the body. Answers can be scripted per device token.

Control paths (no authentication):
  POST /_peer/script     {"<token>": [answer, ...]}: answers used in order, then the default
  POST /_peer/expire     {"token": "<jwt or access token>"}: that token counts as expired from now
  POST /_peer/goaway     {"after": n}: each connection ends with GOAWAY after n answers (0: never)
  GET  /_peer/log        every push request: token(s), headers, payload, connection, answer status,
                         and when it arrived (at: seconds since 1970)
  GET  /_peer/stats      connections, streams, requests, GOAWAYs, access tokens issued, provider tokens seen
"""
import argparse
import asyncio
import json
import signal
import sys

import peer_core
import peer_providers


async def main():
    # A parent may have spawned us with signals blocked: unblock, so SIGTERM ends the peer.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    peer_core.exit_with_parent()
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--max-streams", type=int, default=100)
    args = parser.parse_args()
    with open(args.config) as file:
        config = json.load(file)
    peer = peer_providers.make(config)
    server = peer_core.Server(peer.handle, max_streams=args.max_streams)
    peer.server = server
    listener, port = await server.start(args.cert, args.key)
    peer.origin = "https://127.0.0.1:%d" % port
    print("PORT", port, flush=True)
    await listener.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
