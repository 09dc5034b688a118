#!/usr/bin/env bash
# Downloads one file through a link with a round trip of 2×DELAY_MS (Scripts/delay_proxy.py in
# front of nginx over TLS) with `tsec get` and with curl, over HTTP/2 and HTTP/1.1, RUNS times
# each, and prints the median times and tsec's ratios against curl in the same run.
#   Scripts/h2-download-latency.sh [MEGABYTES=10] [DELAY_MS=20] [RUNS=5]
# Needs nginx (Debian's package), curl, openssl and python3; builds tsec in release.
set -euo pipefail
megabytes=${1:-10}
delay=${2:-20}
runs=${3:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 \
    -subj "/CN=Latency Root" -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key -out leaf.csr -subj "/CN=localhost" 2>/dev/null
printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n' > leaf.ext
openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem -days 1 -extfile leaf.ext 2>/dev/null
mkdir -p www logs
head -c $((megabytes * 1000000)) /dev/urandom > www/file.bin

nginx_port=$((20000 + RANDOM % 20000))
proxy_port=$((nginx_port + 1))
cat > nginx.conf <<CONF
daemon off; master_process off; worker_processes 1;
pid $work/nginx.pid; error_log $work/logs/error.log;
events {}
http {
    access_log off;
    client_body_temp_path $work/body; proxy_temp_path $work/proxy; fastcgi_temp_path $work/fcgi;
    uwsgi_temp_path $work/uwsgi; scgi_temp_path $work/scgi;
    server {
        listen 127.0.0.1:$nginx_port ssl http2;
        ssl_certificate $work/leaf.pem; ssl_certificate_key $work/leaf.key;
        root $work/www;
    }
}
CONF
nginx=$(command -v nginx || echo /usr/sbin/nginx)
"$nginx" -p "$work" -e "$work/logs/error.log" -c "$work/nginx.conf" &
python3 "$here/Scripts/delay_proxy.py" "$proxy_port" "$nginx_port" "$delay" &

(cd "$here" && swift build -c release --product tsec >/dev/null)
tsec="$here/.build/release/tsec"
url="https://localhost:$proxy_port/file.bin"
sleep 1

# The median of RUNS timings of a command, in seconds.
median() {
    local times=()
    for _ in $(seq "$runs"); do
        local start end
        start=$(date +%s.%N)
        "$@" >/dev/null
        end=$(date +%s.%N)
        times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

echo "$megabytes MB, round trip $((2 * delay)) ms, median of $runs runs"
for version in 2 1.1; do
    tsec_flag=$([ "$version" = 2 ] && echo "" || echo "--http1.1")
    curl_flag=$([ "$version" = 2 ] && echo "--http2" || echo "--http1.1")
    ours=$(median "$tsec" get --cacert ca.pem $tsec_flag -o "$work/out.bin" "$url")
    cmp -s "$work/out.bin" www/file.bin || { echo "tsec's download differs from the file" >&2; exit 1; }
    peer=$(median curl -sS --cacert ca.pem $curl_flag -o "$work/out.bin" "$url")
    printf 'HTTP/%-4s tsec get %6.2f s   curl %6.2f s   curl/tsec %5.2f×\n' "$version" "$ours" "$peer" "$(awk -v a="$peer" -v b="$ours" 'BEGIN { print a / b }')"
done
