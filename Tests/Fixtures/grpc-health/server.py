"""gRPC's health service written with Debian's python3-grpcio (gRPC's C core) and
python3-protobuf: an independent peer for `tsec grpc-health`.

server.py CHAIN KEY PORT: serves grpc.health.v1.Health over TLS on 127.0.0.1. Check answers
SERVING for the server as a whole (service ""), NOT_SERVING for "tsec.Draining" and NOT_FOUND
for any other service. Watch streams NOT_SERVING then, 300 ms later, SERVING for
"tsec.Starting"; nothing for "tsec.Silent"; the Check status for the others (SERVICE_UNKNOWN for
an unknown one); then keeps the stream open until the client leaves. For "tsec.Ended" it ends
the stream at once, with OK and no status. The messages are Python protobuf's
(health_messages.py).
"""
import sys
import time
from concurrent import futures

import grpc

from health_messages import Request, Response


def check(request, context):
    if request.service == '':
        return Response(status=1)
    if request.service == 'tsec.Draining':
        return Response(status=2)
    context.abort(grpc.StatusCode.NOT_FOUND, 'unknown service ' + request.service)


def watch(request, context):
    if request.service == 'tsec.Ended':
        return
    if request.service == 'tsec.Silent':
        pass
    elif request.service == 'tsec.Starting':
        yield Response(status=2)
        time.sleep(0.3)
        yield Response(status=1)
    else:
        yield Response(status={'': 1, 'tsec.Draining': 2}.get(request.service, 3))
    while context.is_active():
        time.sleep(0.05)


def main():
    chain = open(sys.argv[1], 'rb').read()
    key = open(sys.argv[2], 'rb').read()
    port = int(sys.argv[3])
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    methods = {
        'Check': grpc.unary_unary_rpc_method_handler(
            check, request_deserializer=Request.FromString, response_serializer=Response.SerializeToString),
        'Watch': grpc.unary_stream_rpc_method_handler(
            watch, request_deserializer=Request.FromString, response_serializer=Response.SerializeToString),
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler('grpc.health.v1.Health', methods),))
    if server.add_secure_port('127.0.0.1:%d' % port, grpc.ssl_server_credentials([(key, chain)])) == 0:
        sys.exit('port %d is taken' % port)
    server.start()
    server.wait_for_termination()


main()
