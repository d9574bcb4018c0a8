#!/usr/bin/env python3
"""Replays scripted HTTP exchanges through hishel 2.0's RFC 9111 state machine, as a
private cache (CacheOptions(shared=False)), on a clock the script sets: the peer of
Heron's CacheDifferentialTests.

stdin: a JSON list of scenarios; a scenario is a list of steps
  {"advance": seconds, "method": "GET", "path": "/a", "request": [[name, value], ...],
   "status": 200, "response": [[name, value], ...], "body": "text"}
  `advance` moves the clock before the step. The origin answers the step's request, and
  any request the cache sends for it, with `status` and `response` (fields whose value is a
  number are dates: the clock plus that many seconds, as an HTTP-date); when the request
  carries the response's ETag in If-None-Match or its Last-Modified in If-Modified-Since,
  it answers 304 with the same fields instead.
stdout: a JSON list, per scenario a list of per-step outcomes
  {"sent": n requests the origin saw, "conditional": [lowercased If-* names of the last one],
   "status": the status the caller got}
"""

import email.utils
import json
import sqlite3
import sys
import time

import hishel
from hishel._sync_rfc import handle_request_with_rfc

CLOCK = [1_800_000_000.0]
time.time = lambda: CLOCK[0]


def http_date(offset):
    return email.utils.formatdate(int(CLOCK[0] + offset), usegmt=True)


def fields(pairs):
    headers = {}
    for name, value in pairs:
        value = http_date(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)
        headers.setdefault(name.lower(), []).append(value)
    return headers


def run(scenario):
    storage = hishel.SqliteStorage(connection=sqlite3.connect(":memory:", check_same_thread=False))
    options = hishel.CacheOptions(shared=False)
    outcomes = []
    for step in scenario:
        CLOCK[0] += step.get("advance", 0)
        url = "https://origin.example" + step["path"]
        request = hishel.Request(method=step["method"], url=url, headers=hishel.Headers(fields(step["request"])))
        response_fields = fields(step["response"])
        seen = []

        def send(sent):
            seen.append(sent)
            tag = response_fields.get("etag", [None])[0]
            modified = response_fields.get("last-modified", [None])[0]
            if (tag is not None and sent.headers.get("if-none-match") == tag) or (
                modified is not None and sent.headers.get("if-modified-since") == modified
            ):
                return hishel.Response(status_code=304, headers=hishel.Headers(response_fields), stream=iter([]))
            body = step.get("body", "body").encode()
            return hishel.Response(
                status_code=step["status"], headers=hishel.Headers(response_fields), stream=iter([body]))

        response, _ = handle_request_with_rfc(request, send, storage, url, options)
        for _ in response.stream or []:
            pass
        last = seen[-1].headers if seen else {}
        conditional = sorted(name for name in ("if-none-match", "if-modified-since") if name in last)
        outcomes.append({"sent": len(seen), "conditional": conditional, "status": response.status_code})
    return outcomes


def main():
    scenarios = json.load(sys.stdin)
    json.dump([run(scenario) for scenario in scenarios], sys.stdout)


if __name__ == "__main__":
    main()
