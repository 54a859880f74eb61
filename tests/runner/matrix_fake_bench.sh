#!/bin/sh
# matrix_fake_bench.sh - stands in for `netproof-bench udp` in the matrix
# runner's tests.  Behaviour is chosen by --payload:
#   1 crash (SIGSEGV)   2 hang   3 exit 3 without a record
#   4 data check fails (status failed, exit 1)   5 sleep 0.4 s, then pass
#   6 pass, round trips/s grow 20 % per repetition (spread flag)
#   7 crash (SIGSEGV) after 2.4 KB of control characters on stderr (the
#     runner-written record, which quotes the tail as \u0001..., then
#     takes several pages)
#   8 write a passing record, then hang (a child that times out after
#     its record is complete)
#   anything else: pass at once
# The record imitates netproof/run/1 closely enough for the summary, and
# carries runner.session from NETPROOF_RUNNER_SESSION when that is 32
# lowercase hex characters (as the real benchmark does).  Like the real one
# it writes a temporary file next to --output and renames it into place;
# when the write fails (a full disk) it removes the temporary and exits 3.
# With FAKE_BENCH_LOG set, every record written completely is logged there
# as "<--output path> <session>".
payload=0 out=- model=single
shift # "udp"
while [ $# -gt 0 ]; do
  case "$1" in
    --payload) payload=$2 ;;
    --io-model) model=$2 ;;
    --output) out=$2 ;;
  esac
  shift 2
done
echo "fake bench: payload $payload model $model" >&2
case "$payload" in
  1) kill -SEGV $$ ;;
  2) exec sleep 60 ;;
  3) echo "fake bench: environment error" >&2; exit 3 ;;
  5) sleep 0.4 ;;
  7) c=$(printf '\001') line="noise " i=0
     while [ $i -lt 54 ]; do line="$line$c"; i=$((i + 1)); done
     i=0
     while [ $i -lt 40 ]; do printf '%s\n' "$line"; i=$((i + 1)); done >&2
     kill -SEGV $$ ;;
esac
status=passed lost=0 code=0 failure=""
if [ "$payload" = 4 ]; then
  status=failed lost=7 code=1
  failure='"failure": {"reason": "lost 7 echoes"},'
fi
rps=$((100000 - payload))
[ "$model" = split ] && rps=$((rps / 2))
if [ "$payload" = 6 ]; then
  rep=${out##*/rep-}; rep=${rep%%.*}
  rps=$((100000 + 20000 * rep))
fi
session=${NETPROOF_RUNNER_SESSION-} runner=""
case "$session" in
  *[!0-9a-f]*) session="" ;;
esac
[ ${#session} -eq 32 ] || session=""
[ -n "$session" ] && runner='"runner": {"session": "'$session'"},'
if ! cat >"$out.part" 2>/dev/null <<JSON
{"schema": "netproof/run/1", "status": "$status", $failure $runner
 "tool": {"name": "fake"}, "machine": {}, "started_at": "2026-01-01T00:00:00Z",
 "config": {"payload": $payload},
 "measurement": {"seconds": 1, "roundtrips_per_sec": $rps,
                 "rtt_us": {"p99": 12.5}, "cpu_percent": 99.5,
                 "rss_max_bytes": 4096000},
 "counters": {"lost": $lost}, "sockets": {"kernel_drops": $lost}}
JSON
then
  rm -f "$out.part"
  echo "fake bench: cannot write $out" >&2
  exit 3
fi
mv "$out.part" "$out" || exit 3
[ -n "${FAKE_BENCH_LOG-}" ] && echo "$out $session" >>"$FAKE_BENCH_LOG"
[ "$payload" = 8 ] && exec sleep 60
exit $code
