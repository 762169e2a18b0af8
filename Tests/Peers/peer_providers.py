"""APNs, FCM and HMS behaviour for provider_peer.py: checks like the real services, scripted errors."""
import base64
import json
import re
import time
import urllib.parse
import uuid

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

import peer_core


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def read_jwt(token, public_key, algorithm):
    """(header, claims) when the signature verifies with public_key, else raises ValueError."""
    try:
        header_b64, claims_b64, signature_b64 = token.split(".")
        header = json.loads(b64url_decode(header_b64))
        claims = json.loads(b64url_decode(claims_b64))
        signature = b64url_decode(signature_b64)
    except Exception as error:  # noqa: BLE001 - any malformation is a refusal
        raise ValueError("malformed token: %s" % error)
    if header.get("alg") != algorithm:
        raise ValueError("alg is %r, not %s" % (header.get("alg"), algorithm))
    signing_input = (header_b64 + "." + claims_b64).encode()
    try:
        if algorithm == "ES256":
            if len(signature) != 64:
                raise ValueError("an ES256 signature is 64 bytes (R||S), this one %d" % len(signature))
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
            public_key.verify(der, signing_input, ec.ECDSA(hashes.SHA256()))
        else:
            public_key.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        raise ValueError("signature does not verify")
    return header, claims


def load_public_key(pem):
    return serialization.load_pem_public_key(pem.encode())


class Peer:
    def __init__(self, config):
        self.config = config
        self.scripts = {}
        self.expired = set()
        self.log = []
        self.issued = 0
        self.provider_tokens = set()
        self.server = None
        self.origin = ""

    def handle(self, request):
        if request.path.startswith("/_peer/"):
            return self.control(request)
        try:
            self.serve(request)
        except Exception as error:  # noqa: BLE001 - a peer bug answers 599 so the test shows it
            request.respond(599, json.dumps({"peer_error": repr(error)}).encode())

    def control(self, request):
        body = json.loads(request.body or b"{}")
        if request.path == "/_peer/script":
            for token, answers in body.items():
                self.scripts.setdefault(token, []).extend(answers)
            return request.respond(200, b"{}")
        if request.path == "/_peer/expire":
            self.expired.add(body["token"])
            return request.respond(200, b"{}")
        if request.path == "/_peer/goaway":
            self.server.goaway_after = int(body.get("after", 0))
            return request.respond(200, b"{}")
        if request.path == "/_peer/log":
            return request.respond(200, json.dumps(self.log).encode())
        if request.path == "/_peer/stats":
            stats = dict(peer_core.STATS)
            stats["access_tokens_issued"] = self.issued
            stats["provider_tokens"] = len(self.provider_tokens)
            return request.respond(200, json.dumps(stats).encode())
        request.respond(404, b"unknown control path")

    def next_answer(self, token):
        answers = self.scripts.get(token)
        return answers.pop(0) if answers else None

    def record(self, request, status, **fields):
        entry = {"connection": request.connection, "status": status, "headers": {}, "at": time.time()}
        entry["headers"] = {k: v for k, v in request.headers.items() if not k.startswith(":")}
        entry["headers"].pop("authorization", None)
        entry.update(fields)
        self.log.append(entry)

    def json_answer(self, request, status, body, headers=()):
        request.respond(status, json.dumps(body).encode(), [("content-type", "application/json")] + list(headers))

    def issue_access_token(self, prefix):
        self.issued += 1
        return "%s-%d-%s" % (prefix, self.issued, uuid.uuid4().hex)

    @staticmethod
    def form(request):
        return {k: v[0] for k, v in urllib.parse.parse_qs(request.body.decode()).items()}

    @staticmethod
    def bearer(request):
        value = request.headers.get("authorization", "")
        return value[7:] if value.lower().startswith("bearer ") else None


