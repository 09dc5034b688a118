"""An HTTP/1.1 server over TLS on 127.0.0.1 that ends some connections without TLS's
close_notify, as an attacker on the path can: `server.py CHAIN KEY PORT`.

/until-close-unclean  a body delimited by the connection's end, ended without close_notify
/until-close-clean    the same body, ended with close_notify
/length-unclean       a body with its Content-Length, then the end without close_notify
"""
import socket
import ssl
import sys
import threading

BODY = b'the whole body'


def serve(secured):
    request = b''
    while b'\r\n\r\n' not in request:
        received = secured.recv(4096)
        if not received:
            return
        request += received
    path = request.split(b' ')[1].decode()
    if path == '/length-unclean':
        secured.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n' % len(BODY) + BODY)
    else:
        secured.sendall(b'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n' + BODY)
    if path == '/until-close-clean':
        secured.unwrap().close()
    else:
        # The socket closed under TLS: no close_notify.
        socket.socket(fileno=secured.detach()).close()


def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    context.set_alpn_protocols(['http/1.1'])
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


main()
