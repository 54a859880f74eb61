#!/bin/bash
# Bad input for netproof-validate: each case checks the exit code, the one
# clear message, and that nothing is written (no stdout on exit 2, no new
# files in the working folder).
#   test_validate_cli.sh NETPROOF_VALIDATE CASES_DIR
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
CASES=$(cd "$2" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/np-test-validate-cli.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/w"
cd "$T/w" || exit 1
O=$T/out.txt
E=$T/err.txt
pass=0
fail=0

# run NAME WANT_RC STREAM REGEX ARGS...: STREAM is out or err, REGEX must
# match that stream (grep -E); on exit 2 stdout must be empty and stderr
# exactly one line.
run() {
  local name=$1 want=$2 stream=$3 re=$4
  shift 4
  local before after
  before=$(ls -A | sort)
  "$BIN" "$@" >"$O" 2>"$E"
  local rc=$?
  after=$(ls -A | sort)
  local ok=1 why=""
  [ "$rc" -eq "$want" ] || { ok=0; why="exit $rc, want $want"; }
  if [ -n "$re" ] && ! grep -Eq -- "$re" "$T/$stream.txt"; then
    ok=0; why="$why; $stream lacks /$re/"
  fi
  if [ "$want" -eq 2 ] && [ "${STRICT:-1}" -eq 1 ]; then
    [ -s "$O" ] && { ok=0; why="$why; stdout not empty"; }
    [ "$(wc -l <"$E")" -eq 1 ] || { ok=0; why="$why; stderr not one line"; }
  fi
  [ "$before" = "$after" ] || { ok=0; why="$why; files changed"; }
  if [ $ok -eq 1 ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $name: $why"
    sed 's/^/  out: /' "$O"
    sed 's/^/  err: /' "$E"
  fi
  rm -f "$O" "$E"
}

mkdir inputs
printf '{"a": [1, 2' >inputs/truncated.json
printf '{"x": NaN}' >inputs/nan.json
printf '[Infinity]' >inputs/infinity.json
printf '[-Infinity]' >inputs/neg-infinity.json
printf '{"big": 1e999}' >inputs/huge.json
python3 -c "print('[' * 100 + ']' * 100)" >inputs/deep.json
python3 -c "print('[' + '1,' * 200 + '1]')" >inputs/large.json
echo '{"$ref": "#/$defs/nowhere"}' >inputs/badref.schema.json
echo '{"$ref": "other.json#/x"}' >inputs/remote.schema.json
echo '{"type": "object", "frobnicate": true}' >inputs/unknown.schema.json
echo '{"unevaluatedProperties": false}' >inputs/uneval.schema.json
echo '{"pattern": "(unclosed"}' >inputs/badregex.schema.json
echo '{"$ref": "#"}' >inputs/loop.schema.json
echo '{"x": 1}' >inputs/untagged.json
echo '{"schema": "netproof/no-such-thing/1"}' >inputs/unknown-tag.json
echo '[1, 2' >inputs/bad.schema.json
S=$CASES/sample.schema.json

run truncated 2 err 'truncated\.json: .*(end|truncat)' inputs/truncated.json
run nan 2 err 'nan\.json: ' inputs/nan.json
run infinity 2 err 'infinity\.json: ' inputs/infinity.json
run neg-infinity 2 err 'neg-infinity\.json: ' inputs/neg-infinity.json
run 1e999 2 err 'huge\.json: /big: .*finite' inputs/huge.json
run deep 2 err 'deep\.json: .*(nest|deep)' inputs/deep.json
run size-limit 2 err 'large\.json: .*(limit|exceed)' --max-bytes 100 inputs/large.json
run bad-max-bytes 2 err 'max-bytes' --max-bytes 0 inputs/large.json
run directory 2 err "inputs: .*directory" inputs
run nonexistent 2 err 'nope\.json: .*(No such|exist)' inputs/nope.json
run badref 2 err 'badref\.schema\.json: #: \$ref: .*nowhere' --schema inputs/badref.schema.json "$CASES/sample-valid-1.json"
run remote-ref 2 err 'remote\.schema\.json: .*remote' --schema inputs/remote.schema.json "$CASES/sample-valid-1.json"
run unsupported 2 err 'unknown\.schema\.json: #: frobnicate: unsupported keyword' --schema inputs/unknown.schema.json "$CASES/sample-valid-1.json"
run unevaluated 2 err 'unevaluatedProperties: unsupported keyword' --schema inputs/uneval.schema.json "$CASES/sample-valid-1.json"
run bad-regex 2 err 'badregex\.schema\.json: #: pattern: bad regex' --schema inputs/badregex.schema.json "$CASES/sample-valid-1.json"
run bad-schema-json 2 err 'bad\.schema\.json: ' --schema inputs/bad.schema.json "$CASES/sample-valid-1.json"
run missing-schema-file 2 err 'absent\.json: ' --schema inputs/absent.json "$CASES/sample-valid-1.json"
run ref-loop 1 out 'untagged\.json: \(root\): \$ref: .*too deep' --schema inputs/loop.schema.json inputs/untagged.json
run untagged 2 err 'untagged\.json: /schema: .*--schema' inputs/untagged.json
run unknown-tag 2 err 'unknown-tag\.json: /schema: .*no-such-thing' inputs/unknown-tag.json
run no-args 2 err 'usage' 
run bad-option 2 err "unknown option '--bogus' \\(try --help\\)" --bogus x.json
run typo-option 2 err "did you mean --schema?" --schma x.json
run schema-without-file 2 err 'usage' --schema "$S"
run help 0 out 'usage: netproof-validate' --help
run version 0 out 'source-sha256' --version
run valid 0 out 'sample-valid-1\.json: valid' --schema "$S" "$CASES/sample-valid-1.json"
run wrong-type 1 out '^.*sample-invalid-type-name\.json: /name: type: expected string, got integer$' --schema "$S" "$CASES/sample-invalid-type-name.json"
run valid-and-invalid 1 out 'sample-invalid-unique\.json: /tags: uniqueItems' --schema "$S" "$CASES/sample-valid-1.json" "$CASES/sample-invalid-unique.json"
run check-schemas-ok 0 out "sample.schema.json: schema compiles" --check-schemas "$S"
run check-schemas-bad 1 out "unknown.schema.json: .*frobnicate" --check-schemas "$S" inputs/unknown.schema.json
STRICT=0 run invalid-and-unreadable 2 err 'nope\.json' --schema "$S" "$CASES/sample-invalid-unique.json" inputs/nope.json

# every error is printed, one line each
printf '{"schema": "netproof/sample/1", "name": 5, "count": -1, "ratio": 2, "tags": [1], "items": [], "zz": 0}' >inputs/many.json
"$BIN" --schema "$S" inputs/many.json >"$T/many.txt" 2>&1
rc=$?
n=$(grep -c '^inputs/many\.json: /' "$T/many.txt")
if [ $rc -eq 1 ] && [ "$n" -eq 6 ]; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
  echo "FAIL every-error: exit $rc, $n error lines (want 6)"
  cat "$T/many.txt"
fi
rm -f "$T/many.txt"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
