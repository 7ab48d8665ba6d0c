#!/usr/bin/env bash
# End to end: anydnn's own API-call logs (conv, bnorm, activ, softmax and pool processes writing
# one file at once, lines interleaved) and an RNN command line -> MIOpenDriver decode -> the
# expected commands with counts -> decode --replay runs each with -V 1 -t 1 and every one
# verifies.
set -euo pipefail
drv=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MIOPEN_USER_DB_PATH=$tmp/db
log=$tmp/log
MIOPEN_ENABLE_LOGGING=1 MIOPEN_ENABLE_LOGGING_MPMT=1 "$drv" conv -n 2 -c 4 -H 9 -W 9 -k 6 -y 3 \
  -x 3 -p 1 -q 1 -u 2 -v 2 -g 2 -V 0 -i 2 > /dev/null 2>> "$log" &
MIOPEN_ENABLE_LOGGING=1 MIOPEN_ENABLE_LOGGING_MPMT=1 "$drv" bnorm -n 2 -c 3 -H 5 -W 5 -m 1 \
  --forw 1 -b 0 -s 1 -r 1 -V 0 > /dev/null 2>> "$log" &
MIOPEN_ENABLE_LOGGING=1 MIOPEN_ENABLE_LOGGING_MPMT=1 "$drv" activ -n 2 -c 3 -H 5 -W 6 -m 9 \
  -A 0.5 -V 0 -i 1 > /dev/null 2>> "$log" &
MIOPEN_ENABLE_LOGGING=1 MIOPEN_ENABLE_LOGGING_MPMT=1 "$drv" softmax -n 2 -c 3 -H 5 -W 6 -a 2 \
  -m 0 -V 0 -i 1 > /dev/null 2>> "$log" &
MIOPEN_ENABLE_LOGGING=1 MIOPEN_ENABLE_LOGGING_MPMT=1 "$drv" lrn -n 2 -c 3 -H 5 -W 6 -m cross \
  -A 0.5 -V 0 -i 1 > /dev/null 2>> "$log" &
MIOPEN_ENABLE_LOGGING=1 MIOPEN_ENABLE_LOGGING_MPMT=1 "$drv" reduce -D 3,4,5 -R 0,2 -O 3 -N 1 \
  -I 1 -V 0 -i 1 > /dev/null 2>> "$log" &
MIOPEN_ENABLE_LOGGING=1 MIOPEN_ENABLE_LOGGING_MPMT=1 "$drv" pool -W 2x3x7x9,NHWC -y 3 -x 2 \
  -p 1 -q 0 -v 2 -u 2 -m avg -V 0 -i 1 > /dev/null 2>> "$log" &
wait
MIOPEN_ENABLE_LOGGING_CMD=1 "$drv" rnn -n 4,3 -W 6 -H 8 -l 1 -m lstm -k 2 -F 1 -V 0 2>> "$log" \
  > /dev/null
MIOPEN_ENABLE_LOGGING_CMD=1 "$drv" ctc -n 3 -c 6 -b 2 -m 0 -l 3,2,4 -k 10,8,12 -V 0 2>> "$log" \
  > /dev/null
printf 'some unrelated line\n}\n= =\n' >> "$log"

"$drv" decode "$log" > "$tmp/decoded"
cat "$tmp/decoded"
expect() {
  grep -qF -- "$1" "$tmp/decoded" || { echo "missing: $1"; exit 1; }
}
conv="conv -n 2 -c 4 -H 9 -W 9 -k 6 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -l 1 -j 1 --in_layout NCHW --fil_layout NCHW --out_layout NCHW -m conv -g 2"
for f in 1 2 4; do expect "$conv -F $f"; done
expect "bnorm -n 2 -c 3 -H 5 -W 5 -m 1 --forw 1 -b 0 -s 1 -r 1 --layout NCHW"
expect "rnn -n 4,3 -W 6 -H 8 -l 1 -b 0 -m lstm"
for f in 1 2; do expect "activ -n 2 -c 3 -H 5 -W 6 -m 9 --forw $f -A 0.5 -B 1 -G 1"; done
expect "ctc -a 0 -b 2 -c 6 -m 0 -n 3 -l 3,2,4 -k 10,8,12"
for f in 1 2; do expect "softmax -n 2 -c 3 -H 5 -W 6 -F $f -a 2 -m 0 -A 1.000000 -B 0.000000"; done
for f in 1 2; do expect "lrn -A 0.5 -B 0.75 -F $f -H 5 -K 1 -N 5 -W 6 -c 3 -m 1 -n 2"; done
expect "reduce -A 1 -B 0 -C 1 -D 3,4,5 -I 1 -N 1 -O 3 -R 0,2"
# The pooling blocks: x's NHWC strides become the layout name, so y follows it on replay.
pool="pool -M 0 --input 2x3x7x9,NHWC -y 3 -x 2 -p 1 -q 0 -v 2 -u 2 -m avg"
for f in 1 0; do expect "$pool -F $f"; done
# -i 2: the forward runs Find once and the forward call twice (plus a warm-up).
grep -qE "^ +[3-9] +$conv -F 1" "$tmp/decoded" || { echo "forward count wrong"; exit 1; }

"$drv" decode --replay "$log" > "$tmp/table"
cat "$tmp/table"
rows=$(grep '^| [a-z]' "$tmp/table" | grep -vc '^| command' || true)
ok=$(grep -c '| yes |$' "$tmp/table" || true)
[ "$rows" -ge 12 ] && [ "$rows" -eq "$ok" ] || { echo "replay: $ok of $rows verified"; exit 1; }
echo "decode_replay: $rows commands decoded, replayed and verified"
