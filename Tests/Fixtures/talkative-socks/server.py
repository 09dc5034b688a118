"""A SOCKS5 proxy on 127.0.0.1 that grants every CONNECT and then, before anything went through
the tunnel, sends bytes of its own (which a client must not take for the server's):
`server.py PORT` (no authentication) or `server.py PORT USER PASSWORD` (RFC 1929).
"""
import socket
import sys
import threading
import time

EXTRA = b'junk from the proxy'


def read_exactly(connection, count):
    data = b''
    while len(data) < count:
        received = connection.recv(count - len(data))
        if not received:
            raise EOFError
        data += received
    return data


def serve(connection, credentials):
    try:
        version, count = read_exactly(connection, 2)
        methods = read_exactly(connection, count)
        if credentials:
            if 2 not in methods:
                connection.sendall(b'\x05\xff')
                return
            connection.sendall(b'\x05\x02')
            _, user_length = read_exactly(connection, 2)
            user = read_exactly(connection, user_length)
            password = read_exactly(connection, read_exactly(connection, 1)[0])
            ok = (user.decode(), password.decode()) == credentials
            connection.sendall(b'\x01\x00' if ok else b'\x01\x01')
            if not ok:
                return
        else:
            connection.sendall(b'\x05\x00')
        _, _, _, kind = read_exactly(connection, 4)
        if kind == 1:
            read_exactly(connection, 4)
        elif kind == 3:
            read_exactly(connection, read_exactly(connection, 1)[0])
        else:
            read_exactly(connection, 16)
        read_exactly(connection, 2)
        # Granted, bound to 0.0.0.0:0, and then bytes nobody asked for, in the same write.
        connection.sendall(b'\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00' + EXTRA)
        time.sleep(2)
    except (EOFError, OSError):
        pass
    finally:
        connection.close()


def main():
    port = int(sys.argv[1])
    credentials = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else None
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(('127.0.0.1', port))
    listener.listen(16)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, credentials), daemon=True).start()


main()
