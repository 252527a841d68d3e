#!/usr/bin/env bash
# Reductions on MPI's pair types (MPI_MINLOC, MPI_MAXLOC) under the drop-in
# library (tests/mpi/pairs.c): every result must equal the MPI library's
# own, and with COLLC_VERBOSE=1 collc must say of every call that it served
# it (none passed on).
#
#   pairs.sh openmpi|mpich <libdir> <srcdir> <workdir> <ranks>
set -euo pipefail
flavor=$1 lib=$2 src=$3 work=$4 p=$5
source "$src/tests/mpi/ranks.sh"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
dropin_program "$flavor" "$lib" "$src" "$src/tests/mpi/pairs.c" pairs "$p"
fail() { echo "pairs.sh ($flavor, $p ranks): $*"; tail -n 30 out err 2>/dev/null || true; exit 1; }
correct() { [ "$(grep -c '^pairs: results correct$' "$1" || true)" = "$p" ]; }
launch 300 plain > plain.out 2> plain.err || fail "the program failed without the library"
correct plain.out || fail "wrong results without the library"
launch 300 preload > out 2> err || fail "the program failed under the library"
correct out || fail "wrong results under the library"
calls=$(sed -n 's/^pairs: \([0-9]*\) calls$/\1/p' out)
served=$(grep -cE "^collc: (reduce|allreduce|scan|exscan|reduce_scatter_block) '" err || true)
passed=$(grep -c "of the MPI library runs" err || true)
[ "$passed" = 0 ] || fail "$passed calls passed to the MPI library: $(grep -m 3 'of the MPI library runs' err)"
[ -n "$calls" ] && [ "$served" = "$calls" ] || fail "$served calls served by collc, expected $calls"
echo "pairs ($flavor, $p ranks): all $calls reductions on pair types served by collc, results equal to the library's"
