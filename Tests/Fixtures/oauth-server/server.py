"""An OAuth 2.0 authorization server and API over TLS, made with oauthlib (Debian's
python3-oauthlib): an independent token endpoint for the client-credentials grant.

Usage: server.py CHAIN KEY PORT

- POST /token: oauthlib's token endpoint (BackendApplicationServer). The client `partner` with
  the secret `s3cret:+/&` authenticates with HTTP Basic (each part form-decoded, RFC 6749
  §2.3.1) or in the form (client_secret_post). Scopes: `read`, `write` (default `read`).
  Tokens last 3600 s.
- GET /api: oauthlib's resource endpoint; 200 `hello` with a token it issued and has not
  revoked, else 401 with `WWW-Authenticate: Bearer error="invalid_token"`.
- POST /revoke-all: forgets every token issued.
- POST /register-key: the body, a PEM public key, becomes the client's key for private_key_jwt:
  a client assertion (RFC 7523) verified by PyJWT (Debian's python3-jwt) with that key, for
  ES256, ES384, PS256 or RS256, issuer and subject `partner`, audience this server's /token,
  with exp, iat and a jti never seen before.
"""
import base64
import http.server
import ssl
import sys
import threading
import urllib.parse

import jwt
from oauthlib.oauth2 import BackendApplicationServer, RequestValidator

CLIENT_ID = 'partner'
CLIENT_SECRET = 's3cret:+/&'
SCOPES = {'read', 'write'}
ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'
TOKEN_URL = 'https://127.0.0.1:%s/token' % sys.argv[3]
tokens = set()
assertion_ids = set()
assertion_key = [None]
lock = threading.Lock()


def assertion_is_valid(assertion):
    if assertion_key[0] is None:
        return False
    try:
        claims = jwt.decode(
            assertion, assertion_key[0], algorithms=['ES256', 'ES384', 'PS256', 'RS256'], audience=TOKEN_URL,
            issuer=CLIENT_ID, options={'require': ['exp', 'iat', 'jti', 'sub', 'iss', 'aud']},
        )
    except jwt.PyJWTError:
        return False
    if claims['sub'] != CLIENT_ID:
        return False
    with lock:
        if claims['jti'] in assertion_ids:
            return False
        assertion_ids.add(claims['jti'])
    return True


class Client:
    client_id = CLIENT_ID


class Validator(RequestValidator):
    def authenticate_client(self, request, *args, **kwargs):
        authorization = request.headers.get('Authorization', '')
        form = dict(request.decoded_body or [])
        if form.get('client_assertion_type') == ASSERTION_TYPE:
            if not assertion_is_valid(form.get('client_assertion', '')):
                return False
            request.client = Client()
            request.client_id = CLIENT_ID
            return True
        if authorization.startswith('Basic '):
            try:
                decoded = base64.b64decode(authorization[6:]).decode()
            except Exception:
                return False
            name, _, secret = decoded.partition(':')
            client_id, client_secret = urllib.parse.unquote_plus(name), urllib.parse.unquote_plus(secret)
        else:
            client_id, client_secret = request.client_id, request.client_secret
        if client_id != CLIENT_ID or client_secret != CLIENT_SECRET:
            return False
        request.client = Client()
        request.client_id = CLIENT_ID
        return True

    def validate_grant_type(self, client_id, grant_type, client, request, *args, **kwargs):
        return grant_type == 'client_credentials'

    def get_default_scopes(self, client_id, request, *args, **kwargs):
        return ['read']

    def validate_scopes(self, client_id, scopes, client, request, *args, **kwargs):
        return set(scopes) <= SCOPES

    def save_bearer_token(self, token, request, *args, **kwargs):
        with lock:
            tokens.add(token['access_token'])

    def validate_bearer_token(self, token, scopes, request):
        with lock:
            if token not in tokens:
                return False
        request.client = Client()
        request.scopes = scopes
        return True


server = BackendApplicationServer(Validator())


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def answer(self, status, headers, body):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header('Content-Length', str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get('Content-Length', '0'))
        body = self.rfile.read(length).decode()
        uri = 'https://127.0.0.1' + self.path
        if self.path == '/token':
            headers, answer, status = server.create_token_response(uri, 'POST', body, dict(self.headers))
            self.answer(status, headers, answer)
        elif self.path == '/register-key':
            assertion_key[0] = body
            self.answer(200, {'Content-Type': 'text/plain'}, 'registered')
        elif self.path == '/revoke-all':
            with lock:
                tokens.clear()
            self.answer(200, {'Content-Type': 'text/plain'}, 'revoked')
        else:
            self.answer(404, {'Content-Type': 'text/plain'}, 'no such path')

    def do_GET(self):
        if self.path != '/api':
            self.answer(404, {'Content-Type': 'text/plain'}, 'no such path')
            return
        valid, _ = server.verify_request('https://127.0.0.1/api', 'GET', None, dict(self.headers), scopes=['read'])
        if valid:
            self.answer(200, {'Content-Type': 'text/plain'}, 'hello')
        else:
            self.answer(401, {'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer error="invalid_token"'}, 'token refused')


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


httpd = Server(('127.0.0.1', int(sys.argv[3])), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
httpd.serve_forever()
