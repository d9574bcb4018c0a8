#!/usr/bin/env python3
"""Parses a multipart/form-data body with two real parsers and prints what they saw as JSON.

Usage: parse_multipart.py BODY_FILE BOUNDARY

The HTTPMultipart tests run this on the bytes they encode and compare the result with
the form they built. Two independent parsers from PyPI judge every body:

- ``multipart`` (the one Bottle uses): decodes the WHATWG escapes %22, %0D, %0A in
  names and filenames back to ``"``, CR and LF, so its names equal the original ones.
- ``python-multipart`` (the one Starlette and FastAPI use): keeps the escapes, so its
  names equal the escaped form that the WHATWG algorithm defines.
- Werkzeug (the one Flask uses), which reads a backslash inside a quoted parameter as an
  escape: fields and files come back apart, fields first.

Output: {"multipart": [PART...], "python_multipart": [PART...]} where PART is
{"name", "filename", "content_type", "headers": [[name, value]...], "data": base64}.
"""
import base64
import io
import json
import sys

import multipart
import python_multipart
from python_multipart.multipart import parse_options_header
from werkzeug.formparser import MultiPartParser as WerkzeugParser


def b64(data):
    return base64.b64encode(data).decode("ascii")


def parse_with_multipart(body, boundary):
    parser = multipart.MultipartParser(
        io.BytesIO(body), boundary, content_length=len(body), strict=True,
        part_limit=1_000_000, memory_limit=1 << 40, disk_limit=1 << 40, header_limit=64,
    )
    parts = []
    for part in parser:
        parts.append({
            "name": part.name,
            "filename": part.filename,
            "content_type": part.headers.get("Content-Type"),
            "headers": [[k, v] for k, v in part.headerlist],
            "data": b64(part.raw),
        })
    return parts


def parse_with_python_multipart(body, boundary):
    parts = []
    state = {}

    def on_part_begin():
        state["headers"] = []
        state["data"] = bytearray()

    def on_header_field(data, start, end):
        state["field"] = state.get("field", b"") + data[start:end]

    def on_header_value(data, start, end):
        state["value"] = state.get("value", b"") + data[start:end]

    def on_header_end():
        state["headers"].append((state.pop("field", b""), state.pop("value", b"")))

    def on_part_data(data, start, end):
        state["data"] += data[start:end]

    def on_part_end():
        headers = [(k.decode("utf-8"), v.decode("utf-8")) for k, v in state["headers"]]
        disposition = next((v for k, v in headers if k.lower() == "content-disposition"), "")
        _, options = parse_options_header(disposition.encode("utf-8").decode("latin-1"))
        content_type = next((v for k, v in headers if k.lower() == "content-type"), None)
        name = options.get(b"name")
        filename = options.get(b"filename")
        parts.append({
            "name": name.decode("utf-8") if name is not None else None,
            "filename": filename.decode("utf-8") if filename is not None else None,
            "content_type": content_type,
            "headers": [[k, v] for k, v in headers],
            "data": b64(bytes(state["data"])),
        })

    callbacks = {
        "on_part_begin": on_part_begin,
        "on_header_field": on_header_field,
        "on_header_value": on_header_value,
        "on_header_end": on_header_end,
        "on_part_data": on_part_data,
        "on_part_end": on_part_end,
    }
    parser = python_multipart.MultipartParser(boundary.encode("ascii"), callbacks, max_header_count=64)
    written = parser.write(body)
    parser.finalize()
    if written != len(body):
        raise ValueError(f"python-multipart consumed {written} of {len(body)} bytes")
    return parts


def parse_with_werkzeug(body, boundary):
    # Werkzeug (Flask) gives fields and files apart; a field has no filename.
    parser = WerkzeugParser(max_form_memory_size=None)
    form, files = parser.parse(io.BytesIO(body), boundary.encode("ascii"), len(body))
    parts = [{"name": name, "filename": None, "content_type": None, "headers": [], "data": b64(value.encode("utf-8"))}
             for name, value in form.items(multi=True)]
    for name, storage in files.items(multi=True):
        parts.append({
            "name": name, "filename": storage.filename, "content_type": storage.content_type, "headers": [],
            "data": b64(storage.stream.read()),
        })
    return parts


def main():
    path, boundary = sys.argv[1], sys.argv[2]
    with open(path, "rb") as handle:
        body = handle.read()
    result = {
        "multipart": parse_with_multipart(body, boundary),
        "python_multipart": parse_with_python_multipart(body, boundary),
        "werkzeug": parse_with_werkzeug(body, boundary),
    }
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
