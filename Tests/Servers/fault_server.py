#!/usr/bin/env python3
"""Heron's fault server: the failures a well-behaved server like httpbin cannot produce.

Started by scripts/with-servers (its URL is exported as HERON_FAULT_URL). Python standard
library only; HTTP/1.1 with keep-alive; one thread per connection. Every endpoint is driven
by query parameters and answers deterministically. Any method is accepted unless noted, and a
request body sent to an endpoint that does not read it is read and discarded.

The same endpoints are also served on each Unix domain socket path given with --unix
(scripts/with-servers exports two as HERON_UNIX_SOCKET_A and HERON_UNIX_SOCKET_B), sharing
every counter and record with the TCP listener. A Unix socket has no TCP reset: where an
endpoint below resets the connection, a client on a socket sees it closed instead (an
ECONNRESET only when request bytes were left unread).

Endpoints
  /reset                      closes the connection with a TCP RST (SO_LINGER 0), no answer.
  /truncate?declared=N&send=M 200 with `Content-Length: N`, then only M bytes, then close.
  /slow?bytes=N&chunks=K&interval=S
                              N bytes in K chunks (chunked transfer coding), S seconds apart.
  /delay?seconds=S            waits S seconds (float), then 200 {"delayed": S}.
  /hash (POST, PUT, PATCH)    reads the whole body (Content-Length or chunked), streaming, and
                              answers {"bytes": N, "sha256": hex, "chunked": bool,
                              "content_length": value or null}.
  /hash-fresh?key=K           as /hash on the first request of a connection; a later request on a
                              kept-alive connection is read whole, then the connection is closed
                              unanswered, as by a server that dropped it just then (counted as
                              `closed-K` by /count).
  /flaky?key=K&fail=N&status=503&retry_after=S&retry_after_date=D
                              per key, requests 1..N answer `status` (default 503), with
                              `Retry-After: S` as given, or with `retry_after_date=D` an
                              HTTP-date D seconds from now (RFC 9110 section 10.2.3); later
                              ones 200 {"attempt": i}.
  /flaky-reset?key=K&fail=N   per key, requests 1..N get a TCP reset, later ones 200
                              {"attempt": i}.
  /flaky-truncate?key=K&fail=N
                              per key, requests 1..N get 200 declaring 1000 bytes but sending
                              10 then closing, later ones 200 {"attempt": i}.
  /flaky-record?key=K&fail=N  reads the body and records its Idempotency-Key field, length and
                              SHA-256 under K; requests 1..N then get a TCP reset, later ones
                              200 {"attempt": i}.
  /recorded?key=K             {"requests": [{"idempotency_key": ..., "bytes": n, "sha256": hex}]}
                              recorded by /flaky-record for K, in order.
  /inflight?key=K&seconds=S   holds the request S seconds, counting the requests for K in
                              flight at once; then 200 {"in_flight": n}.
  /inflight-max?key=K         {"max": m, "total": t}: the most requests for K in flight at once
                              on /inflight, and how many there were.
  /count?key=K                {"count": n}: how many requests carrying `key=K` were seen, on
                              any endpoint (this one excluded).
  /headers                    the request's header fields as received: {"lowercased name":
                              [values in order]} (field names are case-insensitive, RFC 9110
                              section 5.1, so names are lowercased for lookup).
  /whoami                     200 {"socket": PATH} with `Cache-Control: max-age=600`: the path
                              of the Unix socket the request came in on, or null over TCP (a
                              cacheable answer that differs per socket).
  /set-cookie?name=N&value=V  200 {"set": {N: V}} with `Set-Cookie: N=V; Path=/`.
  /redirect?to=URL&status=302 a redirect (status 300-399) to any URL, for cross-origin tests;
                              with `loop` instead of `to`, to itself.
  /token-protected            200 {"authenticated": true, "token": T} for
                              `Authorization: Bearer fresh-...`, else 401 with
                              `WWW-Authenticate: Bearer realm="heron"`.
  /bytes?n=N                  N bytes with Content-Length; byte i is i % 256.
  /cacheable?vary=N&bytes=B   200 with `Cache-Control: max-age=600`, B bytes (default 1024)
                              and, with N > 0, a `Vary` naming N distinct fields (`0`, `1`, ...
                              in base 36: 25,000 names make 98 KB, under libcurl's 100 KiB
                              field limit): a response a cache stores, or a hostile one.
  /gzip-bomb?mib=N            N MiB of zero bytes (at most 256), gzip-encoded (about 1,000
                              times smaller), with `Content-Encoding: gzip` and Content-Length.
  /encoded?coding=C&n=N       N bytes (default 64) as /bytes sends them, labelled
                              `Content-Encoding: C` (a coding no client decodes, such as
                              `snappy`): the bytes are not encoded at all.
  /trailers?bytes=N&fields=K  N bytes as /bytes sends them (default 5), chunked, announced by
                              `Trailer: X-Checksum` and followed by a trailer section (RFC 9112
                              section 7.1.2): `X-Checksum: <SHA-256 of the body>` and, with K > 0,
                              K more fields `X-Trailer-i: i`. Over HTTP/1.1 only (the client must
                              send HTTP/1.1 for the chunked coding).
  /not-http                   answers with bytes that are not an HTTP response at all, then closes.
  /huge-head?fields=N&field_bytes=M
                              200 whose head carries N extra fields `X-Hostile-i: v` and one
                              field of M bytes (either may be 0), then an empty body.
  /overlong?declared=N&send=M 200 with `Content-Length: N` and `Connection: close`, followed by
                              M > N bytes, then close (without `Connection: close`, a client's
                              pool may hand the excess to its next request as its reply).
  /reset-mid-body?declared=N&send=M
                              200 with `Content-Length: N`, M bytes, then a TCP reset.
  /content?status=N&type=T&hex=H
                              answers `status` (default 200) with `Content-Type: T` and the
                              body whose bytes are the hex digits H: any status, media type
                              and bytes (a problem+json error, an ISO-8859-1 text).

  /events?format=F&count=N&interval=S&drop_after=K&retry=MS
                              a stream of N values dripped S seconds apart (chunked): F=sse
                              (default) sends `id: i`, `event: tick`, `data: {"n": i}` events,
                              first `retry: MS` when given, and resumes after a valid
                              `Last-Event-ID` (204 once all N were sent); F=jsonl sends
                              `{"n": i}` lines (application/jsonl); F=json-seq RS-framed
                              records (application/json-seq). With drop_after=K the
                              connection is dropped after K values, in the middle of the next.
  /replay?file=PATH&case=N&pause=S
                              case N of the JSON file PATH (a list of cases, each a list of
                              hex chunks; PATH must be in the temporary directory) as a
                              text/event-stream, each chunk flushed on its own, S seconds apart.
  /resumable?key=K&size=N&cuts=C&seed=S&new_version_at=R&validator=etag|date&ranges=yes|no|wrong_at_R
                              a body of N bytes for range requests (RFC 9110 section 14): per key,
                              request i <= C is cut (TCP reset) at the i-th of C random points
                              of the body (seeded by S; a byte in when past it); `Range: bytes=X-` with a
                              matching `If-Range` gets 206 and `Content-Range: bytes X-(N-1)/N`,
                              a mismatching one the whole new body (200). From request R on the
                              content and its validator change (a new version). `validator=date`
                              sends `Last-Modified` (a day before `Date`) instead of `ETag`;
                              `ranges=no` ignores `Range`; `ranges=wrong_at_R` answers request R
                              with a 206 starting 1000 bytes past what was asked, and
                              `ranges=unsatisfiable_at_R` with a 416; `range_cap=B` sends at most
                              B bytes in a 206 (its Content-Range says so), as servers capping
                              their ranges do.
  /resumable-hash?size=N&version=V
                              {"sha256": hex} of version V (1, 2, ...) of /resumable's N bytes.

Bad parameters give 400 with a JSON {"error": ...} naming the parameter; an unknown path 404;
a method an endpoint refuses 405.

Usage: fault_server.py --port N [--host 127.0.0.1] [--port-file PATH] [--unix PATH]...
With --port 0 the system picks a free port; --port-file receives the bound port number once
the server is accepting connections, on TCP and on every --unix path (written atomically).
A --unix path left over by an earlier run (a socket file) is replaced.
"""

