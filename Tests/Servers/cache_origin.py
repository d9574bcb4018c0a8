#!/usr/bin/env python3
"""Heron's HTTP cache conformance origin: replays the test cases of the HTTP caching test
suite (Tests/Conformance/http-cache/suites.json, from cache-tests.fyi) to a cache under test.

Started by scripts/with-servers (its URL is exported as HERON_CACHE_ORIGIN_URL). Python
standard library only; HTTP/1.1 with keep-alive; one thread per connection. It speaks the
protocol Tests/Conformance/http-cache/README.md describes:

  PUT  /config/<id>          the test's request objects (a JSON list); answers 201.
  GET  /state/<id>           what the origin saw for <id>: a JSON list of
                             {"request_num", "request_method", "request_headers" (lowercased
                             name -> value, repeated lines joined with ", "),
                             "response_headers" ([name, value] it sent and wants checked)}.
  POST /clock/<id>?advance=S moves the clock of <id> S seconds ahead (a float): the runner
                             calls it instead of pausing, and moves the cache's clock alike,
                             so a test's 3-second pauses take no time.
  ANY  /test/<id>[/<file>][?<query>]
                             request number n (the Req-Num field, else its own count) gets
                             the n-th request object's answer: `response_status` (200 by
                             default; 304 when the object expects a validation and the
                             request carries the previous response's ETag in If-None-Match
                             or Last-Modified in If-Modified-Since, else 999), after
                             `response_pause` seconds; fields Server-Request-Count,
                             Client-Request-Count, Server-Now (ms since 1970, on the id's
                             clock), Server-Base-Url and Request-Numbers, then
                             `response_headers` (a number for Date, Expires, Last-Modified,
                             If-Modified-Since or If-Unmodified-Since is "now plus that many
                             seconds" as an HTTP-date, RFC 850 for the names in `rfc850date`;
                             with `magic_locations`, Location and Content-Location are made
                             absolute against the request URL); Content-Type text/plain
                             unless given; the body `response_body`, else the id (none for
                             204, 304 and HEAD). `disconnect: true` closes the connection
                             instead. A Content-Length given in `response_headers` is sent as
                             given and the body cut to it; a Transfer-Encoding given is sent
                             and the body delimited by closing the connection.

Usage: cache_origin.py --port N [--host 127.0.0.1] [--port-file PATH]
"""

import argparse
import email.utils
import http.server
import json
import sys
import threading
import time
import urllib.parse
from port_file import serve

