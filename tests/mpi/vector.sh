#!/usr/bin/env bash
# MPI's collectives that are no collective of collc's, under the drop-in
# library (tests/mpi/vector.c: MPI_Allgatherv, MPI_Gatherv, MPI_Scatterv,
# MPI_Alltoallv, MPI_Alltoallw, MPI_Reduce_scatter(_block) and the
# neighborhood collectives, in their forms, equal and unequal counts, in
# place and not, on MPI_COMM_WORLD and a split communicator). The program
# checks its results without the library and under it; with COLLC_VERBOSE=1
# collc must say of every call the program made as rank 0 of a communicator
# exactly what the program expects: MPI_Allgatherv with equal counts served as
# an allgather (`collc: allgatherv as allgather '...'`, and its non-blocking
# and persistent forms, but under SMPI, which has no MPI_Comm_idup),
# MPI_Reduce_scatter_block served (`collc: reduce_scatter_block '...'`) and
# MPI_Reduce_scatter with equal counts served as it, every
# other call handed to the MPI library with the reason ir/MpiEntries.h gives
# for it.
#
# With a seed (a number, or `random`: one drawn and printed), the program
# draws each round's counts, gaps and root from it.
#
#   vector.sh openmpi|mpich|smpi <libdir> <srcdir> <workdir> <ranks> <rounds> [seed]
set -euo pipefail
flavor=$1 lib=$2 src=$3 work=$4 p=$5 rounds=$6 seed=${7:-0}
[ "$seed" != random ] || seed=$((RANDOM * 32768 + RANDOM + 1))
[ "$seed" = 0 ] || echo "vector.sh: seed $seed"
source "$src/tests/mpi/ranks.sh"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
dropin_program "$flavor" "$lib" "$src" "$src/tests/mpi/vector.c" vector "$p"
fail() { echo "vector.sh ($flavor, $p ranks): $*"; tail -n 30 out err 2>/dev/null || true; exit 1; }
correct() { [ "$(grep -c '^vector: results correct$' "$1" || true)" = "$p" ]; }
launch 120 plain "$rounds" "$seed" > plain.out 2> plain.err || fail "the program failed without the library"
correct plain.out || fail "wrong results without the library"
! grep -q "^collc:" plain.err || fail "collc spoke without the library"
launch 120 preload "$rounds" "$seed" > out 2> err || fail "the program failed under the library"
correct out || fail "wrong results under the library"
! grep -q "^collc: error" err || fail "collc reported errors"
# What the program expects, and what collc said, call by call (sorted).
sed -n 's/^vector: expect served //p' out | sort > want.served
sed -n 's/^vector: expect passed //p' out | sort > want.passed
sed -nE "s/^collc: (MPI_Start of )?([a-z_]+)( as [a-z_]+)? '.*/\1\2/p" err | sort > got.served
sed -nE 's/^collc: .*; (MPIX?_[A-Za-z_]+) of the MPI library runs$/\1/p' err | sort > got.passed
diff want.served got.served > served.diff || fail "served calls differ (expected < > said): $(head -n 5 served.diff)"
diff want.passed got.passed > passed.diff || fail "passed calls differ (expected < > said): $(head -n 5 passed.diff)"
# Each passed call with its reason (an extended regular expression).
reason() {
  case $1 in
    MPI_*neighbor_*|MPI_Neighbor_*) echo "the neighbours of a Cartesian or graph topology" ;;
    MPI_Iallgatherv) # under SMPI, those with equal counts for want of MPI_Comm_idup
      [ "$flavor" = smpi ] && echo "(SMPI 3.32 has no MPI_Comm_idup|the counts differ by rank)" && return
      echo "the counts differ by rank" ;;
    MPI_Allgatherv) echo "the counts differ by rank" ;;
    MPI_I*gatherv|MPI_*scatterv|MPI_Gatherv) echo "only the root knows the counts" ;;
    MPI_*lltoallv|MPI_*lltoallw) echo "each rank knows only its own counts" ;;
    MPI_Ireduce_scatter_block) echo "SMPI 3.32 has no MPI_Comm_idup" ;;
    MPI_Reduce_scatter) echo "the counts differ by rank" ;;
    *) echo "no reason known for $1" ;;
  esac
}
while read -r fn; do
  why=$(reason "$fn")
  n=$(grep -cF "$fn of the MPI library runs" err || true)
  m=$(grep -F "$fn of the MPI library runs" err | grep -cE "^collc: $why" || true)
  [ "$n" = "$m" ] || fail "$fn: $n calls passed on, $m with the reason '$why'"
done < <(uniq want.passed)
echo "vector ($flavor, $p ranks, $rounds rounds, seed $seed): $(wc -l < want.served) calls served, $(wc -l < want.passed) passed on with their reasons, results correct"
