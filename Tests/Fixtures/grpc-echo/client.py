"""A gRPC client written with Debian's python3-grpcio (gRPC's C core): an independent peer.

client.py PORT CA SERVER_NAME CERT_CHAIN KEY MESSAGE: calls /tsec.Echo/Echo at 127.0.0.1:PORT,
verifying the server against CA as SERVER_NAME and presenting CERT_CHAIN with KEY; prints the
answer, or `error:CODE` (a gRPC status code's name) when the call fails.
"""
import sys

import grpc


def main():
    port, ca, name, chain, key, message = sys.argv[1:7]
    credentials = grpc.ssl_channel_credentials(
        open(ca, 'rb').read(), open(key, 'rb').read(), open(chain, 'rb').read())
    options = [('grpc.ssl_target_name_override', name)]
    with grpc.secure_channel('127.0.0.1:%s' % port, credentials, options=options) as channel:
        echo = channel.unary_unary('/tsec.Echo/Echo')
        try:
            print(echo(message.encode(), timeout=10).decode())
        except grpc.RpcError as error:
            print('error:' + error.code().name)


main()
