#!/usr/bin/env bash
# The documented commands, run as a user would.
set -euo pipefail
collc=$1 src=$2
cd "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
ok() { pass=$((pass+1)); }
die() { echo "FAIL: $*"; exit 1; }

# The acceptance command of the foundation: makespan 135.
"$collc" --machine examples/machines/ibm-sp.yaml --collective bcast --ranks 9 \
  --bytes 0 --algorithm opt-tree --emit json > "$tmp/s.json"
grep -q '"makespan": 135,' "$tmp/s.json" || die "makespan is not 135"; ok
# The same from the request file and from the JSON machine.
"$collc" --machine examples/machines/ibm-sp.json --request examples/requests/bcast-9.yaml \
  --emit json -o "$tmp/s2.json"
cmp -s "$tmp/s.json" "$tmp/s2.json" || die "YAML and JSON machines differ"; ok
# Summary names the algorithm and the makespan.
"$collc" --machine examples/machines/ibm-sp.yaml --request examples/requests/bcast-9.yaml \
  > "$tmp/summary.txt"
grep -q '^makespan:   135$' "$tmp/summary.txt" || die "summary lacks the makespan"; ok
grep -q '^algorithm:  opt-tree$' "$tmp/summary.txt" || die "summary lacks the algorithm"; ok
# DOT renders without warnings.
"$collc" --machine examples/machines/ibm-sp.yaml --request examples/requests/bcast-9.yaml \
  --emit dot -o "$tmp/t.dot"
if command -v dot >/dev/null; then
  dot -Tsvg "$tmp/t.dot" -o "$tmp/t.svg" 2> "$tmp/dot.err"
  [ ! -s "$tmp/dot.err" ] || die "dot warned: $(cat "$tmp/dot.err")"
  grep -q '<svg' "$tmp/t.svg" || die "no SVG"; ok
fi
# Every bundled request compiles on every bundled machine it fits.
for m in examples/machines/*.yaml; do
  for r in examples/requests/bcast-*.yaml examples/requests/bcast-*.json examples/requests/multicast.yaml; do
    out=$("$collc" --machine "$m" --request "$r" --emit summary 2>&1) && ok ||
      { grep -q "error:" <<<"$out" || die "$m $r: $out"; }
  done
done
# --help and --version.
grep -q -- "--machine" <<<"$("$collc" --help)" || die "--help"; ok
grep -q "collc" <<<"$("$collc" --version)" || die "--version"; ok
grep -q "^opt-tree" <<<"$("$collc" --list-algorithms)" || die "--list-algorithms"; ok
# --time-passes and --print-after-all write to stderr only.
"$collc" --machine examples/machines/ibm-sp.yaml --request examples/requests/bcast-9.yaml \
  --time-passes --print-after-all --emit json > "$tmp/s3.json" 2> "$tmp/log"
cmp -s "$tmp/s.json" "$tmp/s3.json" || die "logging changed stdout"; ok
grep -q "IR after verify" "$tmp/log" || die "no IR dump"; ok
grep -q "pass timing" "$tmp/log" || die "no timing"; ok
# A topology of fixed size: without ranks or participants every node takes
# part (16x16 SEM: 256 ranks, 9 start-ups, no contention).
"$collc" --machine examples/machines/torus-16x16.yaml --collective alltoall --bytes 64 \
  --algorithm sem --emit summary --verify > "$tmp/sem.txt" || die "sem --verify on 16x16 failed"
grep -q '^ranks:      256$' "$tmp/sem.txt" || die "the torus's nodes are not all ranks"; ok
grep -q '^start-ups:  9$' "$tmp/sem.txt" || die "sem 16x16 does not take 9 start-ups"; ok
# ... but a crossbar of no fixed size still needs them.
"$collc" --machine examples/machines/ibm-sp.yaml --collective bcast --bytes 8 2> "$tmp/err" &&
  die "no ranks on ibm-sp accepted"
grep -q "missing key 'ranks' or 'participants'" "$tmp/err" || die "wrong message: $(cat "$tmp/err")"; ok
# --verify judges every backend, the multi-file ti-trace included: a failed
# check writes nothing (exit 2).
for emit in summary json ti-trace; do
  rm -f "$tmp/naive-$emit"*
  "$collc" --machine examples/machines/mesh-6x6.yaml \
    --request examples/requests/multicast-6x6-naive.yaml --algorithm opt-tree \
    --emit $emit -o "$tmp/naive-$emit" --verify 2> "$tmp/err" && die "--emit $emit --verify passed contention"
  [ $? -eq 2 ] || die "--emit $emit --verify: status other than 2"
  grep -q "conflicting pair" "$tmp/err" || die "--emit $emit --verify: no report"
  ! ls "$tmp/naive-$emit"* >/dev/null 2>&1 || die "--emit $emit --verify wrote a file after failing"; ok
done
# ... and an existing file stays as it was.
echo keep > "$tmp/keep"
"$collc" --machine examples/machines/mesh-6x6.yaml \
  --request examples/requests/multicast-6x6-naive.yaml --algorithm opt-tree \
  -o "$tmp/keep" --verify 2> /dev/null && die "--verify passed contention"
[ "$(cat "$tmp/keep")" = keep ] || die "--verify replaced the output after failing"; ok
echo "$pass passed, 0 failed"
