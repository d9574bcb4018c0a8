"""Reads the cases of a replay file from the fault server with httpx-sse and prints, as JSON,
the events each case gave: [[{"type", "data", "id"}, ...], ...].

Usage: python sse_httpx.py BASE_URL FILE COUNT PAUSE
"""

import json
import sys
import urllib.parse

import httpx
from httpx_sse import connect_sse


def main():
    base, path, count, pause = sys.argv[1:5]
    results = []
    with httpx.Client(timeout=30) as client:
        for index in range(int(count)):
            query = urllib.parse.urlencode({"file": path, "case": index, "pause": pause})
            events = []
            with connect_sse(client, "GET", f"{base}/replay?{query}") as source:
                for event in source.iter_sse():
                    events.append({"type": event.event, "data": event.data, "id": event.id})
            results.append(events)
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    main()
