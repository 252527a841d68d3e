#!/usr/bin/env bash
# scripts/testbed without making anything (`plan`, no root needed):
#  - every mistake in the options is one line `testbed: error: ...` saying
#    what was expected, status 1, and no machine file;
#  - on random draws of every topology, node count, leaf size, uplinks and
#    rate, the machine `plan` writes is one collc reads and builds on, with
#    the rates asked for (bytes per µs = Mbit/s / 8);
#  - on random rings and tori the testbed's static routes are collc's routes
#    for that machine, hop for hop (collc-netcheck routes FILE);
#  - bench/testbed/table.py picks the fastest Open MPI variant of a cell and
#    compares two runs.
#
#   cli.sh <collc> <collc-netcheck> <srcdir> <workdir> [seed]
set -euo pipefail
collc=$1 netcheck=$2 src=$3 work=$4 seed=${5:-$RANDOM}
tb=$src/scripts/testbed
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "testbed cli (seed $seed): $*"; exit 1; }

bad() { # bad <expected message> <plan options...>
  local want=$1 rc=0
  shift
  rm -f m.yaml
  "$tb" plan "$@" --machine m.yaml > out 2> err || rc=$?
  [ "$rc" = 1 ] || fail "plan $*: status $rc, expected 1"
  [ "$(cat err)" = "testbed: error: $want" ] || fail "plan $*: said '$(cat err)', expected '$want'"
  [ ! -e m.yaml ] || fail "plan $*: wrote a machine file"
}
bad "--nodes: expected 2 to 32 nodes, got 1" --nodes 1
bad "--nodes: expected 2 to 32 nodes, got 33" --nodes 33
bad "--node-rate: expected a rate such as 100mbit or 1gbit (a number, then bit, kbit, mbit or gbit), got 'fast'" --node-rate fast
bad "--node-rate: expected a rate from 100kbit to 100gbit, got '1bit'" --node-rate 1bit
bad "--uplink-rate: expected a rate such as 100mbit or 1gbit (a number, then bit, kbit, mbit or gbit), got '5 mbit'" --topology tree --nodes 8 --uplink-rate '5 mbit'
bad "argument --uplink-rate: expected one argument (scripts/testbed --help)" --topology tree --nodes 8 --uplink-rate -5mbit
bad "--per-leaf: expected a divisor of --nodes 8 below it (nodes per leaf switch), got 3" --topology tree --nodes 8 --per-leaf 3
bad "--per-leaf: expected a divisor of --nodes 8 below it (nodes per leaf switch), got 8" --topology tree --nodes 8 --per-leaf 8
bad "--uplinks: expected 1 to 64 uplinks per leaf, got 0" --topology tree --nodes 8 --uplinks 0
bad "--topology torus2d needs --dims RxC (rows x columns, each at least 3)" --topology torus2d --nodes 9
bad "--dims: expected RxC such as 3x4, got '3by3'" --topology torus2d --nodes 9 --dims 3by3
bad "--dims 3x5 holds 15 nodes, --nodes is 12" --topology torus2d --nodes 12 --dims 3x5
bad "torus2d: every extent must be at least 3 (got 2x4); use --topology switch for 2 nodes" --topology torus2d --nodes 8 --dims 2x4
bad "ring: every extent must be at least 3 (got 2); use --topology switch for 2 nodes" --topology ring --nodes 2
bad "--gso-segs: expected 1 to 64 frames per packet, got 0" --gso-segs 0
bad "--name: expected a lower-case letter, then up to 11 letters or digits, got 'Bad!'" --name 'Bad!'
bad "argument --nodes: invalid int value: 'many' (scripts/testbed --help)" --nodes many
bad "argument --topology: invalid choice: 'star' (choose from 'switch', 'tree', 'ring', 'torus2d') (scripts/testbed --help)" --topology star
bad "plan --routes: the routes of a switch or tree are its bridges'" --routes
echo "testbed cli: 19 bad option sets refused"

