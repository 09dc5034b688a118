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
- The JWT bearer grant (RFC 7523 §2.1), as Google's token endpoint takes it: grant_type
  urn:ietf:params:oauth:grant-type:jwt-bearer and an `assertion` signed RS256 with the
  registered key (/register-key), issuer the service account SERVICE_ACCOUNT, audience /token,
  exp at most an hour after iat: a bearer token; else 400 `invalid_grant`. GET /last-grant: the
  claims of the last grant accepted.
- DPoP (RFC 9449): a token request with a `DPoP` proof (typ dpop+jwt, its public JWK in the
  header, verified by PyJWT; htm, htu, iat within a minute, a jti never seen) gets a `DPoP`
  token bound to the key's RFC 7638 thumbprint; GET /api with `Authorization: DPoP` needs a
  proof by the same key with `ath`, and answers `hello JKT`. A DPoP-bound token presented as
  Bearer is refused. POST /require-dpop-nonce (body: the nonce; empty: none) makes both ask for
  it (400 / 401 `use_dpop_nonce` with `DPoP-Nonce`); GET /stats counts those demands.
  GET /api-rotating asks for a new nonce every time (401 `use_dpop_nonce`), counting the asks.
- POST /moved?status=N&to=URL: answers N (a 307 or 308 keeps the body) with `Location: URL`, as
  a token endpoint that moved, or one an attacker controls, does.
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

import jwt
from oauthlib.oauth2 import BackendApplicationServer, RequestValidator

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tls_listener import send_answer, serve_https  # noqa: E402

CLIENT_ID = 'partner'
CLIENT_SECRET = 's3cret:+/&'
SCOPES = {'read', 'write'}
ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'
GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
SERVICE_ACCOUNT = 'tsec-test@tsec-project.iam.gserviceaccount.com'
TOKEN_URL = 'https://127.0.0.1:%s/token' % sys.argv[3]
API_URL = 'https://127.0.0.1:%s/api' % sys.argv[3]
tokens = set()
assertion_ids = set()
assertion_key = [None]
lock = threading.Lock()
proof_ids = set()
last_grant = [None]


def grant_answer(form):
    """The status and JSON answering a JWT bearer grant (Google's way)."""
    if assertion_key[0] is None:
        return 400, {'error': 'invalid_grant', 'error_description': 'no key registered'}
    try:
        claims = jwt.decode(form.get('assertion', ''), assertion_key[0], algorithms=['RS256'], audience=TOKEN_URL,
                            issuer=SERVICE_ACCOUNT, options={'require': ['exp', 'iat', 'iss', 'aud']})
    except jwt.PyJWTError as error:
        return 400, {'error': 'invalid_grant', 'error_description': str(error)}
    if claims['exp'] - claims['iat'] > 3600:
        return 400, {'error': 'invalid_grant', 'error_description': 'the grant lasts over an hour'}
    token = 'ya29.' + base64.urlsafe_b64encode(hashlib.sha256(repr(claims).encode() + str(time.time()).encode()).digest()).decode().rstrip('=')
    with lock:
        tokens.add(token)
        last_grant[0] = claims
    return 200, {'access_token': token, 'token_type': 'Bearer', 'expires_in': 3599}
bound = {}
nonce = [None]
stats = {'token_nonce_demands': 0, 'api_nonce_demands': 0, 'rotating_demands': 0}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b'=').decode()


def thumbprint(jwk):
    required = {'EC': ['crv', 'kty', 'x', 'y'], 'RSA': ['e', 'kty', 'n']}[jwk['kty']]
    canonical = json.dumps({name: jwk[name] for name in required}, separators=(',', ':'), sort_keys=True)
    return b64url(hashlib.sha256(canonical.encode()).digest())


