#!/usr/bin/env python3
"""Heron's fault proxy: an HTTP proxy that goes away in the middle of every response body.

Started by scripts/with-servers (its URL is exported as HERON_FAULT_PROXY_URL). Python
standard library only; one thread per connection. It never contacts the origin a request
names: it answers every proxied request itself, always the same way.

  CONNECT host:port           `HTTP/1.1 200 Connection established` (RFC 9110 section 9.3.6),
                              then reads one plain HTTP/1.1 request through the tunnel and
                              answers it as below. The tunnel carries plain HTTP only: a TLS
                              handshake (or anything else that is not a request head) gets
                              the connection closed without a byte more.
  GET http://host/path ...    a request in absolute form (RFC 9112 section 3.2.2, what a client
                              sends for http:// through a proxy), any method: answered as below.

The answer: `200 OK` with `Content-Length: 100000`, then only the first 1000 bytes of that
body (byte i is i % 256, the fault server's pattern), then the connection is closed.

  GET /count?key=K            (origin form, to the proxy itself) {"count": n, "tunnelled": t}:
                              how many proxied requests whose target carried `key=K` were
                              answered, and how many of them came through a CONNECT tunnel.
  GET /seen                   (origin form, to the proxy itself) the proxied request heads it
                              received, in order: {"requests": [{"line": "CONNECT h:p HTTP/1.1",
                              "fields": {lowercased name: [values in order]}, "connection": n}]}
                              where n numbers the client connections in the order accepted (from
                              1). A CONNECT's head and an absolute-form request's head are
                              recorded, not a request sent inside a tunnel (that one is the
                              origin's), nor a request to the proxy itself: so a test can show
                              which credentials reached this proxy, and which never did.
  GET /seen?clear=1           the same, and the record is emptied.

Anything else (a request head that cannot be parsed, another origin-form path) gets 400 and
the connection closed. Answers to /count and /seen close the connection too.

Usage: fault_proxy.py --port N [--host 127.0.0.1] [--port-file PATH]
With --port 0 the system picks a free port; --port-file receives the bound port number once
the proxy is accepting connections (written atomically).
"""

import argparse
import json
import socketserver
import sys
import threading
import urllib.parse
from port_file import serve

DECLARED_BYTES = 100_000
SENT_BYTES = 1_000
MAX_HEAD = 64 * 1024


class Counters:
    """Per-key counts of answered requests, and of those that came through a tunnel."""

    def __init__(self):
        self._lock = threading.Lock()
        self._counts = {}

    def add(self, key, tunnelled):
        with self._lock:
            count, through_tunnel = self._counts.get(key, (0, 0))
            self._counts[key] = (count + 1, through_tunnel + (1 if tunnelled else 0))

    def get(self, key):
        with self._lock:
            return self._counts.get(key, (0, 0))


class Seen:
    """The proxied request heads received, in order, with the connection each came on."""

    def __init__(self):
        self._lock = threading.Lock()
        self._requests = []
        self._connections = 0

    def new_connection(self):
        with self._lock:
            self._connections += 1
            return self._connections

    def add(self, connection, line, fields):
        with self._lock:
            self._requests.append({"line": line, "fields": fields, "connection": connection})

    def get(self, clear):
        with self._lock:
            requests = list(self._requests)
            if clear:
                self._requests.clear()
            return requests


class ProxyHandler(socketserver.StreamRequestHandler):
    """Handles one client connection: a CONNECT tunnel, an absolute-form request, /count or /seen."""

    timeout = 60  # seconds a connection may stay silent (StreamRequestHandler applies it)

    def handle(self):
        connection = self.server.seen.new_connection()
        head = self._read_head()
        if head is None:
            return
        method, target, length, line, fields = head
        if method == "CONNECT" or target.startswith(("http://", "https://")):
            self.server.seen.add(connection, line, fields)
        if method == "CONNECT":
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
            first = self.rfile.peek(1)[:1]
            if not first.isalpha():
                return  # a TLS ClientHello (0x16) or nothing: closed at once
            inner = self._read_head()
            if inner is None:
                return  # not a plain HTTP request: a TLS ClientHello, say
            self._truncated(inner[1], inner[2], tunnelled=True)
        elif target.startswith(("http://", "https://")):
            self._truncated(target, length, tunnelled=False)
        elif urllib.parse.urlsplit(target).path == "/count":
            key = self._key(target)
            count, tunnelled = self.server.counters.get(key) if key is not None else (0, 0)
            self._answer(200, json.dumps({"count": count, "tunnelled": tunnelled}).encode() + b"\n")
        elif urllib.parse.urlsplit(target).path == "/seen":
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
            requests = self.server.seen.get(clear=query.get("clear") == ["1"])
            self._answer(200, json.dumps({"requests": requests}).encode() + b"\n")
        else:
            self._answer(400, b'{"error": "send a CONNECT, an absolute-form request, GET /count or GET /seen"}\n')

    def _read_head(self):
        """Reads a request head; returns (method, target, Content-Length or 0, request line,
        {lowercased field name: [values]}), or None (having answered 400 when the client sent
        bytes that are not a request head)."""
        lines = []
        size = 0
        while True:
            line = self.rfile.readline(MAX_HEAD + 1)
            size += len(line)
            if not line or size > MAX_HEAD:
                return None
            if line in (b"\r\n", b"\n"):
                break
            lines.append(line)
        parts = lines[0].split() if lines else []
        if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
            self._answer(400, b'{"error": "not an HTTP/1.x request head"}\n')
            return None
        length = 0
        fields = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip()
            fields.setdefault(name.decode("latin-1"), []).append(value.decode("latin-1"))
            if name == b"content-length" and value.isdigit():
                length = int(value)
        request_line = lines[0].rstrip(b"\r\n").decode("latin-1")
        return parts[0].decode("latin-1"), parts[1].decode("latin-1"), length, request_line, fields

    @staticmethod
    def _key(target):
        values = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query).get("key")
        return values[0] if values else None

    def _truncated(self, target, length, tunnelled):
        # The request body (Content-Length only) is read first, so that closing the connection
        # is a FIN, not a reset for unread bytes that could destroy the answer in flight.
        while length > 0:
            piece = self.rfile.read(min(length, 1 << 16))
            if not piece:
                break
            length -= len(piece)
        key = self._key(target)
        if key is not None:
            self.server.counters.add(key, tunnelled)
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                         b"Content-Length: %d\r\n\r\n" % DECLARED_BYTES)
        self.wfile.write(bytes(index % 256 for index in range(SENT_BYTES)))
        self.wfile.flush()

    def _answer(self, status, body):
        reason = {200: "OK", 400: "Bad Request"}[status]
        self.wfile.write(b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                         b"Connection: close\r\n\r\n%s" % (status, reason.encode(), len(body), body))
        self.wfile.flush()


class FaultProxy(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512

    def __init__(self, address):
        super().__init__(address, ProxyHandler)
        self.counters = Counters()
        self.seen = Seen()

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return  # a client that gives up first is expected
        super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description="Heron's fault proxy (see the module docstring).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="0 picks a free port")
    parser.add_argument("--port-file", help="write the bound port here once listening")
    options = parser.parse_args()
    serve(FaultProxy((options.host, options.port)), options.port_file)


if __name__ == "__main__":
    main()
