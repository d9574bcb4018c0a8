#!/usr/bin/env python3
"""curl's cookie engine as a peer for HTTPCookiesTests' differential test.

Reads cases as JSON on stdin: [[{"url": ..., "setCookie": [...]}, ...], ...]. For each case,
each step is one run of `curl -b JAR -c JAR` to the step's URL (every host resolved to a
loopback server of this script); the server answers with the step's Set-Cookie fields and
records the Cookie field curl sent. Writes the recorded fields as JSON on stdout: one list per
case, one entry per step (null when curl sent no Cookie field).
"""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import urllib.parse

state = {"answer": [], "seen": None}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        state["seen"] = self.headers.get("Cookie")
        self.send_response(200)
        for value in state["answer"]:
            self.send_header("Set-Cookie", value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
port = server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()

results = []
for case in json.load(sys.stdin):
    with tempfile.TemporaryDirectory() as folder:
        jar = os.path.join(folder, "jar.txt")
        seen = []
        for step in case:
            url = urllib.parse.urlsplit(step["url"])
            state["answer"] = step["setCookie"]
            state["seen"] = None
            target = f"http://{url.hostname}:{port}{url.path or '/'}"
            command = ["curl", "-s", "-o", "/dev/null", "--resolve", f"{url.hostname}:{port}:127.0.0.1", target, "-c", jar]
            if os.path.exists(jar):
                command += ["-b", jar]
            else:
                command += ["-b", ""]  # the cookie engine on, with nothing in it
            subprocess.run(command, check=True, timeout=10)
            seen.append(state["seen"])
        results.append(seen)
server.shutdown()
json.dump(results, sys.stdout)
