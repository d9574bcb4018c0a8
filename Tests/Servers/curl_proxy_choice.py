#!/usr/bin/env python3
"""Asks the real curl which proxy it chooses from the environment, case by case.

  curl_proxy_choice.py Tests/Fixtures/proxy-environment-cases.json [--curl /usr/bin/curl]

The file is a JSON list of cases {"name": ..., "env": {VARIABLE: value, ...}, "url": ...}. For
each case, curl is run on the URL (`curl -q -sv --max-time 3`, so no .curlrc is read) with
exactly the case's variables plus PATH (no other variable at all), and this prints a JSON list
of {"name": ..., "curl": {...}} in the cases' order, where "curl" holds:

  proxy      "<scheme>://<host>:<port>" of the proxy curl connected to, or null when it went
             to the origin directly. The scheme is what curl was seen to speak on that port
             (below), not what the variable said.
  variable   the proxy variable curl said it used ("Uses proxy env variable NAME == ..." in its
             verbose output; no_proxy excluded), or null.
  no_proxy_variable  the no_proxy variable curl said it read, or null.
  protocol   what curl sent on its first connection: "http-forward" (an absolute-form request,
             RFC 9112 section 3.2.2), "http-connect" (CONNECT, RFC 9110 section 9.3.6), "tls" (a
             TLS ClientHello to the proxy: an HTTPS proxy), "socks4", "socks4a", "socks5" (the
             address resolved by curl), "socks5h" (the host name left to the proxy), "origin"
             (a request straight to the origin) or null when nothing was observed.
  request    the first request line curl sent (HTTP only), or null.
  proxy_credentials  "user:password" of the Basic Proxy-Authorization curl sent an HTTP proxy
             (decoded), or null.
  exit       curl's exit status.

No name is ever resolved and nothing leaves the machine: the URL's host (a name or an IPv4
address) is mapped to 127.0.0.1 with --resolve (an IPv6 origin must be a loopback address),
so a direct connection is curl trying 127.0.0.1 (or [::1]) on the origin's port, refused at
once when nothing listens there. (--connect-to would not do: with a proxy, curl then tunnels
to the mapped address instead of choosing as it would.) This script listens on every
127.0.0.1 port named in any case's variables, and on curl's default proxy ports 1080 and 443, to see
what curl speaks there; it answers only a SOCKS5 greeting and closes every connection after
its first request, so curl fails at once. No case may name a proxy on its origin's port: a
connection to the origin's port is taken for a direct one (curl's 443 included). A port
that cannot be listened on (taken) is still reported from curl's "Trying" line, with the
scheme "unknown". Runs are serialised by a lock file in the temporary directory (two runs
would listen on the same ports). Standard library only.
"""

import argparse
import base64
import fcntl
import ipaddress
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

# curl's default proxy ports when a proxy value has none (listened on when free; 443, for an
# HTTPS proxy, only when this runs as root).
EXTRA_PORTS = (1080, 443)


class Observer:
    """Listens on loopback ports and records what each connection's client sent first."""

    def __init__(self):
        self._lock = threading.Lock()
        self._seen = []
        self.listening = {}

    def listen(self, port):
        """Listens on 127.0.0.1:port (0: a free one) and returns the port; raises OSError."""
        listener = socket.socket()
        # The listeners close first, so the last run's connections linger in TIME_WAIT on these
        # ports for a minute: SO_REUSEADDR lets them be bound again (not while another listens).
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(("127.0.0.1", port))
        except OSError:
            listener.close()
            raise
        listener.listen(64)
        port = listener.getsockname()[1]
        self.listening[port] = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return port

    def take(self):
        with self._lock:
            seen, self._seen = self._seen, []
            return seen

    def _accept(self, listener):
        port = listener.getsockname()[1]
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(connection, port), daemon=True).start()

    def _serve(self, connection, port):
        protocol, request, credentials = None, None, None
        try:
            connection.settimeout(1)
            first = self._read(connection, 1)
            if first == b"\x05":
                count = self._read(connection, 1)
                self._read(connection, count[0] if count else 0)
                connection.sendall(b"\x05\x00")  # no authentication: now the request
                head = self._read(connection, 4)
                protocol = "socks5h" if head[3:4] == b"\x03" else "socks5"
            elif first == b"\x04":
                head = self._read(connection, 7)
                # SOCKS4a: the address 0.0.0.x (x not 0) means a host name follows the user id.
                protocol = "socks4a" if head[3:6] == b"\x00\x00\x00" and head[6:7] != b"\x00" else "socks4"
            elif first == b"\x16":
                protocol = "tls"
            elif first:
                line = first + self._read_line(connection)
                request = line.decode("latin-1").rstrip("\r\n")
                target = request.split(" ")[1] if request.count(" ") >= 2 else ""
                while True:  # the rest of the head: the proxy credentials curl sent, if any
                    field = self._read_line(connection).decode("latin-1").strip()
                    if not field:
                        break
                    name, _, value = field.partition(":")
                    scheme, _, token = value.strip().partition(" ")
                    if name.strip().lower() == "proxy-authorization" and scheme.lower() == "basic":
                        credentials = base64.b64decode(token).decode("utf-8", "replace")
                if request.startswith("CONNECT "):
                    protocol = "http-connect"
                elif "://" in target:
                    protocol = "http-forward"
                else:
                    protocol = "origin"
        except OSError:
            pass
        finally:
            with self._lock:
                self._seen.append({"port": port, "protocol": protocol, "request": request,
                                   "credentials": credentials})
            connection.close()

    @staticmethod
    def _read(connection, count):
        data = b""
        while len(data) < count:
            piece = connection.recv(count - len(data))
            if not piece:
                break
            data += piece
        return data

    @staticmethod
    def _read_line(connection):
        data = b""
        while not data.endswith(b"\n") and len(data) < 8192:
            piece = connection.recv(1)
            if not piece:
                break
            data += piece
        return data


