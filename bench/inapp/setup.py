"""Fills a fresh tern serve for bench/inapp/run.sh: CAMPAIGNS active in-app campaigns of the bootstrap
project and resource (a third anonymous on any screen, a third on screens home or s<i>, a third for
subscribed profiles in category news), and one device push- and in-app-subscribed."""
import json
import os
import sys
import urllib.request

api, rtoken, admin, project, resource = sys.argv[1:6]
count = int(os.environ.get("CAMPAIGNS", "1000"))


def call(method, path, body, headers):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(api + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", **headers})
    with urllib.request.urlopen(request) as answer:
        return json.loads(answer.read() or b"null")


def admin_call(method, path, body=None):
    return call(method, "/admin" + path, body, {"Authorization": "Bearer " + admin})


admin_call("PUT", f"/resources/{resource}/categories/news", {"title": "News"})
device = {"provider": "ios-apns", "subscription_id": "bench-device"}
call("POST", "/push/subscribe", {**device, "time": 1}, {"X-Tern-RToken": rtoken})
call("POST", "/inapp/subscribe", {**device, "time": 1, "cats": [{"name": "news"}]}, {"X-Tern-RToken": rtoken})
for i in range(count):
    kind = i % 3
    campaign = {
        "project_id": int(project), "resource_id": int(resource), "name": f"bench-{i}",
        "display_type": ["modal", "slideup", "fullscreen"][kind], "priority": i % 100,
        "anonymous": kind != 2,
        "triggers": [{"type": "open_app"}] if kind == 0 else
        [{"type": "open_page", "screens": ["home" if i % 2 else f"s{i}"]}] if kind == 1 else
        [{"type": "custom", "name": "purchase", "conditions": [{"property": "total", "op": "gt", "value": 10}]}],
        "audience": {"categories": ["news"]} if kind == 2 else None,
        "caps": {"per_session": 1, "per_day": 3, "min_interval_seconds": 60},
        "content": {"kind": "template", "template": {
            "title": f"Offer {i}", "body": "Half price today only.", "image_url": "https://example.com/offer.png",
            "buttons": [{"id": "buy", "text": "Buy", "action": {"type": "deep_link", "value": "shop://offer"}},
                        {"id": "later", "text": "Later", "action": {"type": "close"}}]}},
    }
    created = admin_call("POST", "/inapp/campaigns", campaign)
    admin_call("POST", f"/inapp/campaigns/{created['id']}/start")
