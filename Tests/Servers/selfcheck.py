#!/usr/bin/env python3
"""Checks that the local test servers behave as the Swift tests expect.

Run by scripts/with-servers when HERON_SERVER_SELFCHECK=1, against HERON_FAULT_URL and
HERON_HTTPBIN_URL. Exercises every fault-server endpoint (see fault_server.py) and the httpbin
endpoints the suites use, over real sockets; prints one line per check and exits non-zero
when any check fails.
"""

import email.utils
import hashlib
import http.client
import json
import os
import socket
import sys
import time
import urllib.parse
import uuid

FAILURES = []


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"))
    if not condition:
        FAILURES.append(name)


def address(variable):
    url = urllib.parse.urlsplit(os.environ[variable])
    return url.hostname, url.port


def request(server, method, path, body=None, headers=None, chunked=False):
    """Sends one request on a new connection; returns (status, headers, body bytes)."""
    connection = http.client.HTTPConnection(*server, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {}, encode_chunked=chunked)
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def raw_exchange(server, request_bytes):
    """Sends raw bytes and reads until the peer closes; returns (bytes read, error name)."""
    with socket.create_connection(server, timeout=10) as sock:
        sock.sendall(request_bytes)
        received = b""
        try:
            while True:
                piece = sock.recv(65536)
                if not piece:
                    return received, "eof"
                received += piece
        except ConnectionResetError:
            return received, "reset"


