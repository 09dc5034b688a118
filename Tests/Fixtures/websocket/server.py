"""A WebSocket server written with Debian's python3-websockets: an independent peer.

server.py CHAIN KEY PORT [CLIENT_CA]: wss:// on 127.0.0.1 (client certificates from CLIENT_CA
required when given). Each path does one thing:

  /echo        sends back every message, text as text, binary as binary
  /headers     sends "COOKIE|AUTHORIZATION" (the opening request's fields, '-' when absent)
  /protocol    sends "chosen:NAME", the subprotocol chosen (the server knows quotes.v1 only)
  /ping        pings the client, then sends "pong received" once its pong came
  /fragments   sends "fragmented text" and b"\x01\x02\x03", each in fragments
  /close       closes with 4001 "bye"
  /big?n=N     sends a binary message of N bytes
  /bad-utf8    sends a text frame that is not UTF-8
  /masked      sends a masked text frame, which only clients may send
  /bad-close   sends a close frame of one byte (a status code takes two)
  /drop        ends the connection without a close frame
  /last-close  sends "CODE REASON" of the last close a client of another path sent
  /whoami      sends the common name of the client's certificate
  /refuse      answers 403 with a body instead of switching
"""
import asyncio
import http
import ssl
import sys

import websockets
from websockets.legacy.server import serve as listen

last_close = {'value': 'none'}


async def refuse(path, headers):
    if path == '/refuse':
        return http.HTTPStatus.FORBIDDEN, [('Content-Type', 'text/plain')], b'forbidden here\n'
    return None


async def handle(ws, path):
    path, _, query = path.partition('?')
    try:
        await serve(ws, path, query)
    except websockets.ConnectionClosed:
        pass
    finally:
        await ws.wait_closed()
        if path != '/last-close':
            last_close['value'] = '%s %s' % (ws.close_code, ws.close_reason)


async def serve(ws, path, query):
    if path == '/echo':
        async for message in ws:
            await ws.send(message)
    elif path == '/headers':
        fields = ws.request_headers
        await ws.send('%s|%s' % (fields.get('Cookie', '-'), fields.get('Authorization', '-')))
    elif path == '/protocol':
        await ws.send('chosen:%s' % ws.subprotocol)
    elif path == '/ping':
        await (await ws.ping(b'are you there'))
        await ws.send('pong received')
    elif path == '/fragments':
        await ws.send(['frag', 'mented ', 'text'])
        await ws.send([b'\x01', b'\x02\x03'])
    elif path == '/close':
        await ws.close(4001, 'bye')
    elif path == '/big':
        await ws.send(b'x' * int(query.split('=')[1]))
    elif path == '/bad-utf8':
        await ws.write_frame(True, 0x1, b'\xff\xfe')
    elif path == '/masked':
        ws.is_client = True
        await ws.write_frame(True, 0x1, b'masked')
        ws.is_client = False
    elif path == '/bad-close':
        await ws.write_frame(True, 0x8, b'\x03')
    elif path == '/drop':
        ws.transport.close()
    elif path == '/last-close':
        await ws.send(last_close['value'])
    elif path == '/whoami':
        subject = dict(item[0] for item in ws.transport.get_extra_info('peercert')['subject'])
        await ws.send(subject.get('commonName', '?'))


async def main():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    if len(sys.argv) > 4:
        context.load_verify_locations(sys.argv[4])
        context.verify_mode = ssl.CERT_REQUIRED
    async with listen(handle, '127.0.0.1', int(sys.argv[3]), ssl=context, process_request=refuse,
                     subprotocols=['quotes.v1'], ping_interval=None, max_size=16 << 20):
        await asyncio.Future()


asyncio.run(main())