DATE_FIELDS = {"date", "expires", "last-modified", "if-modified-since", "if-unmodified-since"}
LOCATION_FIELDS = {"location", "content-location"}
NO_BODY_STATUSES = {204, 304}
RFC850_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def http_date(seconds, rfc850=False):
    """An HTTP-date for `seconds` since 1970, whole seconds down (RFC 9110 section 5.6.7)."""
    seconds = int(seconds // 1)
    if not rfc850:
        return email.utils.formatdate(seconds, usegmt=True)
    moment = time.gmtime(seconds)
    return "%s, %02d-%s-%02d %02d:%02d:%02d GMT" % (
        RFC850_DAYS[moment.tm_wday], moment.tm_mday, MONTHS[moment.tm_mon - 1], moment.tm_year % 100,
        moment.tm_hour, moment.tm_min, moment.tm_sec)


class Tests:
    """Per test id: its request objects, what the origin saw, the headers it sent, its clock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.configs = {}
        self.states = {}
        self.sent = {}
        self.offsets = {}

    def now(self, test_id):
        with self.lock:
            return time.time() + self.offsets.get(test_id, 0.0)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "HeronCacheOrigin/1"

    def log_message(self, format, *args):
        pass

    def do_any(self):
        parsed = urllib.parse.urlsplit(self.path)
        segments = [segment for segment in parsed.path.split("/") if segment]
        if len(segments) >= 2 and segments[0] == "test":
            return self.answer_test(segments[1], parsed)
        tests = self.server.tests
        if len(segments) == 2 and segments[0] == "config" and self.command == "PUT":
            try:
                requests = json.loads(self.body_text)
            except ValueError:
                return self.plain(400, "the config is not JSON")
            with tests.lock:
                tests.configs[segments[1]] = requests
                tests.states[segments[1]] = []
                tests.sent[segments[1]] = {}
            return self.plain(201, "stored")
        if len(segments) == 2 and segments[0] == "state":
            with tests.lock:
                state = tests.states.get(segments[1])
                body = json.dumps(state)
            if state is None:
                return self.plain(404, "no state")
            return self.plain(200, body, "application/json")
        if len(segments) == 2 and segments[0] == "clock" and self.command == "POST":
            query = dict(urllib.parse.parse_qsl(parsed.query))
            try:
                advance = float(query.get("advance", "0"))
            except ValueError:
                return self.plain(400, "advance must be a number")
            with tests.lock:
                tests.offsets[segments[1]] = tests.offsets.get(segments[1], 0.0) + advance
            return self.plain(200, "advanced")
        if parsed.path == "/ready":
            return self.plain(200, "ready")
        return self.plain(404, "unknown path")

    def handle_one_request(self):
        # Every method (M-SEARCH included) goes to do_any, its body read first.
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():
                return
            length = int(self.headers.get("Content-Length") or 0)
            self.body_text = self.rfile.read(length).decode("utf-8", "replace") if length else ""
            self.do_any()
            self.wfile.flush()
        except (ConnectionError, TimeoutError):
            self.close_connection = True

    def plain(self, status, text, content_type="text/plain"):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def answer_test(self, test_id, parsed):
        tests = self.server.tests
        with tests.lock:
            requests = tests.configs.get(test_id)
            state = tests.states.get(test_id)
        if requests is None:
            return self.plain(409, "no config for %s" % test_id)
        client_number = int(self.headers.get("Req-Num") or 0)
        server_number = len(state) + 1
        number = client_number or server_number
        if number < 1 or number > len(requests):
            return self.plain(409, "no request %d for %s" % (number, test_id))
        config = requests[number - 1]
        if "response_pause" in config:
            time.sleep(float(config["response_pause"]))
        with tests.lock:
            server_number = len(state) + 1
            previous_sent = tests.sent[test_id].get(number - 1, {})
        previous_config = requests[number - 2] if number >= 2 else {}
        now_seconds = tests.now(test_id)

        status = config.get("response_status", [200, "OK"])
        if config.get("expected_type", "").endswith("validated"):
            previous_lm = previous_sent.get("last-modified", self.raw_header(previous_config, "last-modified"))
            previous_tag = previous_sent.get("etag", self.raw_header(previous_config, "etag"))
            validated = (previous_lm is not None and self.headers.get("If-Modified-Since") == previous_lm) or (
                previous_tag is not None and self.headers.get("If-None-Match") == previous_tag)
            status = [304, "Not Modified"] if validated else [999, "304 Not Generated"]

        base_url = "http://%s:%d%s" % (self.server.server_address[0], self.server.server_address[1], self.path)
        fields = [
            ("Server-Base-Url", self.path),
            ("Server-Request-Count", str(server_number)),
            ("Client-Request-Count", str(client_number)),
            ("Server-Now", str(int(now_seconds * 1000))),
        ]
        saved = []
        sent_values = {}
        rfc850 = [name.lower() for name in config.get("rfc850date", [])]
        for header in config.get("response_headers", []):
            name, value = header[0], header[1]
            lowered = name.lower()
            if lowered in DATE_FIELDS and isinstance(value, int) and not isinstance(value, bool):
                value = http_date(now_seconds + value, rfc850=lowered in rfc850)
            if lowered in LOCATION_FIELDS and config.get("magic_locations"):
                value = "%s/%s" % (base_url, value) if value else base_url
            value = str(value)
            fields.append((name, value))
            sent_values.setdefault(lowered, value)
            if len(header) < 3 or header[2] is True:
                saved.append([name, value])
        names = {name.lower() for name, _ in fields}
        if "content-type" not in names:
            fields.append(("Content-Type", "text/plain"))

        record = {
            "request_num": client_number,
            "request_method": self.command,
            "request_headers": self.request_fields(),
            "response_headers": self.joined(saved),
        }
        with tests.lock:
            state.append(record)
            tests.sent[test_id][number] = sent_values
            numbers = " ".join(str(item["request_num"]) for item in state)
        fields.append(("Request-Numbers", numbers))

        if config.get("disconnect"):
            self.close_connection = True
            return

        code = int(status[0])
        body = b""
        if code not in NO_BODY_STATUSES:
            text = config.get("response_body")
            body = (text if text is not None else test_id).encode()
        declared = sent_values.get("content-length")
        chunked_framing = "transfer-encoding" in names
        if declared is not None and declared.isdigit():
            body = body[: int(declared)]
        self.send_response_only(code, status[1] if len(status) > 1 else "")
        for name, value in fields:
            self.send_header(name, value)
        if declared is None and not chunked_framing and code not in NO_BODY_STATUSES:
            self.send_header("Content-Length", str(len(body)))
        if chunked_framing:
            # A Transfer-Encoding other than chunked delimits the body by the connection's
            # close (RFC 9112 section 6.3).
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    @staticmethod
    def raw_header(config, lowered):
        for header in config.get("response_headers", []):
            if header[0].lower() == lowered:
                return str(header[1])
        return None

    def request_fields(self):
        fields = {}
        for name, value in self.headers.items():
            key = name.lower()
            fields[key] = value if key not in fields else fields[key] + ", " + value
        return fields

    @staticmethod
    def joined(saved):
        by_name = {}
        order = []
        for name, value in saved:
            if name not in by_name:
                by_name[name] = []
                order.append(name)
            by_name[name].append(value)
        return [[name, ", ".join(by_name[name])] for name in order]


class Origin(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 512

    def __init__(self, address):
        super().__init__(address, Handler)
        self.tests = Tests()

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError, ValueError)):
            return
        super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description="Heron's HTTP cache conformance origin (see the docstring).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="0 picks a free port")
    parser.add_argument("--port-file", help="write the bound port here once listening")
    options = parser.parse_args()
    serve(Origin((options.host, options.port)), options.port_file)


if __name__ == "__main__":
    main()
