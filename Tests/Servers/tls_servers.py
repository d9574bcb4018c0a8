#!/usr/bin/env python3
"""HTTPS servers for Heron's TLS trust tests, with certificates made by openssl when it starts.

Started by scripts/with-servers (HERON_TLS_INFO names the JSON this writes). Python standard
library and the openssl command only. In --dir it makes a private CA, and signed by it: a leaf
for 127.0.0.1 and localhost, the same for another host only (wrong-host), one whose validity
ended in 2020 (expired), and a client certificate. Then it serves, each on its own loopback
port, `GET` anything -> 200 "ok" over TLS with:
  trusted     the leaf
  expired     the expired leaf
  wronghost   the wrong-host leaf
  mutual      the leaf, and a client certificate from the CA required

Each server counts the TCP connections it accepts. A plain-HTTP server on another loopback
port ("connections_port") answers `GET /connections` with those counts by server name
({"trusted": n, "expired": n, ...}), so a test can tell how many times a client connected to a
server whose handshake it refused.

Usage: tls_servers.py --dir DIR --port-file PATH
PATH receives (atomically, once every server listens) a JSON object: "ports" by name, the
paths "ca", "client_certificate", "client_key", "leaf", "spki_sha256" (base64 of the
SHA-256 of the SubjectPublicKeyInfo) of "ca" and "leaf", and "connections_port".
"""

import argparse
import base64
import hashlib
import http.server
import json
import os
import ssl
import subprocess
import threading
from port_file import announce


def openssl(*arguments, cwd):
    subprocess.run(["openssl", *arguments], cwd=cwd, check=True, capture_output=True)


def make_certificates(folder):
    def key(name):
        openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", name, cwd=folder)

    key("ca.key")
    openssl("req", "-x509", "-new", "-key", "ca.key", "-out", "ca.pem", "-days", "3", "-subj", "/CN=Heron Test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            cwd=folder)
    with open(os.path.join(folder, "ca.cnf"), "w") as config:
        config.write(
            "[ca]\ndefault_ca = test\n[test]\ndatabase = index.txt\nnew_certs_dir = issued\nserial = serial\n"
            "default_md = sha256\npolicy = anything\ncopy_extensions = copy\nunique_subject = no\n"
            "[anything]\ncommonName = supplied\n")
    open(os.path.join(folder, "index.txt"), "w").close()
    with open(os.path.join(folder, "serial"), "w") as serial:
        serial.write("1000\n")
    os.makedirs(os.path.join(folder, "issued"), exist_ok=True)

    def signed(name, subject, extensions, start=None, end=None):
        key(f"{name}.key")
        request = ["req", "-new", "-key", f"{name}.key", "-out", f"{name}.csr", "-subj", subject]
        for extension in extensions:
            request += ["-addext", extension]
        openssl(*request, cwd=folder)
        dates = ["-startdate", start, "-enddate", end] if start else ["-days", "3"]
        openssl("ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", f"{name}.csr",
                "-out", f"{name}.pem", "-notext", *dates, cwd=folder)

    server = ["basicConstraints=CA:FALSE", "extendedKeyUsage=serverAuth"]
    signed("leaf", "/CN=127.0.0.1", server + ["subjectAltName=IP:127.0.0.1,DNS:localhost"])
    signed("wronghost", "/CN=other.example", server + ["subjectAltName=DNS:other.example"])
    signed("expired", "/CN=127.0.0.1", server + ["subjectAltName=IP:127.0.0.1,DNS:localhost"],
           "20200101000000Z", "20200102000000Z")
    signed("client", "/CN=heron-client", ["basicConstraints=CA:FALSE", "extendedKeyUsage=clientAuth"])


def spki_sha256(folder, certificate):
    public = subprocess.run(["openssl", "x509", "-in", certificate, "-pubkey", "-noout"], cwd=folder, check=True,
                            capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "DER"], input=public, cwd=folder, check=True,
                         capture_output=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *arguments):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, context):
        super().__init__(("127.0.0.1", 0), Handler)
        self.context = context
        self.accepted = 0
        self.accepted_lock = threading.Lock()

    def get_request(self):
        connection, address = self.socket.accept()
        with self.accepted_lock:
            self.accepted += 1
        return connection, address

    def finish_request(self, request, client_address):
        # The handshake happens on the connection's own thread, so a client that never
        # finishes it holds no other.
        try:
            request = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            request.close()
            return
        super().finish_request(request, client_address)


def connections_server(servers):
    """A plain-HTTP server whose `GET /connections` gives each TLS server's accepted connections."""

    class Counts(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            if self.path != "/connections":
                self.send_error(404)
                return
            accepted = {}
            for name, server in servers.items():
                with server.accepted_lock:
                    accepted[name] = server.accepted
            body = json.dumps(accepted).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments):
            pass

    made = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counts)
    made.daemon_threads = True
    return made


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port-file", required=True)
    options = parser.parse_args()
    folder = os.path.abspath(options.dir)
    os.makedirs(folder, exist_ok=True)
    make_certificates(folder)

    def context(leaf, mutual=False):
        made = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        made.load_cert_chain(os.path.join(folder, f"{leaf}.pem"), os.path.join(folder, f"{leaf}.key"))
        if mutual:
            made.verify_mode = ssl.CERT_REQUIRED
            made.load_verify_locations(os.path.join(folder, "ca.pem"))
        return made

    servers = {
        "trusted": Server(context("leaf")),
        "expired": Server(context("expired")),
        "wronghost": Server(context("wronghost")),
        "mutual": Server(context("leaf", mutual=True)),
    }
    counts = connections_server(servers)
    for server in [*servers.values(), counts]:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    info = {
        "ports": {name: server.server_address[1] for name, server in servers.items()},
        "ca": os.path.join(folder, "ca.pem"),
        "leaf": os.path.join(folder, "leaf.pem"),
        "client_certificate": os.path.join(folder, "client.pem"),
        "client_key": os.path.join(folder, "client.key"),
        "spki_sha256": {"ca": spki_sha256(folder, "ca.pem"), "leaf": spki_sha256(folder, "leaf.pem")},
        "connections_port": counts.server_address[1],
    }
    announce(options.port_file, json.dumps(info))
    threading.Event().wait()


if __name__ == "__main__":
    main()
