"""The real parts the dashboard's browser test runs against: the APNs stand-in (Tests/Peers) with
a test CA, a `tern serve` pointed at it, and `tern device`, the SDK as a simulated iPhone."""
import datetime
import ipaddress
import json
import os
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

import h2.connection
import h2.events
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEAM_ID, KEY_ID, TOPIC = "TEAM123456", "KEY1234567", "com.example.tern"


def pem(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()


def make_certificates(directory):
    """A CA and a certificate for 127.0.0.1 signed by it; returns (ca, cert, key) file paths."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Tern dashboard test CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = [os.path.join(directory, name) for name in ("ca.pem", "server.pem", "server.key")]
    for path, data in zip(paths, [ca.public_bytes(serialization.Encoding.PEM), cert.public_bytes(serialization.Encoding.PEM), pem(key).encode()]):
        with open(path, "wb") as file:
            file.write(data)
    return paths


def read_port(process, what):
    line = process.stdout.readline().decode().strip()
    if not line.startswith("PORT "):
        raise RuntimeError(f"{what} did not start: {line!r} {process.stderr.read().decode()[:2000] if process.stderr else ''}")
    return int(line.split()[1])


class APNsPeer:
    """provider_peer.py as APNs, trusting one fresh .p8 key."""

    def __init__(self, directory):
        self.ca, cert, key = make_certificates(directory)
        self.p8 = ec.generate_private_key(ec.SECP256R1())
        public = self.p8.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        config = os.path.join(directory, "peer.json")
        with open(config, "w") as file:
            json.dump({"provider": "apns", "apns": {"team_id": TEAM_ID, "key_id": KEY_ID, "public_key": public}}, file)
        script = os.path.join(ROOT, "Tests", "Peers", "provider_peer.py")
        self.process = subprocess.Popen([sys.executable, script, "--config", config, "--cert", cert, "--key", key], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.port = read_port(self.process, "provider_peer.py")
        self.origin = f"https://127.0.0.1:{self.port}"

    def credential(self):
        return {"team_id": TEAM_ID, "key_id": KEY_ID, "private_key": pem(self.p8), "topic": TOPIC}

    def accepted(self):
        """The pushes the stand-in accepted (POST /_peer/log over HTTP/2)."""
        return [entry for entry in self.control("/_peer/log", {}) if entry.get("status") == 200]

    def script(self, answers):
        """Scripts the stand-in's answers per token (POST /_peer/script): {token: [answer, ...]}."""
        self.control("/_peer/script", answers)

    def control(self, path, payload):
        """A control request to the stand-in over HTTP/2; its JSON answer."""
        context = ssl.create_default_context(cafile=self.ca)
        context.set_alpn_protocols(["h2"])
        with socket.create_connection(("127.0.0.1", self.port), timeout=10) as raw, context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            conn = h2.connection.H2Connection()
            conn.initiate_connection()
            stream = conn.get_next_available_stream_id()
            conn.send_headers(stream, [(":method", "POST"), (":path", path), (":scheme", "https"), (":authority", f"127.0.0.1:{self.port}")])
            conn.send_data(stream, json.dumps(payload).encode(), end_stream=True)
            tls.sendall(conn.data_to_send())
            body = b""
            while True:
                data = tls.recv(65536)
                if not data:
                    break
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.DataReceived):
                        body += event.data
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    if isinstance(event, h2.events.StreamEnded):
                        return json.loads(body) if body else None
                tls.sendall(conn.data_to_send())
        raise RuntimeError(f"the APNs stand-in closed before answering {path}")

    def stop(self):
        self.process.kill()
        self.process.wait()


class Server:
    """`tern serve` on a free port with a fresh data directory, sending APNs to the stand-in."""

    def __init__(self, binary, directory, peer=None):
        self.binary = binary
        self.data = os.path.join(directory, "data")
        self.log = open(os.path.join(directory, "server.log"), "wb")
        providers = ["--apns-production-url", peer.origin, "--apns-channels-production-url", peer.origin,
                     "--provider-ca-file", peer.ca] if peer else []
        self.process = subprocess.Popen(
            [binary, "serve", "--port", "0", "--data", self.data, "--log-level", "warn", *providers],
            stdout=self.log, stderr=self.log)
        bootstrap = os.path.join(self.data, "bootstrap.json")
        for _ in range(400):
            if os.path.exists(bootstrap) and os.path.getsize(bootstrap) > 0:
                break
            if self.process.poll() is not None:
                raise RuntimeError("tern serve exited: see " + self.log.name)
            time.sleep(0.05)
        time.sleep(0.1)
        with open(bootstrap) as file:
            self.bootstrap = json.load(file)
        self.api = self.bootstrap["api_url"]
        self.root = self.api[: -len("/api/v1")]
        self.admin_key = self.bootstrap["admin_key"]
        for _ in range(200):
            try:
                urllib.request.urlopen(self.root + "/healthz", timeout=2).read()
                break
            except OSError:
                time.sleep(0.05)

    def admin(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.api + "/admin" + path, data=data, method=method, headers={"Authorization": "Bearer " + self.admin_key, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def device(self, directory, *arguments):
        """Runs `tern device` with its own storage; returns its output."""
        command = [self.binary, "device", "--data", directory, "--bootstrap", os.path.join(self.data, "bootstrap.json"), "--quiet", "--wait", "20", *arguments]
        result = subprocess.run(command, capture_output=True, timeout=60)
        if result.returncode != 0:
            raise RuntimeError(f"tern device {' '.join(arguments)} exited {result.returncode}: {result.stderr.decode()[:1000]}")
        return result.stdout.decode()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
