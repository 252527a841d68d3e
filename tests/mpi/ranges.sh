#!/usr/bin/env bash
# One collc command covers a program: a preload library from
# `--ranks 1:8 --root all --bytes-range 0:1048576` and a list of every
# collective, run under an unmodified program (subcomms.c) that calls them on
# sub-communicators of sizes 1..8 with every root and counts from 0 to 50000,
# under Open MPI. COLLC_VERBOSE must show every call served by a schedule
# (none passed to the MPI library), and the results must be right.
#
#   ranges.sh <collc> <srcdir> <workdir>
set -euo pipefail
collc=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"
colls=bcast,reduce,gather,scatter,allreduce,scan,exscan,allgather,alltoall,barrier
start=$(date +%s.%N)
"$collc" --machine "$src/examples/machines/pc-cluster.yaml" --collective $colls \
  --ranks 1:8 --root all --bytes-range 0:1048576 --emit mpi-preload \
  --mpi-name subcomms -o preload.cpp
end=$(date +%s.%N)
n=$(grep -c ", serves " preload.cpp || true)
echo "ranges: one collc command, $n schedules, $(awk "BEGIN {printf \"%.2f\", $end - $start}") s"
# Every band's schedule serves its band: the comment says which sizes.
grep -q "serves 0\.\." preload.cpp
! grep -q "serves exactly" preload.cpp
mpicxx.openmpi -std=c++17 -O2 -Wall -Wextra -Werror -fPIC -shared -I"$src/runtime" \
  preload.cpp -o libcollc_subcomms.so
mpicc.openmpi -O2 -Wall -Wextra -Werror "$src/tests/mpi/subcomms.c" -o subcomms
run=(timeout 600 mpirun.openmpi --allow-run-as-root --oversubscribe -np 8 -x COLLC_VERBOSE=1)
"${run[@]}" -x LD_PRELOAD="$PWD/libcollc_subcomms.so" ./subcomms > out 2> err ||
  { cat out err | tail -20; exit 1; }
grep -q "subcomms: results correct" out || { cat out; tail err; exit 1; }
calls=$(sed -n 's/.*, \([0-9]*\) collective calls on rank 0/\1/p' out)
served=$(grep -c "^collc: [a-z]* '[^']*' on [0-9]* ranks, [0-9]* bytes" err || true)
passed=$(grep -c "of the MPI library runs\|^collc: no " err || true)
[ "$passed" = 0 ] || { echo "ranges: $passed calls passed to the MPI library"; grep "of the MPI library runs" err | head; exit 1; }
[ -n "$calls" ] && [ "$served" = "$calls" ] ||
  { echo "ranges: $served calls served by collc, expected $calls"; exit 1; }
for k in 1 2 3 4 5 6 7 8; do
  grep -q "^collc: bcast '[^']*' on $k ranks" err || { echo "ranges: no broadcast on $k ranks"; exit 1; }
done
echo "ranges: all $calls collective calls of subcomms (sizes 1..8, every root) served by collc"
