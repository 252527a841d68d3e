#!/usr/bin/env bash
# The arenas' launch limits (bench/mpi/arena-lib.sh, arena_run): a launch
# that computes past its CPU time (cpu_secs) and one that hangs past its wall
# time both end as "-" after the rows they printed, long before the other
# limit; one that ends keeps its rows and nothing more. Exits 77 (skipped)
# without smpicc.
#
#   arena_limits.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1 work=$2
command -v smpicc > /dev/null || { echo "arena-limits: no smpicc; skipped"; exit 77; }
mkdir -p "$work"
. "$src/bench/mpi/arena-lib.sh"
fail() { echo "arena-limits: $*"; exit 1; }
smpicc -O1 "$src/tests/bench/arena_spin.c" -o "$work/spin" 2> "$work/build.log" ||
  { cat "$work/build.log"; exit 1; }
cat > "$work/p.xml" << 'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us"/>
</platform>
XML
printf 'node-0\nnode-1\n' > "$work/p.hosts"
# launch <wall s> <what>: the rows and mark, and the wall time it took.
launch() {
  local t0=$SECONDS
  arena_run "$work/p.xml" "$work/p.hosts" 2 "$1" "$work/spin" "$2" > "$work/rows"
  took=$((SECONDS - t0))
  rows=$(tr '\n' ' ' < "$work/rows")
}
cpu_secs=2
launch 120 spin
[ "$rows" = "1 2.5 - " ] || fail "out of CPU time: expected '1 2.5 - ', got '$rows'"
[ "$took" -lt 60 ] || fail "out of 2 s of CPU time, the launch took $took s of wall time"
launch 3 sleep
[ "$rows" = "1 2.5 - " ] || fail "hung: expected '1 2.5 - ', got '$rows'"
[ "$took" -lt 60 ] || fail "hung past 3 s of wall time, the launch took $took s"
launch 120 done
[ "$rows" = "1 2.5 " ] || fail "ended: expected '1 2.5 ', got '$rows'"
echo "arena-limits: CPU time, wall time and a clean end as expected"
