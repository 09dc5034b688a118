"""gRPC's health client written with Debian's python3-grpcio (gRPC's C core) and
python3-protobuf: an independent peer for GRPCHealthService.

client.py ROOTS CHAIN KEY NAME PORT SERVICE: over mutual TLS to 127.0.0.1:PORT (the server's
certificate checked for NAME against ROOTS, CHAIN and KEY presented), prints one line per
answer: Check of the server as a whole, Check of "tsec.Unknown", then every status Watch of
SERVICE streams, and how the stream ended.
"""
import sys

import grpc

from health_messages import Request, Response, status_name


def main():
    roots, chain, key = (open(path, 'rb').read() for path in sys.argv[1:4])
    name, port, service = sys.argv[4], int(sys.argv[5]), sys.argv[6]
    credentials = grpc.ssl_channel_credentials(root_certificates=roots, private_key=key, certificate_chain=chain)
    channel = grpc.secure_channel('127.0.0.1:%d' % port, credentials, options=[('grpc.ssl_target_name_override', name)])
    check = channel.unary_unary('/grpc.health.v1.Health/Check',
                                request_serializer=Request.SerializeToString, response_deserializer=Response.FromString)
    watch = channel.unary_stream('/grpc.health.v1.Health/Watch',
                                 request_serializer=Request.SerializeToString, response_deserializer=Response.FromString)
    print('check: ' + status_name(check(Request(service=''), timeout=10).status), flush=True)
    try:
        check(Request(service='tsec.Unknown'), timeout=10)
        print('check tsec.Unknown: answered', flush=True)
    except grpc.RpcError as error:
        print('check tsec.Unknown: ' + error.code().name, flush=True)
    updates = watch(Request(service=service), timeout=30)
    try:
        for update in updates:
            print('watch: ' + status_name(update.status), flush=True)
        print('watch ended: OK', flush=True)
    except grpc.RpcError as error:
        print('watch ended: ' + error.code().name, flush=True)


main()