import argparse
import email.utils
import hashlib
import http.server
import json
import os
import random
import socket
import socketserver
import stat
import struct
import sys
import tempfile
import threading
import time
import urllib.parse
import zlib
from port_file import announce

# Bytes moved per read or write when streaming bodies.
IO_CHUNK = 1 << 20
# Upper bound on any waiting parameter, so a typo cannot hang a test run.
MAX_SECONDS = 600.0
# Upper bound on generated body sizes (16 GiB).
MAX_BYTES = 1 << 34


class BadRequest(Exception):
    """A query parameter that cannot be used; becomes a 400 naming it."""


class KeyCounters:
    """Per-key request counters, shared by every connection thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._counts = {}

    def increment(self, key):
        """Counts one more request for `key` and returns the new count."""
        with self._lock:
            self._counts[key] = self._counts.get(key, 0) + 1
            return self._counts[key]

    def get(self, key):
        """Returns how many requests were counted for `key`."""
        with self._lock:
            return self._counts.get(key, 0)


class KeyRecords:
    """Per-key lists of what requests carried, shared by every connection thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._records = {}

    def add(self, key, record):
        with self._lock:
            self._records.setdefault(key, []).append(record)

    def get(self, key):
        with self._lock:
            return list(self._records.get(key, []))


class InFlight:
    """Per-key counts of requests in flight at once, and the most seen."""

    def __init__(self):
        self._lock = threading.Lock()
        self._now = {}
        self._most = {}
        self._total = {}

    def enter(self, key):
        with self._lock:
            self._now[key] = self._now.get(key, 0) + 1
            self._most[key] = max(self._most.get(key, 0), self._now[key])
            self._total[key] = self._total.get(key, 0) + 1
            return self._now[key]

    def leave(self, key):
        with self._lock:
            self._now[key] -= 1

    def stats(self, key):
        with self._lock:
            return self._most.get(key, 0), self._total.get(key, 0)


