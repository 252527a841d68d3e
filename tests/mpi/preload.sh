#!/usr/bin/env bash
# Drop-in use: a PMPI interposition library from `collc --emit mpi-preload`
# (MPI_Bcast at 1000 bytes for every root, binomial; MPI_Allreduce of 400
# ints, reduce-scatter-allgather; MPI_Alltoall of 100-byte blocks, Bruck;
# MPI_Exscan of 50 ints, pipelined; on 4 ranks of the PC-cluster model)
# preloaded under an unmodified MPI program, under Open MPI.
#
#   preload.sh <collc> <srcdir> <workdir>
set -euo pipefail
collc=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work/json"
cd "$work"
m=$src/examples/machines/pc-cluster.yaml
for r in 0 1 2 3; do
  "$collc" --machine "$m" --collective bcast --ranks 4 \
    --root $r --bytes 1000 --algorithm binomial --emit json -o json/binomial-$r.json
done
"$collc" --machine "$m" --collective allreduce --ranks 4 --bytes 1600 \
  --algorithm reduce-scatter-allgather --emit json -o json/allreduce.json
"$collc" --machine "$m" --collective alltoall --ranks 4 --bytes 100 --algorithm bruck \
  --emit json -o json/alltoall.json
"$collc" --machine "$m" --collective exscan --ranks 4 --bytes 200 --algorithm pipelined \
  --emit json -o json/exscan.json
"$collc" $(printf -- "--schedule %s " json/*.json) --mpi-sizes exact \
  --emit mpi-preload --mpi-name preload -o preload.cpp
grep -q 'extern "C" int MPI_Bcast' preload.cpp
grep -q 'return PMPI_Bcast' preload.cpp
mpicxx.openmpi -std=c++17 -O2 -Wall -Wextra -Werror -fPIC -shared -I"$src/runtime" preload.cpp \
  -o libcollc_preload.so
mpicc.openmpi -O2 -Wall -Wextra -Werror "$src/tests/mpi/unmodified.c" -o unmodified
run=(mpirun.openmpi --allow-run-as-root --oversubscribe -np 4 -x COLLC_VERBOSE=1)
# Without the library: the MPI library's collectives, no word from collc.
"${run[@]}" ./unmodified > plain.out 2> plain.err
grep -q "results correct" plain.out
! grep -q "^collc:" plain.err
# With it: collc's schedules for 1000-byte broadcasts (one line per root),
# the allreduce, the all-to-all and the exscan; the 7-byte broadcasts fall
# back to PMPI_Bcast.
"${run[@]}" -x LD_PRELOAD="$PWD/libcollc_preload.so" ./unmodified > pre.out 2> pre.err
grep -q "results correct" pre.out || { cat pre.out pre.err; exit 1; }
n=$(grep -c "^collc: bcast 'binomial' on 4 ranks, 1000 bytes" pre.err || true)
[ "$n" = 4 ] || { echo "expected 4 collc broadcasts, saw $n"; cat pre.err; exit 1; }
for c in "allreduce 'reduce-scatter-allgather' on 4 ranks, 1600 bytes" \
  "alltoall 'bruck' on 4 ranks, 100 bytes" "exscan 'pipelined' on 4 ranks, 200 bytes"; do
  grep -q "^collc: $c" pre.err || { echo "collc did not serve: $c"; cat pre.err; exit 1; }
done
n=$(grep -c "^collc: no bcast schedule for 4 ranks and 7 bytes" pre.err || true)
[ "$n" = 4 ] || { echo "expected 4 fallbacks, saw $n"; cat pre.err; exit 1; }
echo "preload: 4 broadcasts, an allreduce, an all-to-all and an exscan by collc," \
  "4 broadcasts by the MPI library"
