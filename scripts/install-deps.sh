#!/bin/sh
# Install the Debian packages netproof needs, and only the missing ones.
#   scripts/install-deps.sh          build + run-time packages
#   scripts/install-deps.sh --test   also the test-only packages
#   scripts/install-deps.sh --bench  also the benchmark peers (Go and kcp-go
#                                    for bench/scripts/rudp_vs.sh)
# Idempotent: prints one line and exits 0 when nothing is missing.  On a
# system without apt-get/dpkg it prints the list and exits 1.
set -eu

BUILD_PKGS="build-essential cmake pkg-config python3 libuv1-dev libssl-dev libcjson-dev \
libarchive-dev libplplot-dev libpcre2-dev libisal-dev liburing-dev scdoc dpkg-dev zlib1g-dev"
TEST_PKGS="python3 python3-jsonschema python3-yaml libtest-json-schema-acceptance-perl \
librsvg2-bin clang libclang-rt-14-dev jq libarchive-tools iproute2 sockperf iperf3 socat \
lintian parallel chromium"

# the agent tests speak TLS 1.3 PSK through openssl s_client
TEST_PKGS="$TEST_PKGS openssl"
# benchmark tools: the KCP peer of bench/scripts/rudp_vs.sh, built offline
# from /usr/share/gocode by bench/scripts/kcp_echo/build.sh
BENCH_PKGS="golang-go golang-github-xtaci-kcp-dev"
want=$BUILD_PKGS
[ "${1:-}" = "--test" ] && want="$BUILD_PKGS $TEST_PKGS"
[ "${1:-}" = "--bench" ] && want="$BUILD_PKGS $BENCH_PKGS"

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: not a Debian/Ubuntu system; install these packages: $want" >&2
  exit 1
fi

missing=""
for p in $want; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$st" in
    *" installed") ;;
    *) missing="$missing $p" ;;
  esac
done

if [ -z "$missing" ]; then
  echo "install-deps: all $(echo $want | wc -w) packages present"
  exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
