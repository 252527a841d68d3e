#!/usr/bin/env bash
# Meshes from the command line: paper 000's 6x6 worked example, the
# contention verdict of --verify, --emit contention, --merge-steps and the
# mesh drawing.
set -uo pipefail
collc=$1 src=$2
cd "$src" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
ok() { pass=$((pass+1)); }
die() { echo "FAIL: $*"; exit 1; }
mesh=examples/machines/mesh-6x6.yaml

# The acceptance command: OPT-mesh on the paper's example, makespan 130,
# exit 0 under --verify.
"$collc" --machine $mesh --request examples/requests/multicast-6x6.yaml \
  --algorithm opt-mesh --emit json --verify > "$tmp/opt.json" 2> "$tmp/opt.err"
rc=$?
[ $rc -eq 0 ] || die "opt-mesh --verify exited $rc: $(cat "$tmp/opt.err")"; ok
grep -q '"makespan": 130,' "$tmp/opt.json" || die "opt-mesh makespan is not 130"; ok
[ ! -s "$tmp/opt.err" ] || die "opt-mesh printed on stderr"; ok
# U-mesh: 165, also contention-free.
"$collc" --machine $mesh --request examples/requests/multicast-6x6.yaml \
  --algorithm u-mesh --emit json --verify > "$tmp/u.json" || die "u-mesh --verify failed"
grep -q '"makespan": 165,' "$tmp/u.json" || die "u-mesh makespan is not 165"; ok

# Naive placement of a colliding group: exit 2, naming the channel.
"$collc" --machine $mesh --request examples/requests/multicast-6x6-naive.yaml \
  --emit json --verify > "$tmp/naive.json" 2> "$tmp/naive.err"
rc=$?
[ $rc -eq 2 ] || die "naive placement exited $rc, expected 2"; ok
grep -q 'channel (3,2)->(2,2): ' "$tmp/naive.err" || die "no channel named: $(cat "$tmp/naive.err")"; ok
grep -q 'rank 0 (3,2) -> rank 1 (1,3) \[60, 115)' "$tmp/naive.err" || die "first transfer not named"; ok
grep -q 'rank 5 (4,2) -> rank 6 (2,5) \[75, 130)' "$tmp/naive.err" || die "second transfer not named"; ok
grep -q 'overlap \[75, 115)' "$tmp/naive.err" || die "overlap not given"; ok
# The same group placed by OPT-mesh: clean.
"$collc" --machine $mesh --request examples/requests/multicast-6x6-naive.yaml \
  --algorithm opt-mesh --emit contention --verify > "$tmp/c.txt" || die "opt-mesh collides"
grep -q 'contention-free' "$tmp/c.txt" || die "--emit contention lacks the verdict"; ok
# auto prefers the contention-free optimum.
"$collc" --machine $mesh --request examples/requests/multicast-6x6-naive.yaml \
  --algorithm auto --verify > "$tmp/auto.txt" || die "auto picked a schedule with contention"; ok

# --merge-steps says how many steps it removed; the result still verifies.
"$collc" --machine $mesh --collective bcast --ranks 36 --root 20 --bytes 64 \
  --algorithm opt-mesh --merge-steps --verify > /dev/null 2> "$tmp/merge.err" \
  || die "merge-steps run failed"
grep -q '^collc: note: merge-steps removed [0-9]* of [0-9]* steps$' "$tmp/merge.err" \
  || die "merge-steps did not report: $(cat "$tmp/merge.err")"; ok

# A hand-written schedule of three one-transfer steps on a 2x2 corner of the
# mesh: the second and third touch disjoint ranks and channels and merge.
"$collc" --schedule tests/inputs/mesh/three-steps.json --machine $mesh \
  --merge-steps --emit json -o "$tmp/merged.json" 2> "$tmp/merged.err" \
  || die "--schedule --merge-steps failed: $(cat "$tmp/merged.err")"
grep -q '^collc: note: merge-steps removed 1 of 3 steps$' "$tmp/merged.err" \
  || die "expected one step removed: $(cat "$tmp/merged.err")"; ok
[ "$(grep -c '"transfers"' "$tmp/merged.json")" -eq 2 ] || die "merged schedule has not 2 steps"; ok
"$collc" --schedule "$tmp/merged.json" --machine $mesh --emit contention --verify \
  > "$tmp/merged.txt" || die "merged schedule fails verification or contention"; ok

# The drawing: grid positions, paths hop by hop, renders with neato -n.
"$collc" --machine $mesh --request examples/requests/multicast-6x6.yaml \
  --emit dot -o "$tmp/m.dot" || die "--emit dot failed"
grep -q 'n20 \[pos="144,144!"' "$tmp/m.dot" || die "(3,2) is not at its grid position"; ok
# (4,4) -> (5,1) is drawn hop by hop: (4,4) (5,4) (5,3) (5,2) (5,1).
for hop in 'n28 -> n34' 'n34 -> n33' 'n33 -> n32' 'n32 -> n31'; do
  grep -q "$hop " "$tmp/m.dot" || die "hop $hop missing"
done; ok
if command -v neato >/dev/null; then
  neato -n -Tsvg "$tmp/m.dot" -o "$tmp/m.svg" 2> "$tmp/neato.err" || die "neato failed"
  [ ! -s "$tmp/neato.err" ] || die "neato warned: $(cat "$tmp/neato.err")"; ok
fi
echo "mesh CLI: $pass checks passed"
