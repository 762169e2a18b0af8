"""The PostgreSQL plan audit's client (bench/server/plans.sh starts the cluster and the server):
fills a project through the SDK and management APIs, then calls every read of the management API
and the dashboard's several times each (past the five calls after which PostgreSQL may keep a
prepared statement's generic plan), and the SDK's write routes once more on the filled tables.

    python3 bench/server/plans.py API_URL ADMIN_KEY RTOKEN PROJECT_ID RESOURCE_ID DEVICES DATABASE_URL

The tables are analyzed (psql) after the messages are sent and before the reads: the statistics a
server that has run for a while has (autovacuum analyzes a table once a tenth of it changed), so a
read that still walks a table does so by its plan, not for want of statistics. The messages' own
statements run on whatever PostgreSQL had planned while the deliveries were being written.

Every answer must be 2xx (a 4xx or 5xx stops the audit with its text: a call the audit makes
wrongly must not pass as a fast one). What PostgreSQL did is read by plans.sh afterwards.
"""
import concurrent.futures
import http.client
import json
import subprocess
import sys
import threading
import time
import urllib.parse

api, admin, rtoken = sys.argv[1], sys.argv[2], sys.argv[3]
project, resource, devices, database = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
base = urllib.parse.urlsplit(api)
local = threading.local()
REPEATS = 8


def call(method, path, body=None, sdk=False, key=None, ok=(200, 201, 204)):
    """One request on this thread's keep-alive connection; the decoded answer."""
    if not hasattr(local, "connection"):
        local.connection = http.client.HTTPConnection(base.hostname, base.port, timeout=120)
    headers = {"Content-Type": "application/json"}
    if sdk:
        headers["X-Tern-RToken"] = rtoken
    else:
        headers["Authorization"] = "Bearer " + admin
    if key:
        headers["Idempotency-Key"] = key
    data = json.dumps(body).encode() if body is not None else None
    local.connection.request(method, base.path + path, body=data, headers=headers)
    answer = local.connection.getresponse()
    text = answer.read()
    if answer.status not in ok:
        sys.exit("plans: %s %s answered %d: %s" % (method, path, answer.status, text[:300].decode(errors="replace")))
    return json.loads(text) if text else None


def token(i):
    return "%064x" % (0x91A45 << 200 | i)


def subscribe(i):
    """A device: built-in fields that vary, a custom field, a profile field on one in ten."""
    body = {"time": 1700000000000 + i, "provider": "ios-apns", "subscription_id": token(i), "sync": True,
            "custom_fields": {"_os": "IOS", "_app_ver": "2.%d" % (i % 12), "_os_language": ["en", "fr", "de"][i % 3],
                              "_session_count": i % 40, "plan": ["gold", "silver", "free"][i % 3]}}
    if i % 10 == 0:
        body["profile_fields"] = {"email": "user%d@example.com" % i}
    answer = call("POST", "/push/subscribe", body, sdk=True, key="plans-sub-%d" % i)
    return answer["profile"]["id"]


def tag(i):
    call("POST", "/profile/tags/set", {"provider": "ios-apns", "subscription_id": token(i),
                                       "tags": {"interest": ["travel", "food", "cars"][i % 3]}}, sdk=True,
         key="plans-tag-%d" % i)


def goal(i):
    call("POST", "/event/post", {"events": [{"sid": "plans-pixel", "client_id": "c-%d" % i, "event_name": "purchase",
                                             "payload": {"amount": i % 100}, "time": 1700000000000 + i}]},
         sdk=True, key="plans-goal-%d" % i)


def fan(function, items, workers=16):
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(function, items))


def timed(label, function, items):
    started = time.time()
    out = fan(function, items)
    print("plans: %-36s %6d in %5.1f s" % (label, len(items), time.time() - started), flush=True)
    return out


profiles = timed("push/subscribe", subscribe, range(devices))
timed("profile/tags/set (one in five)", tag, range(0, devices, 5))
call("POST", "/admin/projects/%d/pixels" % project, {"sid": "plans-pixel", "name": "plans"})
timed("event/post (one in four)", goal, range(0, devices, 4))
db_id = call("GET", "/admin/resources/%d" % resource)["db_id"]

segment_filter = {"and": [{"field": "session_count", "op": ">=", "value": 3},
                          {"or": [{"field": "tags.interest", "op": "in", "value": ["travel", "food"]},
                                  {"field": "fields.plan", "op": "=", "value": "gold"}]}]}