# Random draws of every topology.
RANDOM=$seed
bw() { awk -v c="$2" '$0 ~ "class: " c "," { sub(/.*bandwidth: /, ""); sub(/,.*/, ""); print }' "$1"; }
for i in $(seq 1 24); do
  rate=$((RANDOM % 990 + 10)) lat=$((RANDOM % 50 + 1))
  case $((i % 4)) in
    0) topo=switch n=$((RANDOM % 31 + 2)); opts=() ;;
    1) topo=tree
       while :; do n=$((RANDOM % 31 + 2)) k=$((RANDOM % (n - 1) + 1)); [ $((n % k)) = 0 ] && break; done
       u=$((RANDOM % 4 + 1)) up=$((RANDOM % 990 + 10))
       opts=(--per-leaf "$k" --uplinks "$u" --uplink-rate "${up}mbit") ;;
    2) topo=ring n=$((RANDOM % 30 + 3)); opts=() ;;
    3) topo=torus2d r=$((RANDOM % 3 + 3)); c=$((RANDOM % (32 / r - 2) + 3)) n=$((r * c)); opts=(--dims "${r}x$c") ;;
  esac
  what="$topo, $n nodes, ${rate}mbit ${opts[*]}"
  "$tb" plan --topology "$topo" --nodes "$n" --node-rate "${rate}mbit" "${opts[@]}" --latency "$lat" \
    --machine m.yaml || fail "$what: plan failed"
  "$collc" --machine m.yaml --collective bcast --ranks "$n" --bytes $((RANDOM * 64)) > out 2> err ||
    fail "$what: collc cannot build on the machine: $(cat err)"
  "$collc" --machine m.yaml --collective allreduce --ranks "$n" --bytes 4096 --algorithm nearest-halving > out 2> err ||
    fail "$what: collc cannot build an allreduce on the machine: $(cat err)"
  want=$(awk -v r="$rate" 'BEGIN { printf "%.6g", r / 8 }')
  case $topo in
    switch) got=$(bw m.yaml private) ;;
    tree) got=$(bw m.yaml level-1)
          w2=$(awk -v r="$up" -v u="$u" 'BEGIN { printf "%.6g", r * u / 8 }')
          [ "$(bw m.yaml level-2)" = "$w2" ] || fail "$what: uplinks of $(bw m.yaml level-2) bytes/us, expected $w2" ;;
    *) got=$(bw m.yaml link)
       "$tb" plan --topology "$topo" --nodes "$n" "${opts[@]}" --routes > testbed-routes.txt
       "$netcheck" routes m.yaml > collc-routes.txt
       cmp -s testbed-routes.txt collc-routes.txt ||
         { diff testbed-routes.txt collc-routes.txt | head -5; fail "$what: the testbed routes otherwise than collc"; }
       [ "$(wc -l < collc-routes.txt)" = $((n * (n - 1))) ] || fail "$what: not every route compared" ;;
  esac
  [ "$got" = "$want" ] || fail "$what: links of $got bytes/us, expected $want"
done
# bench/testbed/table.py: the fastest Open MPI variant of a cell is the one
# with the lowest median (a pruned one is never it), and --against puts two
# runs side by side.
mkdir -p run-a run-b
printf '%s\n' "cell bcast 4 1048576 collc 300 290 310 5" "cell bcast 4 1048576 ompi:default 600 590 610 5" \
  "cell bcast 4 1048576 ompi:binomial 200 190 210 5" "pruned bcast 4 1048576 ompi:linear 100" > run-a/cells-switch-4.txt
sed 's/collc 300/collc 150/' run-a/cells-switch-4.txt > run-b/cells-switch-4.txt
python3 "$src/bench/testbed/table.py" run-a > table.txt || fail "table.py failed"
grep -qF "| bcast | 1 MiB | 300 (?) | 600 | 200 (binomial) | 0.50 | 1.50 |" table.txt ||
  { cat table.txt; fail "table.py: wrong row"; }
python3 "$src/bench/testbed/table.py" run-a --against run-b > table.txt || fail "table.py --against failed"
grep -qF "| bcast | 1 MiB | 1.50 (0.50) | 0.75 (0.25) |" table.txt || { cat table.txt; fail "table.py --against: wrong row"; }
! python3 "$src/bench/testbed/table.py" run-a --against no-such-dir > /dev/null 2> err || fail "table.py --against a missing run succeeded"
grep -q "^table.py: no configuration in both" err || fail "table.py: no message for a missing run"
echo "testbed cli: 24 random testbeds (seed $seed): machines collc builds on, rates as asked, ring and torus routes equal to collc's"
