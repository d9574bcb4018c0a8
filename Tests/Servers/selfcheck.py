#!/usr/bin/env python3
"""Checks that the local test servers behave as the Swift tests expect.

Run by scripts/with-servers when HERON_SERVER_SELFCHECK=1, against HERON_FAULT_URL and
HERON_HTTPBIN_URL. Exercises every fault-server endpoint (see fault_server.py) and the httpbin
endpoints the suites use, over real sockets; then the proxies (HERON_PROXY_URL,
HERON_PROXY_AUTH_URL and HERON_PROXY_DIGEST_URL with HERON_PROXY_USER and HERON_PROXY_PASSWORD,
HERON_PROXY_LIMITED_URL, HERON_SOCKS_URL, HERON_FAULT_PROXY_URL and its /seen) and the Unix
domain sockets (HERON_UNIX_SOCKET_A, HERON_UNIX_SOCKET_B, HERON_HTTPBIN_SOCKET). Prints
one line per check and exits non-zero when any check fails.
"""

import base64
import email.utils
import hashlib
import http.client
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
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


class UnixHTTPConnection(http.client.HTTPConnection):
    """http.client over a Unix domain socket path."""

    def __init__(self, path, timeout=10):
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


def unix_request(path, method, target, headers=None):
    connection = UnixHTTPConnection(path)
    try:
        connection.request(method, target, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


def read_head(sock):
    """Reads a response head byte by byte (so nothing after it is consumed); returns (status, head)."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        piece = sock.recv(1)
        if not piece:
            break
        head += piece
    parts = head.split(b" ", 2)
    return (int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None), head


def read_to_end(sock):
    data = b""
    while True:
        piece = sock.recv(65536)
        if not piece:
            return data
        data += piece


def connect_through(proxy, target, credentials=None, sock=None, authorization=None):
    """Opens a CONNECT tunnel to `target` (host, port), on `sock` if given, with Basic
    `credentials` ("user:password") or a Proxy-Authorization value; returns (status, head,
    socket), the body of a refusal read (so the connection can be used again)."""
    sock = sock or socket.create_connection(proxy, timeout=10)
    authority = "%s:%d" % target
    lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}"]
    if credentials:
        lines.append("Proxy-Authorization: " + basic_authorization(credentials))
    if authorization:
        lines.append("Proxy-Authorization: " + authorization)
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        status, head = read_head(sock)
        if status != 200:
            read_body(sock, head)
    except OSError as error:  # the proxy closed the connection: no status
        return None, repr(error).encode(), sock
    return status, head, sock


def basic_authorization(credentials):
    return "Basic " + base64.b64encode(credentials.encode()).decode()


def digest_authorization(head, method, uri, user, password):
    """The Digest Proxy-Authorization answering the Proxy-Authenticate challenge in `head`
    (RFC 7616 section 3.4: MD5, qop=auth)."""
    challenge = field(head, "Proxy-Authenticate") or ""
    parameters = dict(re.findall(r'(\w+)="?([^",]*)"?', challenge))
    md5 = lambda text: hashlib.md5(text.encode()).hexdigest()  # noqa: E731
    realm, nonce, cnonce, count = parameters.get("realm", ""), parameters.get("nonce", ""), uuid.uuid4().hex, "00000001"
    response = md5(":".join([md5(f"{user}:{realm}:{password}"), nonce, count, cnonce, "auth", md5(f"{method}:{uri}")]))
    return (f'Digest username="{user}", realm="{realm}", nonce="{nonce}", uri="{uri}", algorithm=MD5, '
            f'cnonce="{cnonce}", nc={count}, qop=auth, response="{response}"')


def field(head, name):
    """The value of the first field `name` in a response head (bytes), or None."""
    for line in head.decode("latin-1").split("\r\n")[1:]:
        key, _, value = line.partition(":")
        if key.strip().lower() == name.lower():
            return value.strip()
    return None


def read_body(sock, head):
    """Reads the Content-Length body that follows `head` on `sock`."""
    remaining = int(field(head, "Content-Length") or 0)
    body = b""
    while len(body) < remaining:
        piece = sock.recv(remaining - len(body))
        if not piece:
            break
        body += piece
    return body


def proxied_get(sock, url, authorization=None):
    """Sends an absolute-form GET on `sock` (kept open); returns (status, head, body)."""
    host = urllib.parse.urlsplit(url).netloc
    extra = f"Proxy-Authorization: {authorization}\r\n" if authorization else ""
    try:
        sock.sendall(f"GET {url} HTTP/1.1\r\nHost: {host}\r\n{extra}\r\n".encode())
        status, head = read_head(sock)
        return status, head, read_body(sock, head)
    except OSError as error:  # the proxy closed the connection: no status
        return None, repr(error).encode(), b""


def tunnelled_get(sock, target, path):
    """Sends GET `path` through an open tunnel (closing it after); returns (status, body)."""
    host, port = target
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
    response = read_to_end(sock)
    head, _, body = response.partition(b"\r\n\r\n")
    parts = head.split(b" ", 2)
    return (int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None), head, body


def check_proxies(fault):
    origin = "http://%s:%d" % fault
    open_proxy = address("HERON_PROXY_URL")
    limited_proxy = address("HERON_PROXY_LIMITED_URL")

    status, _, body = request(open_proxy, "GET", origin + "/headers")
    fields = json.loads(body) if status == 200 else {}
    check("open proxy forwards an absolute-form request, with Via",
          status == 200 and any("heron-proxy " in value for value in fields.get("via", [])), (status, body[:200]))

    status, head, sock = connect_through(open_proxy, fault)
    with sock:
        inner = tunnelled_get(sock, fault, "/whoami") if status == 200 else (None, b"", b"")
    check("open proxy opens a CONNECT tunnel to a loopback port",
          status == 200 and inner[0] == 200 and json.loads(inner[2]) == {"socket": None}, (head, inner[:2]))

    with open(os.environ["HERON_TLS_INFO"]) as handle:
        tls = json.load(handle)
    trusted = ("127.0.0.1", tls["ports"]["trusted"])
    status, head, sock = connect_through(open_proxy, trusted)
    answer = b""
    if status == 200:
        context = ssl.create_default_context(cafile=tls["ca"])
        with context.wrap_socket(sock, server_hostname="localhost") as tls_sock:
            tls_sock.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            answer = read_to_end(tls_sock)
    sock.close()
    check("open proxy tunnels TLS to the trusted HTTPS test server",
          status == 200 and answer.startswith(b"HTTP/1."), (head, answer[:80]))

    status, head, sock = connect_through(limited_proxy, fault)
    sock.close()
    check("limited proxy refuses a CONNECT to a test port with 403", status == 403, head)

    socks = address("HERON_SOCKS_URL")
    with socket.create_connection(socks, timeout=10) as sock:
        sock.sendall(b"\x05\x01\x00")
        greeting = sock.recv(2)
        sock.sendall(b"\x05\x01\x00\x03" + bytes([len(fault[0])]) + fault[0].encode() + fault[1].to_bytes(2, "big"))
        reply = sock.recv(4)
        if reply[3:4] == b"\x01":
            sock.recv(6)  # IPv4 address and port bound
        inner = tunnelled_get(sock, fault, "/whoami") if reply[:2] == b"\x05\x00" else (None, b"", b"")
    check("SOCKS5 proxy connects to a host name without authentication",
          greeting == b"\x05\x00" and inner[0] == 200 and json.loads(inner[2]) == {"socket": None},
          (greeting, reply, inner[:2]))

    fault_proxy = address("HERON_FAULT_PROXY_URL")
    key = uuid.uuid4().hex
    with socket.create_connection(fault_proxy, timeout=10) as sock:
        sock.sendall(f"GET http://example.invalid/x?key={key} HTTP/1.1\r\nHost: example.invalid\r\n\r\n".encode())
        data = read_to_end(sock)
    head, _, body = data.partition(b"\r\n\r\n")
    check("fault proxy cuts an absolute-form answer short",
          head.startswith(b"HTTP/1.1 200") and b"Content-Length: 100000" in head
          and body == bytes(i % 256 for i in range(1000)), (head, len(body)))
    status, head, sock = connect_through(fault_proxy, ("example.invalid", 80))
    with sock:
        inner = tunnelled_get(sock, ("example.invalid", 80), f"/y?key={key}") if status == 200 else (None, b"", b"")
    status_count, _, count = request(fault_proxy, "GET", f"/count?key={key}")
    check("fault proxy cuts a tunnelled answer short and counts both",
          status == 200 and inner[0] == 200 and b"Content-Length: 100000" in inner[1] and len(inner[2]) == 1000
          and json.loads(count) == {"count": 2, "tunnelled": 1}, (head, inner[:2], len(inner[2]), count))


def check_squid_basic(fault, trusted, ca):
    """HERON_PROXY_AUTH_URL: squid wanting Basic proxy credentials (RFC 7617, RFC 9110 section 11.7)."""
    proxy = address("HERON_PROXY_AUTH_URL")
    origin = "http://%s:%d" % fault
    user, password = os.environ["HERON_PROXY_USER"], os.environ["HERON_PROXY_PASSWORD"]
    right, wrong = f"{user}:{password}", f"{user}:{password}x"
    challenge = b'\r\nProxy-Authenticate: Basic realm="heron-proxy-auth"\r\n'

    status, head, sock = connect_through(proxy, fault)
    with sock:
        again = connect_through(proxy, fault, right, sock=sock)[0]
    check("squid (Basic) answers a CONNECT without credentials 407 with a Basic challenge, and keeps the "
          "connection for the next try", status == 407 and challenge in head and again == 200, (head, again))
    status, head, sock = connect_through(proxy, fault, wrong)
    sock.close()
    check("squid (Basic) answers a CONNECT with a wrong password 407 with a Basic challenge",
          status == 407 and challenge in head, head)
    status, head, sock = connect_through(proxy, fault, right)
    with sock:
        inner = tunnelled_get(sock, fault, "/headers") if status == 200 else (None, b"", b"")
    check("squid (Basic) opens a CONNECT tunnel with the credentials",
          status == 200 and inner[0] == 200, (head, inner[:2]))
    status, head, sock = connect_through(proxy, trusted, right)
    answer = b""
    if status == 200:
        with ssl.create_default_context(cafile=ca).wrap_socket(sock, server_hostname="localhost") as tls_sock:
            tls_sock.sendall(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            answer = read_to_end(tls_sock)
    sock.close()
    check("squid (Basic) tunnels TLS to the trusted HTTPS test server (CONNECT to any port)",
          status == 200 and answer.startswith(b"HTTP/1."), (head, answer[:80]))

    with socket.create_connection(proxy, timeout=10) as sock:
        status, head, _ = proxied_get(sock, origin + "/headers")
        wrong_status, wrong_head, _ = proxied_get(sock, origin + "/headers", basic_authorization(wrong))
        right_status, right_head, body = proxied_get(sock, origin + "/headers", basic_authorization(right))
        next_status = proxied_get(sock, origin + "/headers", basic_authorization(right))[0]
    check("squid (Basic) answers a plain request without credentials 407 with a Basic challenge",
          status == 407 and challenge in head, head)
    check("squid (Basic) answers a plain request with a wrong password 407 on the same connection",
          wrong_status == 407 and challenge in wrong_head, wrong_head)
    fields = json.loads(body) if right_status == 200 else {}
    check("squid (Basic) forwards a plain request with the credentials, without Proxy-Authorization, "
          "and keeps the connection", right_status == 200 and next_status == 200 and "proxy-authorization" not in fields
          and any("heron-proxy-auth " in value for value in fields.get("via", [])), (right_head, body[:300]))

    encoded = "http://%s:%s@%s:%d" % (urllib.parse.quote(user, safe=""), urllib.parse.quote(password, safe=""), *proxy)
    result = subprocess.run([shutil.which("curl") or "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-x", encoded,
                             origin + "/headers"], capture_output=True, text=True, timeout=20)
    check("curl authenticates to squid (Basic) with the password percent-encoded in the proxy URL",
          result.stdout == "200", (result.returncode, result.stdout))


def check_squid_digest(fault):
    """HERON_PROXY_DIGEST_URL: squid wanting Digest proxy credentials (RFC 7616)."""
    proxy = address("HERON_PROXY_DIGEST_URL")
    origin = "http://%s:%d" % fault
    user, password = os.environ["HERON_PROXY_USER"], os.environ["HERON_PROXY_PASSWORD"]
    authority = "%s:%d" % fault

    with socket.create_connection(proxy, timeout=10) as sock:
        status, head, _ = connect_through(proxy, fault, sock=sock)
        answer = digest_authorization(head, "CONNECT", authority, user, password)
        tunnel_status, tunnel_head, _ = connect_through(proxy, fault, sock=sock, authorization=answer)
        inner = tunnelled_get(sock, fault, "/headers") if tunnel_status == 200 else (None, b"", b"")
    challenge = field(head, "Proxy-Authenticate") or ""
    check("squid (Digest) answers a CONNECT without credentials 407 with a Digest challenge (qop auth)",
          status == 407 and challenge.startswith('Digest realm="heron-proxy-digest"') and 'qop="auth"' in challenge, head)
    check("squid (Digest) opens a CONNECT tunnel to the answer, on the same connection",
          tunnel_status == 200 and inner[0] == 200, (tunnel_head, inner[:2]))

    url = origin + "/headers"
    with socket.create_connection(proxy, timeout=10) as sock:
        status, head, _ = proxied_get(sock, url)
        wrong = digest_authorization(head, "GET", url, user, password + "x")
        wrong_status, wrong_head, _ = proxied_get(sock, url, wrong)
        right = digest_authorization(wrong_head, "GET", url, user, password)
        right_status, right_head, body = proxied_get(sock, url, right)
    fields = json.loads(body) if right_status == 200 else {}
    check("squid (Digest) answers a plain request with a wrong password 407 with a new challenge",
          status == 407 and wrong_status == 407 and (field(wrong_head, "Proxy-Authenticate") or "").startswith("Digest "),
          wrong_head)
    check("squid (Digest) forwards a plain request with the right answer, without Proxy-Authorization",
          right_status == 200 and "proxy-authorization" not in fields
          and any("heron-proxy-digest " in value for value in fields.get("via", [])), (right_head, body[:300]))


def check_fault_proxy_seen():
    """HERON_FAULT_PROXY_URL's /seen: the proxied request heads it received."""
    proxy = address("HERON_FAULT_PROXY_URL")
    request(proxy, "GET", "/seen?clear=1")
    with socket.create_connection(proxy, timeout=10) as sock:
        sock.sendall(b"GET http://example.invalid/a HTTP/1.1\r\nHost: example.invalid\r\n"
                     b"Proxy-Authorization: Basic c2Vlbjp5ZXM=\r\nX-Two: 1\r\nx-two: 2\r\n\r\n")
        read_to_end(sock)
    status, head, sock = connect_through(proxy, ("example.invalid", 443))
    with sock:
        tunnelled_get(sock, ("example.invalid", 443), "/inner")
    status, _, body = request(proxy, "GET", "/seen")
    seen = json.loads(body)["requests"] if status == 200 else []
    expected = [
        {"line": "GET http://example.invalid/a HTTP/1.1",
         "fields": {"host": ["example.invalid"], "proxy-authorization": ["Basic c2Vlbjp5ZXM="], "x-two": ["1", "2"]}},
        {"line": "CONNECT example.invalid:443 HTTP/1.1", "fields": {"host": ["example.invalid:443"]}},
    ]
    check("fault proxy /seen lists the proxied request heads in order (not the tunnelled one)",
          [{"line": r["line"], "fields": r["fields"]} for r in seen] == expected
          and len(seen) == 2 and seen[0]["connection"] < seen[1]["connection"], seen)
    _, _, cleared = request(proxy, "GET", "/seen?clear=1")
    _, _, after = request(proxy, "GET", "/seen")
    check("fault proxy /seen?clear=1 answers the list and empties it",
          json.loads(cleared)["requests"] == seen and json.loads(after) == {"requests": []}, (cleared, after))


def check_unix_sockets(fault):
    paths = [os.environ["HERON_UNIX_SOCKET_A"], os.environ["HERON_UNIX_SOCKET_B"]]
    for path in paths:
        status, headers, body = unix_request(path, "GET", "/whoami")
        check(f"/whoami on {os.path.basename(path)} names it",
              status == 200 and json.loads(body) == {"socket": path}
              and headers.get("Cache-Control") == "max-age=600", (status, body))
    status, _, body = request(fault, "GET", "/whoami")
    check("/whoami over TCP is null", status == 200 and json.loads(body) == {"socket": None}, body)
    status, headers, body = unix_request(paths[0], "GET", "/set-cookie?name=side&value=a")
    check("/set-cookie over a socket",
          status == 200 and headers.get("Set-Cookie") == "side=a; Path=/", (status, headers.get("Set-Cookie")))
    status, _, body = unix_request(paths[1], "GET", "/headers", headers={"Cookie": "side=b", "X-Two": "a"})
    fields = json.loads(body)
    check("/headers over a socket", fields.get("cookie") == ["side=b"] and fields.get("x-two") == ["a"], fields)
    key = uuid.uuid4().hex
    unix_request(paths[0], "GET", f"/bytes?n=1&key={key}")
    status, _, body = request(fault, "GET", f"/count?key={key}")
    check("the sockets share the TCP listener's counters", json.loads(body) == {"count": 1}, body)
    status, _, body = unix_request(os.environ["HERON_HTTPBIN_SOCKET"], "GET", "/get?x=1")
    check("httpbin over a socket", status == 200 and json.loads(body)["args"] == {"x": "1"}, (status, body[:100]))


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
    check_proxies(address("HERON_FAULT_URL"))
    with open(os.environ["HERON_TLS_INFO"]) as handle:
        tls = json.load(handle)
    check_squid_basic(address("HERON_FAULT_URL"), ("127.0.0.1", tls["ports"]["trusted"]), tls["ca"])
    check_squid_digest(address("HERON_FAULT_URL"))
    check_fault_proxy_seen()
    check_unix_sockets(address("HERON_FAULT_URL"))
    if FAILURES:
        print(f"{len(FAILURES)} checks failed: {', '.join(FAILURES)}")
        sys.exit(1)
    print("servers: all checks passed")


if __name__ == "__main__":
    main()