def check_fault_server(server):
    key = uuid.uuid4().hex

    data, ending = raw_exchange(server, b"GET /reset HTTP/1.1\r\nHost: x\r\n\r\n")
    check("/reset answers nothing and resets", data == b"" and ending == "reset", (data[:80], ending))

    data, ending = raw_exchange(server, b"GET /truncate?declared=100&send=10 HTTP/1.1\r\nHost: x\r\n\r\n")
    head, _, body = data.partition(b"\r\n\r\n")
    check("/truncate declares N, sends M, closes",
          b"Content-Length: 100" in head and body == bytes(range(10)) and ending == "eof", (head, body))

    started = time.monotonic()
    status, headers, body = request(server, "GET", "/slow?bytes=1000&chunks=4&interval=0.2")
    elapsed = time.monotonic() - started
    check("/slow is chunked, paced and complete",
          status == 200 and headers.get("Transfer-Encoding") == "chunked"
          and body == bytes(i % 256 for i in range(1000)) and 0.55 < elapsed < 3, (status, len(body), elapsed))

    started = time.monotonic()
    status, _, body = request(server, "GET", "/delay?seconds=0.3")
    elapsed = time.monotonic() - started
    check("/delay waits", status == 200 and json.loads(body) == {"delayed": 0.3} and elapsed >= 0.3, elapsed)

    payload = os.urandom(3 * 1024 * 1024 + 17)
    status, _, body = request(server, "PUT", "/hash", body=payload)
    check("/hash with Content-Length", status == 200 and json.loads(body) == {
        "bytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest(),
        "chunked": False, "content_length": len(payload)}, body)

    pieces = [payload[:5], payload[5:100000], payload[100000:]]
    status, _, body = request(server, "POST", "/hash", body=iter(pieces), headers={"Transfer-Encoding": "chunked"},
                              chunked=True)
    check("/hash with chunked body", status == 200 and json.loads(body) == {
        "bytes": len(payload), "sha256": hashlib.sha256(payload).hexdigest(),
        "chunked": True, "content_length": None}, body)

    data, _ = raw_exchange(server, b"POST /hash HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
    check("/hash answers 400 to a malformed chunk", data.startswith(b"HTTP/1.1 400"), data[:80])

    status, headers, _ = request(server, "GET", "/hash")
    check("/hash refuses GET", status == 405 and "POST" in headers.get("Allow", ""), status)

    answers = [request(server, "GET", f"/flaky?key={key}&fail=2&status=429&retry_after=1") for _ in range(3)]
    check("/flaky fails N times then succeeds",
          [a[0] for a in answers] == [429, 429, 200] and answers[0][1].get("Retry-After") == "1"
          and json.loads(answers[2][2]) == {"attempt": 3}, [a[0] for a in answers])

    reset_key = key + "-reset"
    endings = [raw_exchange(server, f"GET /flaky-reset?key={reset_key}&fail=1 HTTP/1.1\r\nHost: x\r\n"
                                    "Connection: close\r\n\r\n".encode())[1] for _ in range(2)]
    status, _, body = request(server, "GET", f"/count?key={reset_key}")
    check("/flaky-reset resets N times then succeeds; /count counts",
          endings == ["reset", "eof"] and json.loads(body) == {"count": 2}, (endings, body))

    truncate_key = key + "-truncate"
    data, ending = raw_exchange(server, f"GET /flaky-truncate?key={truncate_key}&fail=1 HTTP/1.1\r\nHost: x\r\n"
                                        "\r\n".encode())
    status, _, body = request(server, "GET", f"/flaky-truncate?key={truncate_key}&fail=1")
    check("/flaky-truncate truncates N times then succeeds",
          b"Content-Length: 1000" in data and data.endswith(bytes(range(10))) and ending == "eof"
          and status == 200 and json.loads(body) == {"attempt": 2}, (data[-20:], status, body))

    status, headers, _ = request(server, "GET", f"/flaky?key={key}-date&fail=1&retry_after_date=30")
    parsed = email.utils.parsedate_to_datetime(headers.get("Retry-After", "x"))
    check("/flaky with an HTTP-date Retry-After", status == 503 and 25 < parsed.timestamp() - time.time() < 35,
          headers.get("Retry-After"))

    status, _, body = request(server, "GET", "/headers", headers={"Authorization": "Bearer x", "X-Two": "a"})
    fields = json.loads(body)
    check("/headers echoes fields",
          fields.get("authorization") == ["Bearer x"] and fields.get("x-two") == ["a"], fields)

    status, headers, _ = request(server, "GET", "/redirect?to=" + urllib.parse.quote("http://example.invalid/x?y=1") +
                                 "&status=307")
    check("/redirect", status == 307 and headers.get("Location") == "http://example.invalid/x?y=1", status)

    status, headers, _ = request(server, "GET", "/token-protected", headers={"Authorization": "Bearer stale-1"})
    check("/token-protected refuses a stale token",
          status == 401 and headers.get("WWW-Authenticate", "").startswith("Bearer"), status)
    status, _, body = request(server, "GET", "/token-protected", headers={"Authorization": "Bearer fresh-1"})
    check("/token-protected accepts a fresh token", status == 200 and json.loads(body)["token"] == "fresh-1", body)

    status, headers, body = request(server, "GET", "/bytes?n=70000")
    check("/bytes", status == 200 and headers.get("Content-Length") == "70000"
          and body == bytes(i % 256 for i in range(70000)), status)

    status, _, body = request(server, "GET", "/bytes?n=lots")
    check("bad parameter is a 400 naming it", status == 400 and "'n'" in json.loads(body)["error"], body)

    connection = http.client.HTTPConnection(*server, timeout=10)
    statuses, ports = [], set()
    for _ in range(3):
        connection.request("POST", "/delay?seconds=0", body=b"ignored body")
        response = connection.getresponse()
        response.read()
        statuses.append(response.status)
        ports.add(connection.sock.getsockname()[1] if connection.sock else None)
    connection.close()
    check("keep-alive: three requests on one connection", statuses == [200] * 3 and len(ports) == 1
          and None not in ports, (statuses, ports))


def check_httpbin(server):
    for method, path, expected in [
        ("GET", "/get", 200), ("POST", "/post", 200), ("GET", "/status/503", 503),
        ("GET", "/basic-auth/user/pass", 401), ("GET", "/bearer", 401), ("GET", "/redirect/3", 302),
        ("GET", "/redirect-to?url=/get", 302), ("GET", "/gzip", 200), ("GET", "/bytes/1024", 200),
        ("GET", "/stream-bytes/1024", 200), ("GET", "/headers", 200), ("PUT", "/anything", 200),
        ("GET", "/delay/0", 200),
    ]:
        status, _, _ = request(server, method, path)
        check(f"httpbin {method} {path}", status == expected, status)


def main():
    check_fault_server(address("HERON_FAULT_URL"))
    check_httpbin(address("HERON_HTTPBIN_URL"))
    if FAILURES:
        print(f"{len(FAILURES)} checks failed: {', '.join(FAILURES)}")
        sys.exit(1)
    print("servers: all checks passed")


if __name__ == "__main__":
    main()
