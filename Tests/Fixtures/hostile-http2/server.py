"""An HTTP/2 server over TLS on 127.0.0.1 that answers each path with a response a correct
server never sends, for the session's tests: `server.py CHAIN KEY PORT`.

Built on the `h2` package (Debian's python3-h2) with its own checks of what it sends turned off;
DATA frames that break a response's content-length are written as raw frames.
"""
import os
import struct
import sys

import h2.config
import h2.connection
import h2.errors
from hyperframe.frame import DataFrame

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tls_listener import listen, serve_http2  # noqa: E402


def raw_frame(kind, flags, stream_id, payload):
    return struct.pack('>I', len(payload))[1:] + bytes([kind, flags]) + struct.pack('>I', stream_id) + payload


def raw_data(stream_id, payload):
    frame = DataFrame(stream_id)
    frame.data = payload
    frame.flags.add('END_STREAM')
    return frame.serialize()


def answer(conn, sock, stream_id, path):
    """Writes the response `path` names; returns nothing."""
    if path == '/never':
        return
    if path == '/longer-than-announced':
        conn.send_headers(stream_id, [(':status', '200'), ('content-length', '5')])
        sock.sendall(conn.data_to_send() + raw_data(stream_id, b'0123456789'))
    elif path == '/shorter-than-announced':
        conn.send_headers(stream_id, [(':status', '200'), ('content-length', '50')])
        sock.sendall(conn.data_to_send() + raw_data(stream_id, b'0123456789'))
    elif path == '/uppercase-field':
        conn.send_headers(stream_id, [(':status', '200'), ('X-Upper', 'v')], end_stream=True)
    elif path == '/connection-field':
        conn.send_headers(stream_id, [(':status', '200'), ('connection', 'close')], end_stream=True)
    elif path == '/line-break-in-value':
        conn.send_headers(stream_id, [(':status', '200'), ('x-split', 'a\r\nInjected: b')], end_stream=True)
    elif path == '/no-status':
        conn.send_headers(stream_id, [('content-type', 'text/plain')], end_stream=True)
    elif path == '/status-twice':
        conn.send_headers(stream_id, [(':status', '200'), (':status', '404')], end_stream=True)
    elif path == '/status-not-a-number':
        conn.send_headers(stream_id, [(':status', 'abc')], end_stream=True)
    elif path == '/switching-protocols':
        conn.send_headers(stream_id, [(':status', '101')])
        conn.send_headers(stream_id, [(':status', '200'), ('content-length', '2')])
        conn.send_data(stream_id, b'ok', end_stream=True)
    elif path == '/header-block-too-large':
        fields = [('x-field-%d' % index, 'v' * 1000) for index in range(1000)]
        conn.send_headers(stream_id, [(':status', '200')] + fields, end_stream=True)
    elif path == '/reset-mid-body':
        conn.send_headers(stream_id, [(':status', '200'), ('content-length', '100')])
        conn.send_data(stream_id, b'partial')
        sock.sendall(conn.data_to_send())
        conn.reset_stream(stream_id, h2.errors.ErrorCodes.INTERNAL_ERROR)
    elif path == '/push-promise':
        # Promises stream 2 (END_HEADERS, an empty header block), though push is off: after the
        # acknowledgement of the client's SETTINGS (until which push is still on).
        sock.sendall(conn.data_to_send() + raw_frame(5, 0x4, stream_id, struct.pack('>I', 2)))
    elif path == '/ping-flood':
        sock.sendall(b''.join(raw_frame(6, 0, 0, struct.pack('>Q', index)) for index in range(20000)))
    else:
        conn.send_headers(stream_id, [(':status', '200'), ('content-length', '5')])
        conn.send_data(stream_id, b'hello', end_stream=True)


def serve(sock):
    config = h2.config.H2Configuration(
        client_side=False, validate_outbound_headers=False, normalize_outbound_headers=False, validate_inbound_headers=False
    )
    serve_http2(sock, h2.connection.H2Connection(config=config), answer)


listen(['h2'], serve)