class Query:
    """Typed access to a request's query parameters (the first value of each name)."""

    def __init__(self, raw):
        self._values = {}
        for name, value in urllib.parse.parse_qsl(raw, keep_blank_values=True):
            self._values.setdefault(name, value)

    def text(self, name, default=None):
        value = self._values.get(name, default)
        if value is None:
            raise BadRequest(f"missing query parameter '{name}'")
        return value

    def integer(self, name, default=None, low=0, high=MAX_BYTES):
        raw = self.text(name, None if default is None else str(default))
        try:
            value = int(raw)
        except ValueError:
            raise BadRequest(f"query parameter '{name}' must be an integer, got '{raw}'") from None
        if not low <= value <= high:
            raise BadRequest(f"query parameter '{name}' must be in {low}...{high}, got {value}")
        return value

    def seconds(self, name, default=None):
        raw = self.text(name, None if default is None else str(default))
        try:
            value = float(raw)
        except ValueError:
            raise BadRequest(f"query parameter '{name}' must be a number, got '{raw}'") from None
        if not 0 <= value <= MAX_SECONDS:
            raise BadRequest(f"query parameter '{name}' must be in 0...{MAX_SECONDS:g}, got {raw}")
        return value

    def has(self, name):
        return name in self._values


ANY_METHOD = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
BODY_METHODS = ("POST", "PUT", "PATCH")


def base36(number):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = digits[number % 36]
    while number >= 36:
        number //= 36
        text = digits[number % 36] + text
    return text


