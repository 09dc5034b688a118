"""An API over TLS whose answers are signed (RFC 9421, Ed25519 with python3-cryptography),
behind a gateway that terminates TLS and adds answers of its own, unsigned: an independent
signer, and the intermediary a response-signature requirement exists for.

Usage: server.py CHAIN KEY PORT PUBLIC_KEY_FILE. The API's signing key is made at start and
its public key written (PEM) to PUBLIC_KEY_FILE before the server listens; signatures have
keyid `gateway-2026`, label `sig1`, and cover `@status`, `content-digest` and, on a redirect,
`location`.

Signed by the API:
- GET /api: 200 `genuine`, with `Set-Cookie: session=genuine` and `Strict-Transport-Security`.
- GET /redirect?to=URL: 302 to URL, with `Set-Cookie: hop=signed`.
- GET /basic: 401 asking for Basic credentials; with `Authorization` (any), 200 `welcome`.
- GET /etag: 200 `genuine` with `ETag: "v1"` and `Cache-Control: no-cache` (revalidate before
  each use); a request with `If-None-Match` gets the gateway's unsigned 304 instead, with
  `Set-Cookie: session=attacker` and `Cache-Control: max-age=31536000`.
Added by the gateway, unsigned:
- GET /gateway-redirect?to=URL: 302 to URL, with `Set-Cookie: session=attacker` and
  `Strict-Transport-Security`.
- GET /gateway-basic: 401 asking for Basic credentials.
- GET /gateway-busy: 503 with `Retry-After: 0`.
- GET /tampered: the API's signed head for `genuine` (its `Content-Digest` covered), with a body
  the gateway changed to `forged`, `Set-Cookie: session=attacker`, `Strict-Transport-Security`
  and `Cache-Control: max-age=600`.
And:
- GET /seen: the requests before it as JSON lines: method, path, and the `Host`,
  `Authorization`, `Cookie` and `If-None-Match` fields they carried.
"""
import base64
import hashlib
import http.server
import json
import os
import sys
import threading
import time
import urllib.parse

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tls_listener import send_answer, serve_https  # noqa: E402

KEY_ID = 'gateway-2026'
signing_key = Ed25519PrivateKey.generate()
with open(sys.argv[4], 'wb') as public_key_file:
    public_key_file.write(signing_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
seen = []
lock = threading.Lock()


def content_digest(body):
    return 'sha-256=:%s:' % base64.b64encode(hashlib.sha256(body).digest()).decode()


def signature_fields(status, fields):
    """Signature-Input and Signature for a response of `status` covering `fields` (name, value),
    as RFC 9421 §2.5 builds the signature base."""
    names = ['"@status"'] + ['"%s"' % name.lower() for name, _ in fields]
    params = '(%s);created=%d;keyid="%s";alg="ed25519"' % (' '.join(names), int(time.time()), KEY_ID)
    lines = ['"@status": %d' % status] + ['"%s": %s' % (name.lower(), value) for name, value in fields]
    lines.append('"@signature-params": ' + params)
    signature = signing_key.sign('\n'.join(lines).encode())
    return {'Signature-Input': 'sig1=' + params, 'Signature': 'sig1=:%s:' % base64.b64encode(signature).decode()}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def answer(self, status, headers, body, signed, covering=(), sent=None):
        """Answers `status` with `headers` and `body`, signed over `Content-Digest` and `covering`
        when `signed`; with `sent`, the body sent is that instead (changed after signing)."""
        headers = dict(headers)
        headers['Content-Type'] = 'text/plain'
        if signed:
            headers['Content-Digest'] = content_digest(body.encode())
            covered = [(name, headers[name]) for name in ('Content-Digest',) + tuple(covering)]
            headers.update(signature_fields(status, covered))
        send_answer(self, status, headers, (body if sent is None else sent).encode())

    def do_GET(self):
        parts = urllib.parse.urlsplit(self.path)
        query = {name: values[0] for name, values in urllib.parse.parse_qs(parts.query).items()}
        with lock:
            seen.append({'method': 'GET', 'path': parts.path, 'host': self.headers.get('Host'), 'authorization': self.headers.get('Authorization'),
                         'cookie': self.headers.get('Cookie'), 'if-none-match': self.headers.get('If-None-Match')})
        sts = 'max-age=600'
        if parts.path == '/api':
            self.answer(200, {'Set-Cookie': 'session=genuine; Path=/', 'Strict-Transport-Security': sts}, 'genuine', True)
        elif parts.path == '/redirect':
            self.answer(302, {'Location': query['to'], 'Set-Cookie': 'hop=signed; Path=/'}, 'moved', True, ('Location',))
        elif parts.path == '/basic':
            if self.headers.get('Authorization'):
                self.answer(200, {}, 'welcome', True)
            else:
                self.answer(401, {'WWW-Authenticate': 'Basic realm="api"'}, 'who are you', True)
        elif parts.path == '/etag':
            if self.headers.get('If-None-Match'):
                self.answer(304, {'Set-Cookie': 'session=attacker; Path=/', 'Cache-Control': 'max-age=31536000', 'ETag': '"v1"'}, '', False)
            else:
                self.answer(200, {'ETag': '"v1"', 'Cache-Control': 'no-cache'}, 'genuine', True)
        elif parts.path == '/gateway-busy':
            self.answer(503, {'Retry-After': '0'}, 'busy', False)
        elif parts.path == '/gateway-redirect':
            self.answer(302, {'Location': query['to'], 'Set-Cookie': 'session=attacker; Path=/', 'Strict-Transport-Security': sts}, 'moved', False)
        elif parts.path == '/gateway-basic':
            self.answer(401, {'WWW-Authenticate': 'Basic realm="api"'}, 'who are you', False)
        elif parts.path == '/tampered':
            self.answer(200, {'Set-Cookie': 'session=attacker; Path=/', 'Strict-Transport-Security': sts, 'Cache-Control': 'max-age=600'},
                        'genuine', True, sent='forged!')
        elif parts.path == '/seen':
            with lock:
                body = '\n'.join(json.dumps(entry) for entry in seen[:-1])
            self.answer(200, {}, body, True)
        else:
            self.answer(404, {}, 'no such path', True)


serve_https(Handler)
