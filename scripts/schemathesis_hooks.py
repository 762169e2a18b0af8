"""Test data for scripts/schemathesis.sh that the API document cannot name.

Categories, pixels and resources are data of the server, not of the API: a subscription may only
name a category its resource has, a goal only a pixel and a resource of its project (unknown ones
are refused with the reason). The run creates category "news" and pixel "pixel"; in requests that
are meant to be valid, generated names are mapped to those. An audience filter's operator must fit
its field's kind, a rule between a condition's members the schema cannot tie together: valid
requests get a filter that fits (docs/segments.md); a report's last session is not before its first.
"""
import os

import schemathesis
from schemathesis.generation import GenerationMode

RESOURCE_ID = int(os.environ.get("TERN_ST_RESOURCE_ID", "1"))
IDENTITY_TOKEN = "schemathesis-identity-token"
FITTING_FILTER = {"and": [{"field": "session_count", "op": ">=", "value": 0}, {"field": "tags.plan", "op": "exists"}]}


def _categories(value):
    if not isinstance(value, list):
        return value
    mapped = []
    for item in value:
        if isinstance(item, dict):
            item["name"] = "news"
        mapped.append("news" if isinstance(item, str) else item)
    return mapped


@schemathesis.hook
def map_case(context, case):
    meta = case.meta
    if meta is None or meta.generation.mode != GenerationMode.POSITIVE or not isinstance(case.body, dict):
        return case
    body = case.body
    # The identity endpoints name an installation: the push subscription the run makes for
    # IDENTITY_TOKEN, so that valid requests reach the binding's rules instead of a 404.
    if str(case.path).startswith("/api/v1/identity/"):
        body["provider"] = "ios-apns"
        body["subscription_id"] = IDENTITY_TOKEN
    if "cats" in body:
        body["cats"] = _categories(body["cats"])
    audience = body.get("audience")
    if isinstance(audience, dict) and isinstance(audience.get("categories"), list):
        audience["categories"] = ["news" for _ in audience["categories"]]
    for holder in (body, audience if isinstance(audience, dict) else {}):
        if "filter" in holder:
            holder["filter"] = FITTING_FILTER
    if isinstance(body.get("first_session"), int) and isinstance(body.get("last_session"), int):
        body["last_session"] = max(body["first_session"], body["last_session"])
    events = body.get("events")
    for event in events if isinstance(events, list) else []:
        if not isinstance(event, dict):
            continue
        if "sid" in event:
            event["sid"] = "pixel"
        subscription = event.get("subscription")
        if isinstance(subscription, dict):
            subscription["resource_id"] = RESOURCE_ID
            # The run's resource has only the push channel, and push needs its token.
            subscription["channel"] = "push"
            if not isinstance(subscription.get("provider"), str):
                subscription["provider"] = "ios-apns"
            if not isinstance(subscription.get("subscription_id"), str):
                subscription["subscription_id"] = "schemathesis-token"
            if "cats" in subscription:
                subscription["cats"] = _categories(subscription["cats"])
    return case
