"""The listener the fixture servers share: TLS on 127.0.0.1, one thread per connection.

`listen(alpn, serve)` reads CHAIN KEY PORT from the command line and calls `serve(secured)` for
each connection whose handshake succeeded; `serve_http2` runs an HTTP/2 connection over one;
`receive` reads what a client sends next. `serve_https(handler)` serves http.server's `handler`
class over TLS on that port, one thread per connection, and `send_answer` answers from one.
"""
import http.server
import socket
import ssl
import sys
import threading


def listen(alpn, serve):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    context.set_alpn_protocols(alpn)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(('127.0.0.1', int(sys.argv[3])))
    listener.listen(50)
    while True:
        client, _ = listener.accept()
        try:
            secured = context.wrap_socket(client, server_side=True)
        except (OSError, ssl.SSLError):
            client.close()
            continue
        threading.Thread(target=serve, args=(secured,), daemon=True).start()


class _ThreadingServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def send_answer(handler, status, headers, data):
    """Sends `status`, `headers` and `data` (bytes) from http.server's `handler`, with its
    Content-Length."""
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.send_header('Content-Length', str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def serve_https(handler):
    httpd = _ThreadingServer(('127.0.0.1', int(sys.argv[3])), handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    httpd.serve_forever()


def receive(sock):
    """The next bytes from `sock`; empty once the client has gone (or the socket failed)."""
    try:
        return sock.recv(65535)
    except OSError:
        return b''


def serve_http2(sock, conn, answer):
    """Runs `conn`, an `h2` server connection, over `sock` until the client goes, calling
    `answer(conn, sock, stream_id, path)` for each request (`path` as text)."""
    import h2.events

    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    while True:
        data = receive(sock)
        if not data:
            return
        try:
            events = conn.receive_data(data)
        except Exception:
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                fields = {name.decode() if isinstance(name, bytes) else name: value for name, value in event.headers}
                path = fields[':path']
                answer(conn, sock, event.stream_id, path.decode() if isinstance(path, bytes) else path)
        pending = conn.data_to_send()
        if pending:
            sock.sendall(pending)
