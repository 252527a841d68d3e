#!/usr/bin/env bash
# MPI-4's large-count collectives (MPI_Bcast_c and kin) under the MPICH
# build of the drop-in library (tests/mpi/large_count.c): every result must
# equal the MPI library's own int-count call, and with COLLC_VERBOSE=1 collc
# must say of every call, in each of its three forms, that it served it
# (none passed on). With "big", one broadcast of more than INT_MAX bytes.
#
#   large_count.sh <libdir> <srcdir> <workdir> <ranks> [big]
set -euo pipefail
lib=$1 src=$2 work=$3 p=$4 mode=${5:-}
source "$src/tests/mpi/ranks.sh"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
dropin_program mpich "$lib" "$src" "$src/tests/mpi/large_count.c" large_count "$p"
fail() { echo "large_count.sh ($p ranks${mode:+, $mode}): $*"; tail -n 30 out err 2>/dev/null || true; exit 1; }
# MPICH 4.0.2's own persistent collectives are wrong on a second start
# (large_count.c), so the program runs under the drop-in only: its
# references are the library's int-count calls.
launch 600 preload $mode > out 2> err || fail "the program failed under the library"
[ "$(grep -c '^large_count: results correct$' out || true)" = "$p" ] || fail "wrong results under the library"
counts=$(sed -n 's/^large_count: \([0-9]*\) blocking, \([0-9]*\) non-blocking, \([0-9]*\) persistent, \([0-9]*\) starts$/\1 \2 \3 \4/p' out)
[ -n "$counts" ] || fail "the program did not count its calls"
read -r blocking nonblocking persistent starts <<< "$counts"
colls='(bcast|reduce|allreduce|scan|exscan|gather|scatter|allgather|alltoall|reduce_scatter_block)'
said() { grep -cE "$1" err || true; }
b=$(said "^collc: ${colls}_c as $colls '")
n=$(said "^collc: i${colls}_c as i$colls '")
i=$(said "^collc: ${colls}_init_c as ${colls}_init '")
s=$(said "^collc: MPI_Start of ${colls}_init_c as ${colls}_init '")
passed=$(said "of the MPI library runs")
[ "$passed" = 0 ] || fail "$passed calls passed to the MPI library: $(grep -m 3 'of the MPI library runs' err)"
! grep -q "^collc: error" err || fail "collc reported errors"
[ "$b" = "$blocking" ] || fail "$blocking blocking calls, $b reported served"
[ "$n" = "$nonblocking" ] || fail "$nonblocking non-blocking calls, $n reported served"
[ "$i" = "$persistent" ] || fail "$persistent persistent calls made, $i reported served"
[ "$s" = "$starts" ] || fail "$starts persistent starts, $s reported served"
echo "large_count (mpich, $p ranks${mode:+, $mode}): $blocking blocking, $nonblocking non-blocking, $persistent persistent calls ($starts starts) of the _c forms served by collc, results equal to the library's"
