"""How Heron's test servers tell scripts/with-servers where they listen, and serve.

A server binds port 0 (the kernel picks a free port) and then writes the port it got to the
file with-servers waits for: whole, through a temporary file and a rename, so the script
never reads half a number.
"""

import os


def announce(path, text):
    """Writes `text` (a port, or the TLS servers' JSON) to `path` at once, by a rename."""
    temporary = path + ".tmp"
    with open(temporary, "w") as handle:
        handle.write(text if text.endswith("\n") else text + "\n")
    os.replace(temporary, path)


def serve(server, port_file):
    """Announces `server`'s port to `port_file` (when given) and serves until interrupted."""
    if port_file:
        announce(port_file, str(server.server_address[1]))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
