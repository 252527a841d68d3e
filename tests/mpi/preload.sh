#!/usr/bin/env bash
# Drop-in use: a PMPI interposition library from `collc --emit mpi-preload`
# (MPI_Bcast at 1000 bytes for every root, MPI_Allreduce of 400 ints, on 4
# ranks) preloaded under an unmodified MPI program, under Open MPI.
#
#   preload.sh <collc> <collc-handbuilt> <srcdir> <workdir>
set -euo pipefail
collc=$1 handbuilt=$2 src=$3 work=$4
rm -rf "$work"
mkdir -p "$work/json"
cd "$work"
for r in 0 1 2 3; do
  "$collc" --machine "$src/examples/machines/pc-cluster.yaml" --collective bcast --ranks 4 \
    --root $r --bytes 1000 --algorithm binomial --emit json -o json/binomial-$r.json
done
"$handbuilt" 4 0 json
"$collc" $(printf -- "--schedule %s " json/binomial-*.json json/allreduce-*.json) --mpi-sizes exact \
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
# With it: collc's schedules for 1000-byte broadcasts (one line per root) and
# the allreduce; the 7-byte broadcasts fall back to PMPI_Bcast.
"${run[@]}" -x LD_PRELOAD="$PWD/libcollc_preload.so" ./unmodified > pre.out 2> pre.err
grep -q "results correct" pre.out || { cat pre.out pre.err; exit 1; }
n=$(grep -c "^collc: bcast 'binomial' on 4 ranks, 1000 bytes" pre.err || true)
[ "$n" = 4 ] || { echo "expected 4 collc broadcasts, saw $n"; cat pre.err; exit 1; }
grep -q "^collc: allreduce 'hand-ring' on 4 ranks, 1600 bytes" pre.err ||
  { echo "the allreduce did not run collc's schedule"; cat pre.err; exit 1; }
n=$(grep -c "^collc: no bcast schedule for 4 ranks and 7 bytes" pre.err || true)
[ "$n" = 4 ] || { echo "expected 4 fallbacks, saw $n"; cat pre.err; exit 1; }
echo "preload: 4 broadcasts and 1 allreduce by collc, 4 broadcasts by the MPI library"
