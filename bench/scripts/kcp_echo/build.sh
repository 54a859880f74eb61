#!/usr/bin/env bash
# build.sh - build kcp_echo (the KCP peer of bench/scripts/rudp_vs.sh)
# offline against Debian's packaged kcp-go (golang-github-xtaci-kcp-dev,
# which installs its sources and dependencies under /usr/share/gocode).
#
#   bench/scripts/kcp_echo/build.sh OUT_BINARY
# GOPATH mode: no module download, no proxy.  Exit 3 when Go or the
# sources are missing (scripts/install-deps.sh --bench installs them).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(realpath -m "${1:?usage: build.sh OUT_BINARY}")
GOCODE=${GOCODE:-/usr/share/gocode}
if ! command -v go >/dev/null || [ ! -d "$GOCODE/src/github.com/xtaci/kcp-go" ]; then
  echo "build.sh: needs golang-go and golang-github-xtaci-kcp-dev" \
    "($GOCODE/src/github.com/xtaci/kcp-go)" >&2
  exit 3
fi
CACHE=$(mktemp -d "${TMPDIR:-/tmp}/np-gocache.XXXXXX")
trap 'rm -rf "$CACHE"' EXIT
# the package source goes into a private GOPATH beside the system one
mkdir -p "$CACHE/path/src/kcp_echo"
cp "$HERE/main.go" "$CACHE/path/src/kcp_echo/"
cd "$CACHE/path/src/kcp_echo"
GO111MODULE=off GOPROXY=off GOFLAGS= GOPATH="$CACHE/path:$GOCODE" \
  GOCACHE="$CACHE/cache" go build -o "$OUT" .