def check_proof(proof, method, url, token=None):
    """The thumbprint of the key of a valid DPoP proof and None, or None and what is wrong."""
    try:
        header = jwt.get_unverified_header(proof)
        jwk = header.get('jwk') or {}
        algorithm = header.get('alg')
        if header.get('typ') != 'dpop+jwt' or algorithm not in ('ES256', 'ES384', 'PS256', 'RS256'):
            return None, 'typ or alg'
        if any(name in jwk for name in ('d', 'p', 'q', 'dp', 'dq', 'qi')):
            return None, 'a private key in the header'
        key = jwt.PyJWK(jwk, algorithm=algorithm)
        claims = jwt.decode(proof, key.key, algorithms=[algorithm], options={'require': ['jti', 'htm', 'htu', 'iat']})
    except (jwt.PyJWTError, KeyError, ValueError) as error:
        return None, 'invalid proof: %s' % error
    if claims['htm'] != method or claims['htu'] != url:
        return None, 'htm or htu'
    if abs(claims['iat'] - time.time()) > 60:
        return None, 'iat'
    with lock:
        if claims['jti'] in proof_ids:
            return None, 'jti replayed'
        proof_ids.add(claims['jti'])
    if token is not None and claims.get('ath') != b64url(hashlib.sha256(token.encode()).digest()):
        return None, 'ath'
    if nonce[0] is not None and claims.get('nonce') != nonce[0]:
        return None, 'nonce'
    return thumbprint(jwk), None


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
            if token not in tokens or token in bound:
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
        send_answer(self, status, headers, body.encode() if isinstance(body, str) else body)

    def do_POST(self):
        length = int(self.headers.get('Content-Length', '0'))
        body = self.rfile.read(length).decode()
        uri = 'https://127.0.0.1' + self.path
        if self.path.startswith('/moved?'):
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            self.answer(int(query['status'][0]), {'Location': query['to'][0], 'Content-Type': 'text/plain'}, 'moved')
        elif self.path == '/token' and urllib.parse.parse_qs(body).get('grant_type') == [GRANT_TYPE]:
            status, answer = grant_answer({name: values[0] for name, values in urllib.parse.parse_qs(body).items()})
            self.answer(status, {'Content-Type': 'application/json'}, json.dumps(answer))
        elif self.path == '/token':
            proof, jkt = self.headers.get('DPoP'), None
            if proof is not None:
                jkt, problem = check_proof(proof, 'POST', TOKEN_URL)
                if problem == 'nonce':
                    with lock:
                        stats['token_nonce_demands'] += 1
                    self.answer(400, {'Content-Type': 'application/json', 'DPoP-Nonce': nonce[0]},
                                json.dumps({'error': 'use_dpop_nonce', 'error_description': 'a nonce is required'}))
                    return
                if problem is not None:
                    self.answer(400, {'Content-Type': 'application/json'}, json.dumps({'error': 'invalid_dpop_proof', 'error_description': problem}))
                    return
            headers, answer, status = server.create_token_response(uri, 'POST', body, dict(self.headers))
            if jkt is not None and status == 200:
                fields = json.loads(answer)
                fields['token_type'] = 'DPoP'
                with lock:
                    bound[fields['access_token']] = jkt
                answer = json.dumps(fields)
            self.answer(status, headers, answer)
        elif self.path == '/require-dpop-nonce':
            nonce[0] = body or None
            self.answer(200, {'Content-Type': 'text/plain'}, 'nonce %s' % nonce[0])
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
        if self.path == '/last-grant':
            with lock:
                self.answer(200, {'Content-Type': 'application/json'}, json.dumps(last_grant[0]))
            return
        if self.path == '/stats':
            with lock:
                self.answer(200, {'Content-Type': 'application/json'}, json.dumps(stats))
            return
        if self.path == '/api-rotating':
            with lock:
                stats['rotating_demands'] += 1
                fresh = 'rotating-%d' % stats['rotating_demands']
            self.answer(401, {'Content-Type': 'text/plain', 'DPoP-Nonce': fresh, 'WWW-Authenticate': 'DPoP error="use_dpop_nonce"'}, 'another nonce')
            return
        if self.path != '/api':
            self.answer(404, {'Content-Type': 'text/plain'}, 'no such path')
            return
        authorization = self.headers.get('Authorization', '')
        if authorization.startswith('DPoP '):
            token = authorization[len('DPoP '):]
            jkt, problem = check_proof(self.headers.get('DPoP', ''), 'GET', API_URL, token)
            if problem == 'nonce':
                with lock:
                    stats['api_nonce_demands'] += 1
                self.answer(401, {'Content-Type': 'text/plain', 'DPoP-Nonce': nonce[0],
                                  'WWW-Authenticate': 'DPoP error="use_dpop_nonce", error_description="a nonce is required"'}, 'nonce required')
                return
            with lock:
                valid = jkt is not None and token in tokens and bound.get(token) == jkt
            if valid:
                self.answer(200, {'Content-Type': 'text/plain'}, 'hello ' + jkt)
            else:
                self.answer(401, {'Content-Type': 'text/plain', 'WWW-Authenticate': 'DPoP error="invalid_token"'}, 'refused: %s' % problem)
            return
        valid, _ = server.verify_request('https://127.0.0.1/api', 'GET', None, dict(self.headers), scopes=['read'])
        if valid:
            self.answer(200, {'Content-Type': 'text/plain'}, 'hello')
        else:
            self.answer(401, {'Content-Type': 'text/plain', 'WWW-Authenticate': 'Bearer error="invalid_token"'}, 'token refused')


serve_https(Handler)