class APNs(Peer):
    PUSH_TYPES = {"alert", "background", "voip", "complication", "fileprovider", "mdm", "location", "liveactivity"}
    UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

    def __init__(self, config):
        super().__init__(config)
        self.key = load_public_key(config["apns"]["public_key"])
        self.channels = {}

    def refuse(self, request, status, reason, token="", **extra):
        body = {"reason": reason}
        body.update(extra)
        self.record(request, status, token=token, reason=reason)
        self.json_answer(request, status, body, [("apns-id", request.headers.get("apns-id", str(uuid.uuid4())))])

    def serve(self, request):
        if request.path.startswith("/1/apps/"):
            return self.manage_channels(request)
        if request.path.startswith("/4/broadcasts/"):
            return self.broadcast(request)
        match = re.fullmatch(r"/3/device/([^/]*)", request.path)
        if request.method != "POST":
            return self.refuse(request, 405, "MethodNotAllowed")
        if not match:
            return self.refuse(request, 404, "BadPath")
        token = match.group(1)
        reason = self.check_provider_token(request)
        if reason:
            return self.refuse(request, 403, reason, token)
        reason = self.check_headers(request)
        if reason:
            return self.refuse(request, 400, reason, token)
        if len(request.body) > 4096:
            return self.refuse(request, 413, "PayloadTooLarge", token)
        try:
            payload = json.loads(request.body)
        except ValueError:
            return self.refuse(request, 400, "PayloadEmpty" if not request.body else "BadPayload", token)
        if not isinstance(payload, dict) or "aps" not in payload:
            return self.refuse(request, 400, "PayloadEmpty", token)
        if request.headers.get("apns-push-type") == "liveactivity" and not self.live_activity_payload(payload["aps"]):
            return self.refuse(request, 400, "BadPayload", token)
        if not re.fullmatch(r"[0-9a-fA-F]{64,200}", token):
            return self.refuse(request, 400, "BadDeviceToken", token)
        answer = self.next_answer(token)
        if answer and answer.get("never"):
            self.record(request, 0, token=token, payload=payload)
            return
        if answer and answer.get("status", 200) != 200:
            extra = {"timestamp": answer["timestamp"]} if "timestamp" in answer else {}
            headers = [("retry-after", str(answer["retry_after"]))] if "retry_after" in answer else []
            body = {"reason": answer["reason"]}
            body.update(extra)
            self.record(request, answer["status"], token=token, reason=answer["reason"])
            return self.json_answer(request, answer["status"], body, headers)
        self.record(request, 200, token=token, payload=payload)
        request.respond(200, b"", [("apns-id", request.headers["apns-id"])])

    def manage_channels(self, request):
        """APNs' channel management service (broadcast channels of Live Activities): create, read,
        list and delete an app's channels; a script under "_channels" answers the next request."""
        match = re.fullmatch(r"/1/apps/([^/]+)/(channels|all-channels)", request.path)
        if not match:
            return self.refuse(request, 404, "BadPath")
        bundle, what = match.groups()
        reason = self.check_provider_token(request)
        if reason:
            return self.refuse(request, 403, reason)
        answer = self.next_answer("_channels")
        if answer:
            self.record(request, answer["status"], reason=answer["reason"], channel_request=request.method)
            return self.json_answer(request, answer["status"], {"reason": answer["reason"]})
        channels = self.channels.setdefault(bundle, {})
        if what == "all-channels":
            return self.json_answer(request, 200, {"channels": sorted(channels)}) if request.method == "GET" else \
                self.refuse(request, 405, "MethodNotAllowed")
        if request.method == "POST":
            try:
                body = json.loads(request.body)
            except ValueError:
                return self.refuse(request, 400, "BadRequest")
            if body.get("push-type") != "LiveActivity":
                return self.refuse(request, 400, "InvalidPushType")
            if body.get("message-storage-policy") not in (0, 1):
                return self.refuse(request, 400, "BadMessageStoragePolicy")
            if len(channels) >= self.config.get("apns_max_channels", 10000):
                return self.refuse(request, 400, "CannotCreateChannelConfig")
            channel = base64.b64encode(uuid.uuid4().bytes).decode()
            channels[channel] = body["message-storage-policy"]
            self.record(request, 201, channel=channel, channel_request="create", bundle=bundle,
                        storage=body["message-storage-policy"])
            return request.respond(201, b"", [("apns-channel-id", channel), ("apns-request-id", str(uuid.uuid4()))])
        channel = request.headers.get("apns-channel-id")
        if not channel:
            return self.refuse(request, 400, "MissingChannelId")
        if channel not in channels:
            return self.refuse(request, 404, "ChannelNotRegistered")
        if request.method == "GET":
            return self.json_answer(request, 200, {"message-storage-policy": channels[channel], "push-type": "LiveActivity"})
        if request.method == "DELETE":
            del channels[channel]
            self.record(request, 204, channel=channel, channel_request="delete", bundle=bundle)
            return request.respond(204, b"")
        return self.refuse(request, 405, "MethodNotAllowed")

    def broadcast(self, request):
        """One push to a channel's subscribers: `apns-channel-id`, `apns-push-type: liveactivity`, an
        ActivityKit update or end, at most 5 KB."""
        match = re.fullmatch(r"/4/broadcasts/apps/([^/]+)", request.path)
        if request.method != "POST":
            return self.refuse(request, 405, "MethodNotAllowed")
        if not match:
            return self.refuse(request, 404, "BadPath")
        reason = self.check_provider_token(request)
        if reason:
            return self.refuse(request, 403, reason)
        headers = request.headers
        channel = headers.get("apns-channel-id")
        if not channel:
            return self.refuse(request, 400, "MissingChannelId")
        if headers.get("apns-push-type") != "liveactivity":
            return self.refuse(request, 400, "InvalidPushType")
        if headers.get("apns-priority", "10") not in ("1", "5", "10"):
            return self.refuse(request, 400, "BadPriority")
        if "apns-expiration" in headers and not headers["apns-expiration"].isdigit():
            return self.refuse(request, 400, "BadExpirationDate")
        if channel not in self.channels.get(match.group(1), {}):
            return self.refuse(request, 400, "ChannelNotRegistered")
        if len(request.body) > 5120:
            return self.refuse(request, 413, "PayloadTooLarge")
        try:
            payload = json.loads(request.body)
        except ValueError:
            return self.refuse(request, 400, "BadPayload")
        aps = payload.get("aps") if isinstance(payload, dict) else None
        if not isinstance(aps, dict) or aps.get("event") == "start" or not self.live_activity_payload(aps):
            return self.refuse(request, 400, "BadPayload")
        self.record(request, 200, channel=channel, payload=payload)
        request.respond(200, b"", [("apns-request-id", headers.get("apns-request-id", str(uuid.uuid4()))),
                                   ("apns-unique-id", str(uuid.uuid4()))])

    def check_provider_token(self, request):
        value = request.headers.get("authorization")
        if not value:
            return "MissingProviderToken"
        if not value.startswith("bearer "):
            return "InvalidProviderToken"
        jwt = value[len("bearer "):]
        if jwt in self.expired:
            return "ExpiredProviderToken"
        try:
            header, claims = read_jwt(jwt, self.key, "ES256")
        except ValueError:
            return "InvalidProviderToken"
        settings = self.config["apns"]
        if header.get("kid") != settings["key_id"] or claims.get("iss") != settings["team_id"]:
            return "InvalidProviderToken"
        iat = claims.get("iat")
        if not isinstance(iat, int) or iat > time.time() + 60:
            return "InvalidProviderToken"
        if time.time() - iat > 3600:
            return "ExpiredProviderToken"
        self.provider_tokens.add(jwt)
        return None

    @staticmethod
    def live_activity_payload(aps):
        """An ActivityKit push's aps: a timestamp in seconds, an event, and content-state for update and start."""
        event = aps.get("event")
        if not isinstance(aps.get("timestamp"), int) or event not in ("update", "end", "start"):
            return False
        if event != "end" and not isinstance(aps.get("content-state"), dict):
            return False
        return event != "start" or (isinstance(aps.get("attributes-type"), str) and isinstance(aps.get("attributes"), dict))

    def check_headers(self, request):
        headers = request.headers
        if not headers.get("apns-topic"):
            return "MissingTopic"
        push_type = headers.get("apns-push-type", "alert")
        if push_type not in self.PUSH_TYPES:
            return "InvalidPushType"
        # ActivityKit's pushes go to the app's topic with this suffix, and only they do.
        if (push_type == "liveactivity") != headers["apns-topic"].endswith(".push-type.liveactivity"):
            return "TopicDisallowed"
        priority = headers.get("apns-priority", "10")
        if priority not in ("1", "5", "10") or (push_type == "background" and priority != "5"):
            return "BadPriority"
        if "apns-expiration" in headers and not headers["apns-expiration"].isdigit():
            return "BadExpirationDate"
        if len(headers.get("apns-collapse-id", "").encode()) > 64:
            return "BadCollapseId"
        if "apns-id" in headers and not self.UUID.match(headers["apns-id"]):
            return "BadMessageId"
        return None


