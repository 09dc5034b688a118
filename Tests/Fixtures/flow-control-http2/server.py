"""An HTTP/2 server over TLS on 127.0.0.1 that answers every request with how much it may send
the client at that moment, as JSON: `server.py CHAIN KEY PORT`.

`{"stream": S, "connection": C, "initialWindowSize": I}`: S what flow control lets the server
send on the request's stream before the client gives more (its window, within the
connection's), C the connection's window, I the client's SETTINGS_INITIAL_WINDOW_SIZE. Built on
the `h2` package (Debian's python3-h2).
"""
import json
import os
import sys

import h2.config
import h2.connection

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tls_listener import listen, serve_http2  # noqa: E402


def answer(conn, sock, stream_id, path):
    body = json.dumps({
        'stream': conn.local_flow_control_window(stream_id),
        'connection': conn.outbound_flow_control_window,
        'initialWindowSize': conn.remote_settings.initial_window_size,
    }).encode()
    conn.send_headers(stream_id, [(':status', '200'), ('content-type', 'application/json'), ('content-length', str(len(body)))])
    conn.send_data(stream_id, body, end_stream=True)


def serve(sock):
    serve_http2(sock, h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False)), answer)


listen(['h2'], serve)