class FaultHandler(http.server.BaseHTTPRequestHandler):
    """Answers one connection's requests by dispatching on the path (see ROUTES)."""

    protocol_version = "HTTP/1.1"

    def version_string(self):
        return "HeronFaultServer/1"

    # -- plumbing -----------------------------------------------------------------------------

    def log_message(self, *arguments):
        pass  # quiet: a test run makes thousands of requests

    def address_string(self):
        if isinstance(self.client_address, tuple):
            return super().address_string()
        return "unix:" + self.server.server_address  # a Unix socket's client has no address

    def _no_delay(self):
        """Sends small writes at once (TCP_NODELAY; a Unix socket never delays them)."""
        if self.connection.family in (socket.AF_INET, socket.AF_INET6):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_error(self, format, *arguments):
        # Errors only (a request line that cannot be parsed, say): few, and what explains a
        # reply a client could not read.
        sys.stderr.write("fault server: %s: %s\n" % (self.address_string(), format % arguments))

    def __getattr__(self, name):
        # do_GET, do_POST, ... all go through the dispatcher.
        if name.startswith("do_") and name[3:] in ANY_METHOD:
            return self._dispatch
        raise AttributeError(name)

    def setup(self):
        super().setup()
        self._abort_with_reset = False
        self._requests_on_connection = 0

    def finish(self):
        super().finish()
        if self._abort_with_reset:
            # rfile and wfile are closed now, so this really closes the socket; with a zero
            # linger time the kernel answers with RST instead of the FIN handshake.
            self.connection.close()

    def _dispatch(self):
        split = urllib.parse.urlsplit(self.path)
        route = ROUTES.get(split.path)
        self._body_read = False
        self._requests_on_connection += 1
        try:
            query = Query(split.query)
            if query.has("key") and split.path != "/count":
                self.server.counters.increment(query.text("key"))
            if route is None:
                self._json(404, {"error": f"unknown path '{split.path}'"})
            elif self.command not in route[1]:
                self._json(405, {"error": f"{self.command} not allowed on {split.path}"},
                           [("Allow", ", ".join(route[1]))])
            else:
                route[0](self, query)
        except BadRequest as problem:
            self._json(400, {"error": str(problem)})
        if not self._body_read and not self._abort_with_reset:
            self._discard_body()

    def _json(self, status, value, headers=()):
        body = (json.dumps(value, sort_keys=True) + "\n").encode()
        self._discard_body()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, field_value in headers:
            self.send_header(name, field_value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _reset(self):
        # Unread request bytes are left unread: closing over them is a reset all the same.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self._abort_with_reset = True
        self.close_connection = True

    def _body_chunks(self):
        """Yields the request body in pieces of at most IO_CHUNK bytes (RFC 9112 section 7.1)."""
        self._body_read = True
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            while True:
                line = self.rfile.readline(65537)
                if not line:
                    raise ConnectionError("body ended inside a chunk size line")
                try:
                    size = int(line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    self.close_connection = True
                    raise BadRequest(f"malformed chunk size line {line[:40]!r}") from None
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass  # trailer fields
                    return
                yield from self._exact(size)
                self.rfile.readline(3)  # the CRLF after the chunk data
        else:
            yield from self._exact(int(self.headers.get("Content-Length") or 0))

    def _exact(self, count):
        while count > 0:
            piece = self.rfile.read(min(count, IO_CHUNK))
            if not piece:
                raise ConnectionError("body ended early")
            count -= len(piece)
            yield piece

    def _discard_body(self):
        if not self._body_read:
            for _ in self._body_chunks():
                pass

    # -- endpoints ----------------------------------------------------------------------------

    def reset(self, query):
        self._reset()

    def truncate(self, query):
        declared = query.integer("declared")
        self._truncated(declared, query.integer("send", high=declared))

    def _truncated(self, declared, send, announce_close=False):
        self._discard_body()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(declared))
        if announce_close:
            self.send_header("Connection", "close")
        self.end_headers()
        self._write_pattern(send)
        self.close_connection = True

    def slow(self, query):
        total = query.integer("bytes")
        chunks = query.integer("chunks", default=1, low=1, high=1_000_000)
        interval = query.seconds("interval", default=0)
        self._discard_body()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if self.command == "HEAD":
            return
        sent = 0
        for index in range(chunks):
            size = total // chunks + (1 if index < total % chunks else 0)
            if index > 0:
                time.sleep(interval)
            if size:
                self.wfile.write(b"%x\r\n" % size)
                self._write_pattern(size, offset=sent)
                self.wfile.write(b"\r\n")
                sent += size
        self.wfile.write(b"0\r\n\r\n")

    def trailers(self, query):
        total = query.integer("bytes", default=5)
        extra = query.integer("fields", default=0, low=0, high=1000)
        self._discard_body()
        body = bytes(i % 256 for i in range(total))
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Trailer", "X-Checksum")
        self.end_headers()
        if self.command == "HEAD":
            return
        if body:
            self.wfile.write(b"%x\r\n" % len(body) + body + b"\r\n")
        trailer = b"X-Checksum: " + hashlib.sha256(body).hexdigest().encode() + b"\r\n"
        trailer += b"".join(b"X-Trailer-%d: %d\r\n" % (i, i) for i in range(extra))
        self.wfile.write(b"0\r\n" + trailer + b"\r\n")

    def delay(self, query):
        seconds = query.seconds("seconds")
        time.sleep(seconds)
        self._json(200, {"delayed": seconds})

    def hash(self, query):
        digest = hashlib.sha256()
        count = 0
        chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
        length = self.headers.get("Content-Length")
        for piece in self._body_chunks():
            digest.update(piece)
            count += len(piece)
        self._json(200, {
            "bytes": count,
            "sha256": digest.hexdigest(),
            "chunked": chunked,
            "content_length": None if length is None else int(length),
        })

    def hash_fresh(self, query):
        # A kept-alive connection the server closes as its next request arrives: what a server
        # whose idle timeout fires just then does. The client must send the request again on a
        # new connection, body and all.
        if self._requests_on_connection > 1:
            self.server.counters.increment("closed-" + query.text("key", ""))
            # The whole request is read first: the client sees its request sent, then the
            # connection end without a byte of an answer.
            for _ in self._body_chunks():
                pass
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.hash(query)

    def flaky(self, query):
        attempt = self.server.counters.get(query.text("key"))
        fail = query.integer("fail")
        status = query.integer("status", default=503, low=100, high=599)
        if attempt <= fail:
            headers = []
            if query.has("retry_after"):
                headers.append(("Retry-After", query.text("retry_after")))
            if query.has("retry_after_date"):
                moment = time.time() + query.seconds("retry_after_date")
                headers.append(("Retry-After", email.utils.formatdate(moment, usegmt=True)))
            self._json(status, {"attempt": attempt, "status": status}, headers)
        else:
            self._json(200, {"attempt": attempt})

    def flaky_reset(self, query):
        attempt = self.server.counters.get(query.text("key"))
        if attempt <= query.integer("fail"):
            self._reset()
        else:
            self._json(200, {"attempt": attempt})

    def flaky_truncate(self, query):
        attempt = self.server.counters.get(query.text("key"))
        if attempt <= query.integer("fail"):
            self._truncated(declared=1000, send=10)
        else:
            self._json(200, {"attempt": attempt})

    def flaky_record(self, query):
        attempt = self.server.counters.get(query.text("key"))
        digest = hashlib.sha256()
        size = 0
        for piece in self._body_chunks():
            digest.update(piece)
            size += len(piece)
        self.server.records.add(query.text("key"), {
            "idempotency_key": self.headers.get("Idempotency-Key"), "bytes": size, "sha256": digest.hexdigest()})
        if attempt <= query.integer("fail"):
            self._reset()
        else:
            self._json(200, {"attempt": attempt})

    def recorded(self, query):
        self._json(200, {"requests": self.server.records.get(query.text("key"))})

    def inflight(self, query):
        key = query.text("key")
        seconds = query.seconds("seconds", default=0.1)
        now = self.server.in_flight.enter(key)
        try:
            time.sleep(seconds)
        finally:
            self.server.in_flight.leave(key)
        self._json(200, {"in_flight": now})

    def inflight_max(self, query):
        most, total = self.server.in_flight.stats(query.text("key"))
        self._json(200, {"max": most, "total": total})

    def count(self, query):
        self._json(200, {"count": self.server.counters.get(query.text("key"))})

    def headers_echo(self, query):
        fields = {}
        for name, value in self.headers.items():
            fields.setdefault(name.lower(), []).append(value)
        self._json(200, fields)

    def whoami(self, query):
        path = self.server.server_address
        body = (json.dumps({"socket": path if isinstance(path, str) else None}) + "\n").encode()
        self._discard_body()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "max-age=600")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def set_cookie(self, query):
        name, value = query.text("name"), query.text("value", "")
        if not name or any(c in name for c in "=;, \t\r\n") or any(c in value for c in ";\r\n"):
            raise BadRequest("query parameters 'name' and 'value' must make a cookie-pair")
        self._json(200, {"set": {name: value}}, [("Set-Cookie", f"{name}={value}; Path=/")])

    def redirect(self, query):
        target = self.path if query.has("loop") else query.text("to")
        status = query.integer("status", default=302, low=300, high=399)
        self._json(status, {"location": target}, [("Location", target)])

    def token_protected(self, query):
        authorization = self.headers.get("Authorization", "")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() == "bearer" and token.startswith("fresh-"):
            self._json(200, {"authenticated": True, "token": token})
        else:
            self._json(401, {"authenticated": False}, [("WWW-Authenticate", 'Bearer realm="heron"')])

    def bytes_pattern(self, query):
        count = query.integer("n")
        self._discard_body()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(count))
        self.end_headers()
        self._write_pattern(count)

    def cacheable(self, query):
        names = query.integer("vary", 0, high=30_000)
        count = query.integer("bytes", 1024, high=64 << 20)
        self._discard_body()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Cache-Control", "max-age=600")
        if names:
            self.send_header("Vary", ",".join(base36(i) for i in range(names)))
        self.send_header("Content-Length", str(count))
        self.end_headers()
        self._write_pattern(count)

    def gzip_bomb(self, query):
        mib = query.integer("mib", 64, low=1, high=256)
        body = self.server.gzip_zeros(mib)
        self._discard_body()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def encoded(self, query):
        coding = query.text("coding")
        if not coding or not all(c.isalnum() or c in "-._" for c in coding):
            raise BadRequest("query parameter 'coding' must be a token")
        count = query.integer("n", 64, high=1 << 20)
        self._discard_body()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(count))
        self.end_headers()
        self._write_pattern(count)

    def not_http(self, query):
        self._discard_body()
        self.wfile.write(b"SSH-2.0-OpenSSH_9.2 this is not HTTP\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True

    def huge_head(self, query):
        fields = query.integer("fields", 0, high=1_000_000)
        field_bytes = query.integer("field_bytes", 0, high=64 << 20)
        self._discard_body()
        head = [b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n"]
        head.extend(b"X-Hostile-%d: v\r\n" % index for index in range(fields))
        if field_bytes:
            head.append(b"X-Huge: " + b"a" * field_bytes + b"\r\n")
        head.append(b"\r\n")
        try:
            self.wfile.write(b"".join(head))
            self.wfile.flush()
        except OSError:
            pass  # the client gave up on the head, as it may
        self.close_connection = True

    def overlong(self, query):
        # `Connection: close` (RFC 9112 section 9.6): on a connection kept for reuse, libcurl
        # (URLSession) and AsyncHTTPClient alike may send the next request before they see the
        # close and read the excess as its reply (the next request of any test sharing their pool
        # then fails as invalidResponse); RFC 9112 section 6.3 lets a client discard the excess but
        # no client here can be made to. The body cut at its declared length is what is tested.
        declared = query.integer("declared")
        self._truncated(declared, query.integer("send", low=declared), announce_close=True)

    def reset_mid_body(self, query):
        declared = query.integer("declared")
        self._truncated(declared, query.integer("send", high=declared))
        self.wfile.flush()
        self._reset()

    def content(self, query):
        status = query.integer("status", 200, low=200, high=599)
        media_type = query.text("type")
        try:
            body = bytes.fromhex(query.text("hex", ""))
        except ValueError:
            raise BadRequest("query parameter 'hex' must be hex digits") from None
        self._discard_body()
        self.send_response(status)
        self.send_header("Content-Type", media_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def events(self, query):
        kind = query.text("format", "sse")
        if kind not in ("sse", "jsonl", "json-seq"):
            raise BadRequest("query parameter 'format' must be sse, jsonl or json-seq")
        count = query.integer("count", 5, high=1_000_000)
        interval = query.seconds("interval", default=0)
        drop_after = query.integer("drop_after", 0, high=1_000_000)
        retry = query.integer("retry", -1, low=-1)
        start = 1
        if kind == "sse":
            last = self.headers.get("Last-Event-ID", "")
            if last.isdigit():
                start = int(last) + 1
        self._discard_body()
        if start > count:
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        media = {"sse": "text/event-stream", "jsonl": "application/jsonl", "json-seq": "application/json-seq"}[kind]
        self.send_response(200)
        self.send_header("Content-Type", media)
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._no_delay()
        if kind == "sse" and retry >= 0:
            self._chunk(b"retry: %d\n\n" % retry)
        for sent, value in enumerate(range(start, count + 1)):
            if sent > 0:
                time.sleep(interval)
            payload = b'{"n": %d}' % value
            if kind == "sse":
                piece = b"id: %d\nevent: tick\ndata: %s\n\n" % (value, payload)
            elif kind == "jsonl":
                piece = payload + b"\n"
            else:
                piece = b"\x1e" + payload + b"\n"
            if drop_after and sent == drop_after:
                self._chunk(piece[: len(piece) // 2])
                self.close_connection = True
                return  # no last chunk: the body is cut in the middle of a value
            self._chunk(piece)
        self._chunk(b"")

    def replay(self, query):
        path = os.path.realpath(query.text("file"))
        if os.path.dirname(path) != os.path.realpath(tempfile.gettempdir()) and not path.startswith(
            os.path.realpath(tempfile.gettempdir()) + os.sep
        ):
            raise BadRequest("query parameter 'file' must name a file in the temporary directory")
        cases = self.server.replay_cases(path)
        index = query.integer("case", high=len(cases) - 1)
        pause = query.seconds("pause", default=0)
        self._discard_body()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._no_delay()
        for number, piece in enumerate(cases[index]):
            if number > 0 and pause:
                time.sleep(pause)
            if piece:
                self._chunk(bytes.fromhex(piece))
        self._chunk(b"")

    def resumable(self, query):
        key = query.text("key")
        size = query.integer("size")
        request_number = self.server.counters.get(key)
        new_version_at = query.integer("new_version_at", 0)
        version = 2 if new_version_at and request_number >= new_version_at else 1
        use_date = query.text("validator", "etag") == "date"
        validator = f"Sat, 0{version} Jan 2022 00:00:00 GMT" if use_date else f'"v{version}-{size}"'
        ranges = query.text("ranges", "yes")
        start = 0
        wanted = self.headers.get("Range", "")
        if wanted.startswith("bytes=") and wanted.endswith("-") and ranges != "no":
            try:
                start = int(wanted[len("bytes="):-1])
            except ValueError:
                raise BadRequest(f"unsupported Range {wanted!r}") from None
            if self.headers.get("If-Range", validator) != validator or not 0 <= start < size:
                start = 0
        self._discard_body()
        if ranges == f"unsatisfiable_at_{request_number}" and start > 0:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        served = start
        if ranges == f"wrong_at_{request_number}" and start > 0:
            served = min(start + 1000, size - 1)
        end = size
        if start > 0 and query.has("range_cap"):
            end = min(size, served + query.integer("range_cap", low=1))
        self.send_response(206 if start > 0 else 200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Last-Modified" if use_date else "ETag", validator)
        self.send_header("Content-Length", str(end - served))
        if start > 0:
            self.send_header("Content-Range", f"bytes {served}-{end - 1}/{size}")
        self.end_headers()
        if self.command == "HEAD":
            return
        # The cut points are spread over the whole body (sorted, seeded): request i stops at the
        # i-th, or a byte after where it starts when the client already has more.
        cut = None
        cuts = query.integer("cuts", 0, high=10_000)
        if request_number <= cuts and size - served > 1:
            points = sorted(random.Random(query.text("seed", "0")).sample(range(1, size), min(cuts, size - 1)))
            cut = min(max(points[request_number - 1], served + 1), size - 1)
        self._write_versioned(version, served, end if cut is None else min(cut, end))
        if cut is not None:
            self.wfile.flush()
            self._reset()

    def resumable_hash(self, query):
        size = query.integer("size")
        digest = hashlib.sha256()
        for block in self._versioned_blocks(query.integer("version", 1, low=1, high=255), 0, size):
            digest.update(block)
        self._json(200, {"sha256": digest.hexdigest()})

    def _versioned_blocks(self, version, start, end):
        """Yields bytes start..<end of /resumable's body: byte p is (7p + 64K-block of p + 13v) % 256."""
        position = start
        while position < end:
            block = position >> 16
            shift = (block + 13 * version) % 256
            table = bytes((value + shift) % 256 for value in range(256))
            offset = position & 0xFFFF
            piece = RESUMABLE_BASE[offset:min(0x10000, offset + end - position)].translate(table)
            yield piece
            position += len(piece)

    def _write_versioned(self, version, start, end):
        for piece in self._versioned_blocks(version, start, end):
            self.wfile.write(piece)

    def _chunk(self, data):
        """Writes one chunk of a chunked body (the last one when `data` is empty) and flushes it."""
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _write_pattern(self, count, offset=0):
        """Writes `count` bytes of the pattern where byte i of the body is i % 256."""
        if self.command == "HEAD":
            return
        block = bytes(range(256)) * (IO_CHUNK // 256 + 1)
        block = block[offset % 256 :][:IO_CHUNK]
        while count > 0:
            piece = block[: min(count, len(block))]
            self.wfile.write(piece)
            count -= len(piece)


# /resumable's 64 KiB base block: byte i is 7i % 256.
RESUMABLE_BASE = bytes((7 * index) % 256 for index in range(0x10000))

# path -> (handler, allowed methods)
ROUTES = {
    "/reset": (FaultHandler.reset, ANY_METHOD),
    "/truncate": (FaultHandler.truncate, ANY_METHOD),
    "/slow": (FaultHandler.slow, ANY_METHOD),
    "/delay": (FaultHandler.delay, ANY_METHOD),
    "/hash": (FaultHandler.hash, BODY_METHODS),
    "/flaky": (FaultHandler.flaky, ANY_METHOD),
    "/flaky-reset": (FaultHandler.flaky_reset, ANY_METHOD),
    "/flaky-truncate": (FaultHandler.flaky_truncate, ANY_METHOD),
    "/flaky-record": (FaultHandler.flaky_record, BODY_METHODS),
    "/recorded": (FaultHandler.recorded, ANY_METHOD),
    "/inflight": (FaultHandler.inflight, ANY_METHOD),
    "/inflight-max": (FaultHandler.inflight_max, ANY_METHOD),
    "/count": (FaultHandler.count, ANY_METHOD),
    "/headers": (FaultHandler.headers_echo, ANY_METHOD),
    "/whoami": (FaultHandler.whoami, ANY_METHOD),
    "/set-cookie": (FaultHandler.set_cookie, ANY_METHOD),
    "/redirect": (FaultHandler.redirect, ANY_METHOD),
    "/token-protected": (FaultHandler.token_protected, ANY_METHOD),
    "/bytes": (FaultHandler.bytes_pattern, ANY_METHOD),
    "/encoded": (FaultHandler.encoded, ANY_METHOD),
    "/gzip-bomb": (FaultHandler.gzip_bomb, ANY_METHOD),
    "/cacheable": (FaultHandler.cacheable, ANY_METHOD),
    "/hash-fresh": (FaultHandler.hash_fresh, ANY_METHOD),
    "/content": (FaultHandler.content, ANY_METHOD),
    "/trailers": (FaultHandler.trailers, ANY_METHOD),
    "/not-http": (FaultHandler.not_http, ANY_METHOD),
    "/huge-head": (FaultHandler.huge_head, ANY_METHOD),
    "/overlong": (FaultHandler.overlong, ANY_METHOD),
    "/reset-mid-body": (FaultHandler.reset_mid_body, ANY_METHOD),
    "/events": (FaultHandler.events, ANY_METHOD),
    "/replay": (FaultHandler.replay, ANY_METHOD),
    "/resumable": (FaultHandler.resumable, ANY_METHOD),
    "/resumable-hash": (FaultHandler.resumable_hash, ANY_METHOD),
}


class FaultState:
    """What every listener of one fault server shares: counters, records, caches."""

    def _share_state(self, primary=None):
        """Makes this listener's state, or adopts `primary`'s (the same objects)."""
        if primary is not None:
            for name in ("counters", "records", "in_flight", "_replay_lock", "_replay_files", "_gzip_zeros"):
                setattr(self, name, getattr(primary, name))
            return
        self.counters = KeyCounters()
        self.records = KeyRecords()
        self.in_flight = InFlight()
        self._replay_lock = threading.Lock()
        self._replay_files = {}
        self._gzip_zeros = {}

    def replay_cases(self, path):
        """The cases of a replay file, read once per path and modification time."""
        stamp = os.stat(path).st_mtime_ns
        with self._replay_lock:
            cached = self._replay_files.get(path)
            if cached is None or cached[0] != stamp:
                with open(path) as handle:
                    cached = (stamp, json.load(handle))
                self._replay_files[path] = cached
            return cached[1]

    def gzip_zeros(self, mib):
        """`mib` MiB of zero bytes, gzip-encoded, made once per size."""
        with self._replay_lock:
            cached = self._gzip_zeros.get(mib)
            if cached is None:
                compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip wrapper
                zeros = bytes(1 << 20)
                cached = b"".join(compressor.compress(zeros) for _ in range(mib)) + compressor.flush()
                self._gzip_zeros[mib] = cached
            return cached

    def handle_error(self, request, client_address):
        # A client that goes away mid-answer (cancellation, timeout tests) is expected.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError, ValueError)):
            return
        super().handle_error(request, client_address)


class FaultServer(FaultState, http.server.ThreadingHTTPServer):
    """The TCP listener: a threading server whose connection threads never block shutdown."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512

    def __init__(self, address):
        super().__init__(address, FaultHandler)
        self._share_state()


class UnixFaultServer(FaultState, socketserver.ThreadingUnixStreamServer):
    """A listener on a Unix domain socket path, sharing the TCP listener's state."""

    daemon_threads = True
    request_queue_size = 512

    def __init__(self, path, primary):
        try:
            if stat.S_ISSOCK(os.lstat(path).st_mode):
                os.unlink(path)  # left by an earlier run: a socket file outlives its server
        except FileNotFoundError:
            pass
        super().__init__(path, FaultHandler)
        self._share_state(primary)

    def server_close(self):
        super().server_close()
        try:
            os.unlink(self.server_address)
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser(description="Heron's fault server (see the module docstring).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="0 picks a free port")
    parser.add_argument("--port-file", help="write the bound port here once listening")
    parser.add_argument("--unix", action="append", default=[], metavar="PATH",
                        help="also serve on this Unix domain socket path (repeatable)")
    options = parser.parse_args()
    server = FaultServer((options.host, options.port))
    unix_servers = [UnixFaultServer(path, server) for path in options.unix]
    for unix_server in unix_servers:
        threading.Thread(target=unix_server.serve_forever, daemon=True).start()
    if options.port_file:
        announce(options.port_file, str(server.server_address[1]))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        for unix_server in unix_servers:
            unix_server.server_close()


if __name__ == "__main__":
    main()
