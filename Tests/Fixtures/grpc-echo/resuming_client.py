"""A gRPC client of Debian's python3-grpcio (gRPC's C core) that resumes its TLS session.

resuming_client.py PORT CA SERVER_NAME CERT_CHAIN KEY MESSAGE COUNT: calls /tsec.Echo/Echo at
127.0.0.1:PORT COUNT times, each on a channel of its own sharing one TLS session cache, so that
every connection after the first offers to resume the first's session; prints each answer on a
line, or `error:CODE` for a call that fails.
"""
import sys

import grpc
from grpc.experimental import session_cache


def main():
    port, ca, name, chain, key, message, count = sys.argv[1:8]
    credentials = grpc.ssl_channel_credentials(
        open(ca, 'rb').read(), open(key, 'rb').read(), open(chain, 'rb').read())
    cache = session_cache.ssl_session_cache_lru(4)
    options = [('grpc.ssl_target_name_override', name), ('grpc.ssl_session_cache', cache)]
    for _ in range(int(count)):
        with grpc.secure_channel('127.0.0.1:%s' % port, credentials, options=options) as channel:
            echo = channel.unary_unary('/tsec.Echo/Echo')
            try:
                print(echo(message.encode(), timeout=10).decode(), flush=True)
            except grpc.RpcError as error:
                print('error:' + error.code().name, flush=True)


main()
