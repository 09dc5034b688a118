"""The listener the fixture servers share: TLS on 127.0.0.1, one thread per connection.

`listen(alpn, serve)` reads CHAIN KEY PORT from the command line and calls `serve(secured)` for
each connection whose handshake succeeded.
"""
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
