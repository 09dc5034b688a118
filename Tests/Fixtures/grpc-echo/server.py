"""A gRPC server written with Debian's python3-grpcio (gRPC's C core): an independent peer.

server.py CHAIN KEY PORT [CLIENT_CA]: serves the unary method /tsec.Echo/Echo over TLS on
127.0.0.1, answering b"python:" + the request; when CLIENT_CA is given, clients must present a
certificate it issued (gRPC's own check, the peer's common name then prefixed to the answer).
"""
import sys
from concurrent import futures

import grpc


def echo(request, context):
    names = context.auth_context().get('x509_common_name', [])
    prefix = b'python[' + b','.join(names) + b']:' if names else b'python:'
    return prefix + request


def main():
    chain = open(sys.argv[1], 'rb').read()
    key = open(sys.argv[2], 'rb').read()
    port = int(sys.argv[3])
    client_ca = open(sys.argv[4], 'rb').read() if len(sys.argv) > 4 else None
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    methods = {'Echo': grpc.unary_unary_rpc_method_handler(echo)}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler('tsec.Echo', methods),))
    credentials = grpc.ssl_server_credentials(
        [(key, chain)], root_certificates=client_ca, require_client_auth=client_ca is not None)
    if server.add_secure_port('127.0.0.1:%d' % port, credentials) == 0:
        sys.exit('port %d is taken' % port)
    server.start()
    server.wait_for_termination()


main()
