#!/usr/bin/env bash
# Installs the test peers that are missing (Debian or Ubuntu; apt-get, through sudo unless
# root). CONTRIBUTING.md says why each is there; the library itself needs none of them.
set -euo pipefail

missing=()
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v nghttpd >/dev/null 2>&1 || [ -x /usr/sbin/nghttpd ] || missing+=(nghttp2-server)
command -v tinyproxy >/dev/null 2>&1 || missing+=(tinyproxy)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
/usr/bin/python3 -c 'import h2' >/dev/null 2>&1 || missing+=(python3-h2)
/usr/bin/python3 -c 'import uvicorn' >/dev/null 2>&1 || missing+=(python3-uvicorn)
/usr/bin/python3 -c 'import grpc' >/dev/null 2>&1 || missing+=(python3-grpcio)
/usr/bin/python3 -c 'import google.protobuf' >/dev/null 2>&1 || missing+=(python3-protobuf)
/usr/bin/python3 -c 'import websockets' >/dev/null 2>&1 || missing+=(python3-websockets)
/usr/bin/python3 -c 'import oauthlib' >/dev/null 2>&1 || missing+=(python3-oauthlib)
/usr/bin/python3 -c 'import jwt' >/dev/null 2>&1 || missing+=(python3-jwt)
/usr/bin/python3 -c 'import cryptography' >/dev/null 2>&1 || missing+=(python3-cryptography)
command -v microsocks >/dev/null 2>&1 || missing+=(microsocks)
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
command -v curl >/dev/null 2>&1 || missing+=(curl)
command -v stunnel4 >/dev/null 2>&1 || missing+=(stunnel4)
[ -x /usr/sbin/lighttpd ] || missing+=(lighttpd)
[ -x /usr/sbin/nginx ] || missing+=(nginx)
[ -x /usr/sbin/apache2 ] || missing+=(apache2)
[ -x /usr/sbin/haproxy ] || missing+=(haproxy)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing the test peers: ${missing[*]}" >&2
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
fi
