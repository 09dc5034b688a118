"""A TCP relay on 127.0.0.1 that holds every byte back DELAY_MS milliseconds in each direction,
so that loopback behaves like a link with a round trip of twice that: `delay_proxy.py LISTEN_PORT
TARGET_PORT DELAY_MS`. Order is kept; bandwidth is not limited. Used by
`Scripts/h2-download-latency.sh`.
"""
import asyncio
import sys
import time


async def relay(reader, writer, delay):
    queue = asyncio.Queue()

    async def send():
        while True:
            arrived, data = await queue.get()
            wait = arrived + delay - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                writer.close()
                return
            writer.write(data)
            await writer.drain()

    sender = asyncio.create_task(send())
    try:
        while True:
            data = await reader.read(65536)
            await queue.put((time.monotonic(), data or None))
            if not data:
                break
        await sender
    except (ConnectionError, OSError):
        sender.cancel()
        writer.close()


async def main():
    listen_port, target_port, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000

    async def accept(client_reader, client_writer):
        server_reader, server_writer = await asyncio.open_connection('127.0.0.1', target_port)
        await asyncio.gather(
            relay(client_reader, server_writer, delay), relay(server_reader, client_writer, delay), return_exceptions=True
        )

    server = await asyncio.start_server(accept, '127.0.0.1', listen_port)
    async with server:
        await server.serve_forever()


asyncio.run(main())