class FCM(Peer):
    SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
    ERRORS = {
        "UNREGISTERED": (404, "NOT_FOUND", "Requested entity was not found.", None),
        "INVALID_ARGUMENT_TOKEN": (
            400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token", "message.token"),
        "INVALID_ARGUMENT": (400, "INVALID_ARGUMENT", "Invalid value at 'message.apns.payload'", "message.apns.payload"),
        "SENDER_ID_MISMATCH": (403, "PERMISSION_DENIED", "SenderId mismatch", None),
        "QUOTA_EXCEEDED": (429, "RESOURCE_EXHAUSTED", "Quota exceeded for sending messages.", None),
        "UNAVAILABLE": (503, "UNAVAILABLE", "The service is currently unavailable.", None),
        "INTERNAL": (500, "INTERNAL", "Internal error encountered.", None),
        "THIRD_PARTY_AUTH_ERROR": (401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service", None),
    }

    def __init__(self, config):
        super().__init__(config)
        self.key = load_public_key(config["fcm"]["public_key"])
        self.access_tokens = set()

    def error(self, request, code, token="", retry_after=None):
        status, state, message, field = self.ERRORS[code]
        error_code = "INVALID_ARGUMENT" if code == "INVALID_ARGUMENT_TOKEN" else code
        details = [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": error_code}]
        if field:
            details.append({
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [{"field": field, "description": message}],
            })
        headers = [("retry-after", str(retry_after))] if retry_after is not None else []
        self.record(request, status, token=token, error=code)
        body = {"error": {"code": status, "message": message, "status": state, "details": details}}
        self.json_answer(request, status, body, headers)

    def serve(self, request):
        settings = self.config["fcm"]
        if request.path == "/token":
            return self.grant(request, settings)
        if request.path != "/v1/projects/%s/messages:send" % settings["project_id"]:
            return self.json_answer(request, 404, {"error": {"code": 404, "status": "NOT_FOUND", "message": "no such path"}})
        access = self.bearer(request)
        if access is None or access not in self.access_tokens or access in self.expired:
            self.record(request, 401, error="UNAUTHENTICATED")
            body = {"error": {"code": 401, "status": "UNAUTHENTICATED",
                              "message": "Request had invalid authentication credentials."}}
            return self.json_answer(request, 401, body)
        try:
            message = json.loads(request.body)["message"]
            token = message["token"]
            apns = message.get("apns", {})
            headers = apns.get("headers", {})
            payload = apns["payload"]
        except (ValueError, KeyError, TypeError):
            return self.error(request, "INVALID_ARGUMENT")
        if not all(isinstance(v, str) for v in headers.values()) or "aps" not in payload:
            return self.error(request, "INVALID_ARGUMENT", token)
        if len(json.dumps(payload, separators=(",", ":")).encode()) > 4096:
            return self.error(request, "INVALID_ARGUMENT", token)
        answer = self.next_answer(token)
        if answer and answer.get("never"):
            return self.record(request, 0, token=token)
        if answer:
            return self.error(request, answer["fcm"], token, answer.get("retry_after"))
        self.record(request, 200, token=token, apns_headers=headers, payload=payload)
        name = "projects/%s/messages/%d" % (settings["project_id"], len(self.log))
        self.json_answer(request, 200, {"name": name})

    def grant(self, request, settings):
        form = self.form(request)
        def refuse(description):
            self.record(request, 400, error="invalid_grant", description=description)
            self.json_answer(request, 400, {"error": "invalid_grant", "error_description": description})
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            return refuse("grant_type must be jwt-bearer")
        try:
            header, claims = read_jwt(form.get("assertion", ""), self.key, "RS256")
        except ValueError as error:
            return refuse("Invalid JWT Signature: %s" % error)
        now = time.time()
        problems = []
        if header.get("kid") != settings["private_key_id"]:
            problems.append("kid")
        if claims.get("iss") != settings["client_email"]:
            problems.append("iss")
        if self.SCOPE not in claims.get("scope", "").split():
            problems.append("scope")
        if claims.get("aud") != self.origin + "/token":
            problems.append("aud")
        iat, exp = claims.get("iat", 0), claims.get("exp", 0)
        if not (iat - 60 <= now <= exp) or exp - iat > 3600:
            problems.append("iat/exp")
        if problems:
            return refuse("Invalid JWT: " + ", ".join(problems))
        token = self.issue_access_token("ya29.peer")
        self.access_tokens.add(token)
        self.record(request, 200, grant=True)
        self.json_answer(request, 200, {
            "access_token": token, "expires_in": settings.get("expires_in", 3599), "token_type": "Bearer"})


class HMS(Peer):
    def __init__(self, config):
        super().__init__(config)
        self.access_tokens = set()

    def serve(self, request):
        settings = self.config["hms"]
        if request.path == "/oauth2/v3/token":
            return self.grant(request, settings)
        if request.path != "/v1/%s/messages:send" % settings["app_id"]:
            return self.json_answer(request, 404, {"code": "80100001", "msg": "no such path"})
        access = self.bearer(request)
        if access is None or access not in self.access_tokens:
            self.record(request, 401, code="80200001")
            return self.json_answer(request, 401, {"code": "80200001", "msg": "Oauth authentication error"})
        if access in self.expired:
            self.record(request, 401, code="80200003")
            return self.json_answer(request, 401, {"code": "80200003", "msg": "Oauth Token expired."})
        try:
            message = json.loads(request.body)["message"]
            tokens = message["token"]
            apns = message["apns"]
            payload = apns["payload"]
            target = apns["hms_options"]["target_user_type"]
        except (ValueError, KeyError, TypeError):
            return self.json_answer(request, 400, {"code": "80100003", "msg": "Illegal payload"})
        if not isinstance(tokens, list) or not 1 <= len(tokens) <= 1000:
            return self.json_answer(request, 400, {"code": "80300010", "msg": "The number of tokens is out of range"})
        if target not in (1, 2) or "aps" not in payload:
            return self.json_answer(request, 400, {"code": "80100003", "msg": "Illegal payload"})
        illegal = []
        for token in tokens:
            answer = self.next_answer(token)
            if answer and "status" in answer:
                headers = [("retry-after", str(answer["retry_after"]))] if "retry_after" in answer else []
                self.record(request, answer["status"], tokens=tokens, code=answer["code"])
                return self.json_answer(
                    request, answer["status"], {"code": answer["code"], "msg": answer.get("msg", "scripted")}, headers)
            if answer and answer.get("illegal"):
                illegal.append(token)
        self.record(request, 200, tokens=tokens, illegal=illegal, payload=payload, target_user_type=target,
                    apns_headers=apns.get("headers", {}))
        request_id = "%d" % len(self.log)
        if len(illegal) == len(tokens):
            return self.json_answer(request, 400, {"code": "80300007", "msg": "All the tokens are invalid",
                                                   "requestId": request_id})
        if illegal:
            detail = {"success": len(tokens) - len(illegal), "failure": len(illegal), "illegal_tokens": illegal}
            return self.json_answer(request, 200, {"code": "80100000", "msg": json.dumps(detail),
                                                   "requestId": request_id})
        self.json_answer(request, 200, {"code": "80000000", "msg": "Success", "requestId": request_id})

    def grant(self, request, settings):
        form = self.form(request)
        if (form.get("grant_type") != "client_credentials" or form.get("client_id") != settings["client_id"]
                or form.get("client_secret") != settings["client_secret"]):
            self.record(request, 400, grant=False)
            return self.json_answer(request, 400, {"error": 1101, "sub_error": 20058,
                                                   "error_description": "invalid client"})
        token = self.issue_access_token("hms")
        self.access_tokens.add(token)
        self.record(request, 200, grant=True)
        self.json_answer(request, 200, {"access_token": token, "expires_in": settings.get("expires_in", 3600),
                                        "token_type": "Bearer"})


def make(config):
    return {"apns": APNs, "fcm": FCM, "hms": HMS}[config["provider"]](config)
