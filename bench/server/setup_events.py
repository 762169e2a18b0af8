"""Real deliveries for bench/server/run.sh's event/push route: messages to the bootstrap resource
(whose UPDATE_TOKENS subscriptions the bench made first) until at least COUNT deliveries exist,
waits until the engine has finished each (the server has no provider credentials: each delivery
ends failed at once, and still exists), then writes one `<message id>.<delivery id>` per line to
OUT: the `tern.message_id` a device reports. event/push counts each delivery's delivery and open
once, so every line gives the route two inserts.

    python3 bench/server/setup_events.py API_URL ADMIN_KEY RESOURCE_ID COUNT OUT
"""
import json
import sys
import time
import urllib.request

api, admin, resource, count, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]


def call(method, path, body=None, key=None):
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json", "Authorization": "Bearer " + admin}
    if key:
        headers["Idempotency-Key"] = key
    request = urllib.request.Request(api + "/admin" + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read() or b"null")


def create(index):
    return call("POST", "/messages", {"title": "Bench", "body": "event/push",
                                      "audience": {"type": "resource", "resource_id": resource}},
                key="bench-events-%d" % index)["id"]


def deliveries(message):
    after, ids = 0, []
    while True:
        page = call("GET", "/messages/%s/deliveries?after=%d&limit=1000" % (message, after))
        if not page:
            return ids
        ids += [row["id"] for row in page]
        after = page[-1]["id"]


messages = [create(0)]
while not call("GET", "/messages/" + messages[0])["fan_out_done"]:
    time.sleep(0.1)
per_message = call("GET", "/messages/" + messages[0])["counts"]["total"]
if per_message == 0:
    sys.exit("setup_events: the resource has no subscriptions to send to")
while len(messages) * per_message < count:
    messages.append(create(len(messages)))
for message in messages:
    while not call("GET", "/messages/" + message)["done"]:
        time.sleep(0.2)
written = 0
with open(out, "w") as file:
    for message in messages:
        for delivery in deliveries(message):
            file.write("%s.%d\n" % (message, delivery))
            written += 1
print("%d deliveries in %d messages" % (written, len(messages)))