def mentioned_ports(cases):
    ports = set(EXTRA_PORTS)
    for case in cases:
        for value in case["env"].values():
            ports.update(int(port) for port in re.findall(r"127\.0\.0\.1:(\d+)", value))
    return sorted(ports)


def origin(url):
    """(host as in the URL's authority, port) of a URL (the default port of its scheme when none)."""
    split = urllib.parse.urlsplit(url)
    port = split.port or {"http": 80, "https": 443}[split.scheme]
    host = split.netloc.rsplit("@", 1)[-1]
    host = host[: host.rindex("]") + 1] if host.startswith("[") else host.split(":")[0]
    return host, port


def is_address(host):
    try:
        ipaddress.ip_address(host.strip("[]"))
        return True
    except ValueError:
        return False


def run_case(curl, case, observer):
    host, port = origin(case["url"])
    arguments = [curl, "-q", "-sv", "--max-time", "3", "-o", os.devnull]
    if not host.startswith("["):
        # A name, or an IPv4 address (curl looks --resolve up before it parses an address):
        # 127.0.0.1 instead. An IPv6 origin is a loopback address already ([::1] in the cases).
        arguments += ["--resolve", f"{host}:{port}:127.0.0.1"]
    arguments.append(case["url"])
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    environment.update(case["env"])
    observer.take()
    finished = subprocess.run(arguments, env=environment, stdin=subprocess.DEVNULL, capture_output=True, timeout=10)
    verbose = finished.stderr.decode("utf-8", "replace")
    seen = observer.take()  # recorded before the listener closed the connection curl saw closed

    variable = no_proxy_variable = None
    for name in re.findall(r"^\* Uses proxy env variable (\S+) == ", verbose, re.MULTILINE):
        if name.lower() == "no_proxy":
            no_proxy_variable = no_proxy_variable or name
        else:
            variable = variable or name
    tried = re.findall(r"^\*\s+Trying (\S+):(\d+)\.\.\.", verbose, re.MULTILINE)
    first = seen[0] if seen else None
    result = {"proxy": None, "variable": variable, "no_proxy_variable": no_proxy_variable,
              "protocol": first["protocol"] if first else None,
              "request": first["request"] if first else None,
              "proxy_credentials": first["credentials"] if first else None, "exit": finished.returncode}
    origin_addresses = ("127.0.0.1", "[::1]", host)
    if first is not None and first["port"] == port:
        pass  # the origin's own port (443 is also a default proxy port): a direct connection
    elif first is not None:
        # A connection to one of the listeners on another port: a proxy.
        scheme = {"http-forward": "http", "http-connect": "http", "tls": "https"}.get(first["protocol"],
                                                                                       first["protocol"] or "unknown")
        result["proxy"] = f"{scheme}://127.0.0.1:{first['port']}"
    elif tried and not (tried[0][0] in origin_addresses and int(tried[0][1]) == port):
        # Somewhere that is not the origin and not a listener (a port that was taken).
        tried_host = tried[0][0]
        result["proxy"] = f"unknown://{tried_host}:{tried[0][1]}"
    elif not tried:
        result["error"] = "curl connected nowhere: " + " | ".join(verbose.strip().splitlines()[-3:])
    return result


def main():
    parser = argparse.ArgumentParser(description="What proxy curl chooses from the environment.")
    parser.add_argument("cases", help="the JSON list of cases")
    parser.add_argument("--curl", default="/usr/bin/curl")
    options = parser.parse_args()
    with open(options.cases) as handle:
        cases = json.load(handle)

    with open(os.path.join(tempfile.gettempdir(), "heron-curl-proxy-choice.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        observer = Observer()
        for port in mentioned_ports(cases):
            try:
                observer.listen(port)
            except OSError as problem:
                print(f"curl_proxy_choice: cannot listen on 127.0.0.1:{port} ({problem}); "
                      "a proxy there is reported from curl's output only", file=sys.stderr)
        results = [{"name": case["name"], "curl": run_case(options.curl, case, observer)}
                   for case in cases]
    json.dump(results, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
