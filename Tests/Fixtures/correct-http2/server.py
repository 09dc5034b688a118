"""An HTTP/2 server over TLS on 127.0.0.1 that answers correctly, for what swift-nio-http2's own
server cannot show: `server.py CHAIN KEY PORT`. Built on the `h2` package (Debian's python3-h2).

- `/windows`: how much the server may send the client at that moment, as JSON
  `{"stream": S, "connection": C, "initialWindowSize": I}`: S what flow control lets it send on
  the request's stream before the client gives more (its window, within the connection's), C the
  connection's window, I the client's SETTINGS_INITIAL_WINDOW_SIZE.
- `/large-head?bytes=N`: a head of about N bytes, fields x-large-0, x-large-1, ... of 4,000
  letters each (swift-nio-http2's server sends nothing for one of 30 KB).
- `/goaway-after-answer`: `200`, then a graceful `GOAWAY` (`NO_ERROR`, naming this stream) on a
  connection the server leaves open, for the client to close.
- `/goaway-then-close?token=T`: the first request with a token gets a graceful `GOAWAY` naming no
  stream processed, and the connection closed without TLS's close_notify; later ones get `200`
  `served`.
- `/open-connections`: how many HTTP/2 connections are open, this one included (text).
- `/http11-required?how=reset|goaway|goaway-processed`: HTTP/1.1 required (`HTTP_1_1_REQUIRED`),
  by resetting the request's stream (as Apache's mod_http2 does for a location that asks for a
  client certificate) or by ending the connection with a `GOAWAY` naming no stream processed, or
  naming the request's stream as processed; after a `GOAWAY` the server closes the connection
  without TLS's close_notify, as servers that simply close their sockets do.

A client that negotiates `http/1.1` instead gets `200` with `HTTP/1.1 PATH` for every request,
on a keep-alive connection.
"""
import json
import os
import socket
import sys
import threading
from urllib.parse import parse_qs, urlsplit

import h2.config
import h2.connection

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tls_listener import listen, receive, serve_http2  # noqa: E402


open_connections = 0
counting = threading.Lock()
tokens_seen = set()


def close_without_close_notify(sock, last_words):
    """Sends `last_words`, then ends the TCP connection (a FIN, no TLS close_notify) once the
    client has closed its side: closing with bytes of the client's unread would make the kernel
    answer with a reset, which discards `last_words` at the client before it reads them."""
    sock.sendall(last_words)
    raw = socket.socket(fileno=sock.detach())
    raw.shutdown(socket.SHUT_WR)
    raw.settimeout(5)
    try:
        while raw.recv(65536):
            pass
    except OSError:
        pass
    raw.close()


def answer_text(conn, stream_id, text):
    body = text.encode()
    conn.send_headers(stream_id, [(':status', '200'), ('content-type', 'text/plain'), ('content-length', str(len(body)))])
    conn.send_data(stream_id, body, end_stream=True)


def answer(conn, sock, stream_id, path):
    url = urlsplit(path)
    if url.path == '/goaway-after-answer':
        answer_text(conn, stream_id, 'going away')
        conn.close_connection(error_code=0, last_stream_id=stream_id)
        return
    if url.path == '/goaway-then-close':
        token = parse_qs(url.query).get('token', [''])[0]
        with counting:
            first = token not in tokens_seen
            tokens_seen.add(token)
        if first:
            conn.close_connection(error_code=0, last_stream_id=0)
            close_without_close_notify(sock, conn.data_to_send())
        else:
            answer_text(conn, stream_id, 'served')
        return
    if url.path == '/open-connections':
        with counting:
            answer_text(conn, stream_id, str(open_connections))
        return
    if url.path == '/http11-required':
        how = parse_qs(url.query).get('how', ['reset'])[0]
        if how.startswith('goaway'):
            conn.close_connection(error_code=0xd, last_stream_id=stream_id if how == 'goaway-processed' else 0)
            close_without_close_notify(sock, conn.data_to_send())
        else:
            conn.reset_stream(stream_id, error_code=0xd)
        return
    if url.path == '/large-head':
        size = int(parse_qs(url.query).get('bytes', ['0'])[0])
        fields = [('x-large-%d' % index, 'a' * min(4000, size - start)) for index, start in enumerate(range(0, size, 4000))]
        conn.send_headers(stream_id, [(':status', '200'), ('content-length', '10')] + fields)
        conn.send_data(stream_id, b'large head', end_stream=True)
        return
    body = json.dumps({
        'stream': conn.local_flow_control_window(stream_id),
        'connection': conn.outbound_flow_control_window,
        'initialWindowSize': conn.remote_settings.initial_window_size,
    }).encode()
    conn.send_headers(stream_id, [(':status', '200'), ('content-type', 'application/json'), ('content-length', str(len(body)))])
    conn.send_data(stream_id, body, end_stream=True)


def serve_http1(sock):
    """Answers every request `HTTP/1.1 PATH` until the client goes (requests without bodies)."""
    received = b''
    while True:
        while b'\r\n\r\n' not in received:
            data = receive(sock)
            if not data:
                return
            received += data
        head, received = received.split(b'\r\n\r\n', 1)
        path = head.split(b'\r\n', 1)[0].split(b' ')[1]
        body = b'HTTP/1.1 ' + path
        sock.sendall(b'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: %d\r\n\r\n%s' % (len(body), body))


def serve(sock):
    global open_connections
    if sock.selected_alpn_protocol() == 'http/1.1':
        serve_http1(sock)
        return
    with counting:
        open_connections += 1
    try:
        serve_http2(sock, h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False)), answer)
    finally:
        with counting:
            open_connections -= 1


listen(['h2', 'http/1.1'], serve)
