"""Digest authentication's peer for Heron's tests (Tests/HTTPClientTests/DigestAuthTests.swift).

Reads one JSON object on stdin and writes one on stdout:
  {"hashes": ["<hex bytes>", ...]}
      -> {"hashes": [{"md5": ..., "sha256": ..., "sha512_256": ...}, ...]}  (hashlib)
  {"requests": [{"user", "password", "method", "url", "challenge": {...}, "count": N}, ...]}
      -> {"requests": [[{Authorization parameters}, ... N of them], ...]}
         the headers Python requests' HTTPDigestAuth writes for N requests answering the same
         challenge (its own client nonces; nc counts up), parsed into their parameters.
  {"formulas": [{"algorithm", "user", "password", "realm", "nonce", "cnonce", "nc", "qop",
                 "method", "uri", "body", "userhash"}, ...]}
      -> {"formulas": [{"username": ..., "response": ...}, ...]}
         RFC 7616 §3.4.1-§3.4.4 computed with hashlib, for what requests does not do
         (SHA-512-256, the -sess forms of SHA, auth-int, userhash); "body" is hex, "qop" may be "".
"""
import hashlib
import json
import sys

from requests.auth import HTTPDigestAuth
from requests.utils import parse_dict_header


def digests(hexes):
    out = []
    for text in hexes:
        data = bytes.fromhex(text)
        out.append({
            "md5": hashlib.md5(data).hexdigest(),
            "sha256": hashlib.sha256(data).hexdigest(),
            "sha512_256": hashlib.new("sha512_256", data).hexdigest(),
        })
    return out


def answers(case):
    auth = HTTPDigestAuth(case["user"], case["password"])
    auth.init_per_thread_state()
    auth._thread_local.chal = dict(case["challenge"])
    headers = []
    for _ in range(case["count"]):
        header = auth.build_digest_header(case["method"], case["url"])
        assert header.startswith("Digest "), header
        headers.append(parse_dict_header(header[len("Digest "):]))
    return headers


HASHES = {"MD5": "md5", "SHA-256": "sha256", "SHA-512-256": "sha512_256"}


def formula(case):
    algorithm = case["algorithm"]
    session = algorithm.upper().endswith("-SESS")
    name = HASHES[algorithm[:-5] if session else algorithm]

    def h(text):
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        return hashlib.new(name, data).hexdigest()

    a1 = h(f'{case["user"]}:{case["realm"]}:{case["password"]}')
    if session:
        a1 = h(f'{a1}:{case["nonce"]}:{case["cnonce"]}')
    if case["qop"] == "auth-int":
        a2 = h(f'{case["method"]}:{case["uri"]}:{h(bytes.fromhex(case["body"]))}')
    else:
        a2 = h(f'{case["method"]}:{case["uri"]}')
    if case["qop"]:
        response = h(f'{a1}:{case["nonce"]}:{case["nc"]}:{case["cnonce"]}:{case["qop"]}:{a2}')
    else:
        response = h(f'{a1}:{case["nonce"]}:{a2}')
    username = h(f'{case["user"]}:{case["realm"]}') if case["userhash"] else case["user"]
    return {"username": username, "response": response}


request = json.load(sys.stdin)
if "hashes" in request:
    json.dump({"hashes": digests(request["hashes"])}, sys.stdout)
elif "formulas" in request:
    json.dump({"formulas": [formula(case) for case in request["formulas"]]}, sys.stdout)
else:
    json.dump({"requests": [answers(case) for case in request["requests"]]}, sys.stdout)
