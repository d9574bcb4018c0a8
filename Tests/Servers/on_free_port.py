#!/usr/bin/env python3
"""Runs a daemon that cannot take an inherited socket on a free loopback port, retrying.

Used by scripts/with-servers for tinyproxy, squid and microsocks, which bind the port their
configuration or command line names and have no way to inherit an already bound socket. So a
free port is picked (bound to port 0 and released), the configuration is written from a
template, and the daemon is started in the foreground; if it exits before it answers (another
process took the port in between), this is tried again with another port. Once the daemon
answers its protocol on the port (so a stranger that took the port cannot pass for it), the
port is written to --port-file and this process waits for the daemon, ending with it. The
daemon gets SIGTERM when this process dies (Linux), and with-servers stops both at once (the
same process group); with --stop-signal KILL, a SIGTERM to this process kills the daemon
outright (squid, even told to wait for nothing, takes over a second to stop on SIGTERM, and
without a cache it has nothing to save), and the files matching each --remove-after pattern
(what the daemon would have removed itself, such as squid's shared memory segments) are
removed once it is gone.

  on_free_port.py --port-file PATH --probe tinyproxy|squid|socks5 [--template IN --config OUT]
                  [--set NAME=VALUE]... [--stop-signal TERM|KILL] [--remove-after GLOB]...
                  -- COMMAND [ARGUMENT...]

In the template, in COMMAND's arguments and in the --remove-after patterns, @PORT@ becomes the
port, @CONFIG@ the --config path, and @NAME@ the VALUE of each --set NAME=VALUE. Python
standard library only.
"""

import argparse
import ctypes
import glob
import os
import signal
import socket
import subprocess
import sys
import time
from port_file import announce

ATTEMPTS = 10
START_SECONDS = 10.0


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answers(kind, port):
    """Whether the daemon on `port` speaks its protocol (a tinyproxy, a squid, or a SOCKS5 server)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
            if kind == "socks5":
                connection.sendall(b"\x05\x01\x00")  # version 5, one method: no authentication
                return connection.recv(2) == b"\x05\x00"
            if kind == "squid":
                # squid answers a request in origin form itself, 400 (ERR_INVALID_URL), before
                # any access check or name resolution, with its Server field.
                connection.sendall(b"GET /heron-probe HTTP/1.0\r\n\r\n")
                server = b"\r\nServer: squid/"
            else:
                # tinyproxy answers its statistics host itself (no name resolution, no origin),
                # or refuses it for want of credentials: either way with its Server field.
                connection.sendall(b"GET http://tinyproxy.stats/ HTTP/1.0\r\nHost: tinyproxy.stats\r\n\r\n")
                server = b"\r\nServer: tinyproxy/"
            head = b""
            while b"\r\n\r\n" not in head and len(head) < 65536:
                piece = connection.recv(4096)
                if not piece:
                    break
                head += piece
            return head.startswith(b"HTTP/1.") and server in head
    except OSError:
        return False


def remove(patterns, fill):
    for pattern in patterns:
        for path in glob.glob(fill(pattern)):
            try:
                os.remove(path)
            except OSError:
                pass


def die_with_parent():
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (AttributeError, OSError):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--probe", choices=("tinyproxy", "squid", "socks5"), required=True)
    parser.add_argument("--template")
    parser.add_argument("--config")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--stop-signal", choices=("TERM", "KILL"), default="TERM")
    parser.add_argument("--remove-after", action="append", default=[], metavar="GLOB")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command or bool(options.template) != bool(options.config):
        parser.error("a COMMAND is needed, and --template goes with --config")
    values = dict(item.split("=", 1) for item in options.set)
    values["CONFIG"] = options.config or ""

    def fill(text, port):
        for name, value in dict(values, PORT=str(port)).items():
            text = text.replace("@%s@" % name, value)
        return text

    for attempt in range(1, ATTEMPTS + 1):
        port = free_port()
        if options.template:
            with open(options.template) as handle:
                text = fill(handle.read(), port)
            with open(options.config, "w") as handle:
                handle.write(text)
        daemon = subprocess.Popen([fill(argument, port) for argument in command], preexec_fn=die_with_parent)
        deadline = time.monotonic() + START_SECONDS
        while daemon.poll() is None and time.monotonic() < deadline:
            if answers(options.probe, port):
                break
            time.sleep(0.02)
        else:
            if daemon.poll() is None:
                daemon.kill()
                sys.exit("on_free_port: %s did not answer on port %d within %g s" % (command[0], port, START_SECONDS))
            print("on_free_port: %s exited with %d on port %d (attempt %d); trying another port"
                  % (command[0], daemon.returncode, port, attempt), file=sys.stderr, flush=True)
            remove(options.remove_after, lambda text: fill(text, port))
            continue
        announce(options.port_file, str(port))
        stop_signal = getattr(signal, "SIG" + options.stop_signal)
        signal.signal(signal.SIGTERM, lambda *_: daemon.send_signal(stop_signal))
        status = daemon.wait()
        remove(options.remove_after, lambda text: fill(text, port))
        sys.exit(status)
    sys.exit("on_free_port: %s could not start in %d attempts" % (command[0], ATTEMPTS))


if __name__ == "__main__":
    main()
