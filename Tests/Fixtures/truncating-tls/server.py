"""An HTTP/1.1 server over TLS on 127.0.0.1 that ends some connections without TLS's
close_notify, as an attacker on the path can: `server.py CHAIN KEY PORT`.

/until-close-unclean  a body delimited by the connection's end, ended without close_notify
/until-close-clean    the same body, ended with close_notify
/length-unclean       a body with its Content-Length, then the end without close_notify
/drop-unclean         no answer: the end without close_notify (as Java's HttpsServer drops a
                      client it refuses right after TLS 1.3's handshake)
"""
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tls_listener import listen  # noqa: E402

BODY = b'the whole body'


def serve(secured):
    request = b''
    while b'\r\n\r\n' not in request:
        received = secured.recv(4096)
        if not received:
            return
        request += received
    path = request.split(b' ')[1].decode()
    if path == '/drop-unclean':
        pass
    elif path == '/length-unclean':
        secured.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n' % len(BODY) + BODY)
    else:
        secured.sendall(b'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n' + BODY)
    if path == '/until-close-clean':
        secured.unwrap().close()
    else:
        # The socket closed under TLS: no close_notify.
        socket.socket(fileno=secured.detach()).close()


listen(['http/1.1'], serve)