segment = call("POST", "/admin/segments", {"project_id": project, "resource_id": resource, "name": "plans",
                                           "filter": segment_filter})["id"]
messages = []
for n, audience in enumerate([{"type": "resource", "resource_id": resource},
                              {"type": "segment", "segment_id": segment},
                              {"type": "resource", "resource_id": resource}]):
    messages.append(call("POST", "/admin/messages", {"title": "Plans", "body": "audit %d" % n, "audience": audience},
                         key="plans-message-%d" % n)["id"])
started = time.time()
for message in messages:
    while not call("GET", "/admin/messages/" + message)["done"]:
        time.sleep(0.2)
print("plans: %-36s %6d in %5.1f s" % ("messages sent (no credentials: failed)", len(messages), time.time() - started))

subprocess.run(["psql", "-X", "-q", "-c", "ANALYZE", database.split("?")[0]], check=True)

# The reads, each REPEATS times with varying arguments where a route takes some.
reads = [
    "/admin/projects", "/admin/projects/%d/databases" % project, "/admin/projects/%d/pixels" % project,
    "/admin/projects/%d/pixels/plans-pixel/goals?limit=100" % project, "/admin/projects/%d/jwt-keys" % project,
    "/admin/resources?project_id=%d" % project, "/admin/resources/%d" % resource,
    "/admin/resources/%d/categories" % resource, "/admin/overview?days=14", "/admin/messages?limit=50",
    "/admin/test-profiles", "/admin/test-devices", "/admin/segments?project_id=%d" % project,
    "/admin/segments/%d" % segment, "/admin/segments/%d/preview?sample=20" % segment,
    "/admin/inapp/campaigns?project_id=%d" % project, "/admin/projects/%d/inbox" % project,
    "/admin/projects/%d/topics" % project, "/admin/projects/%d/identity-policy" % project, "/admin/keys",
    "/admin/audit",
]
per_call = []
for path in reads:
    for _ in range(REPEATS):
        per_call.append(("GET", path, None, ()))
for n in range(REPEATS):
    i = (n * 997) % devices
    profile = profiles[i]
    message = messages[n % len(messages)]
    per_call += [
        ("GET", "/admin/subscriptions?resource_id=%d&provider=ios-apns&subscription_id=%s" % (resource, token(i)), None, ()),
        ("GET", "/admin/profiles?db_id=%d&field=email&value=user%d@example.com" % (db_id, i - i % 10), None, ()),
        ("GET", "/admin/profiles/" + profile, None, ()),
        ("GET", "/admin/profiles/%s/push-events" % profile, None, ()),
        ("GET", "/admin/profiles/%s/inbox" % profile, None, ()),
        ("GET", "/admin/profiles/%s/preferences" % profile, None, ()),
        ("GET", "/admin/push-events?message_id=" + message, None, ()),
        ("GET", "/admin/messages/" + message, None, ()),
        ("GET", "/admin/messages/%s/stats" % message, None, ()),
        ("GET", "/admin/messages/%s/deliveries?after=%d&limit=100" % (message, n * 50), None, ()),
        # No device here ever changed its identity: 404 says so, after the lookup.
        ("GET", "/admin/resources/%d/identity?provider=ios-apns&subscription_id=%s" % (resource, token(i)), None,
         (404,)),
        ("POST", "/admin/audience/size", {"title": "x", "body": "y",
                                         "audience": {"type": "resource", "resource_id": resource}}, ()),
        ("POST", "/admin/audience/preview", {"project_id": project, "resource_id": resource,
                                            "filter": {"field": "language", "op": "=", "value": "fr"}, "sample": 5}, ()),
    ]
started = time.time()
for method, path, body, also in per_call:
    call(method, path, body, ok=(200, 201, 204) + also)
print("plans: %-36s %6d in %5.1f s" % ("management reads", len(per_call), time.time() - started))

# The SDK's writes once more, on filled tables: new devices and known ones.
timed("push/subscribe (new, after)", subscribe, range(devices, devices + 400))
timed("push/subscribe (repeated)", lambda i: call(
    "POST", "/push/subscribe", {"time": 1800000000000 + i, "provider": "ios-apns", "subscription_id": token(i),
                                "sync": True}, sdk=True, key="plans-resub-%d" % i), range(0, devices, devices // 400))
