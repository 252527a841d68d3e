#!/usr/bin/env bash
# MPI-4's large-count vector collectives (MPI_Allgatherv_c and kin) under
# the MPICH build of the drop-in library (tests/mpi/large_count_vector.c):
# every result must equal the MPI library's own int-count call, and with
# COLLC_VERBOSE=1 collc must say of every call, in each of its three forms,
# that it served it (MPI_Allgatherv_c and MPI_Reduce_scatter_c whose counts
# allow it) or passed it on with its reason (the others).
#
#   large_count_vector.sh <libdir> <srcdir> <workdir> <ranks>
set -euo pipefail
lib=$1 src=$2 work=$3 p=$4
source "$src/tests/mpi/ranks.sh"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
dropin_program mpich "$lib" "$src" "$src/tests/mpi/large_count_vector.c" large_count_vector "$p"
fail() { echo "large_count_vector.sh ($p ranks): $*"; tail -n 30 out err 2>/dev/null || true; exit 1; }
launch 300 preload > out 2> err || fail "the program failed under the library"
[ "$(grep -c '^large_count_vector: results correct$' out || true)" = "$p" ] || fail "wrong results under the library"
counts=$(sed -n 's/^large_count_vector: \([0-9]*\) served, \([0-9]*\) passed on$/\1 \2/p' out)
[ -n "$counts" ] || fail "the program did not count its calls"
read -r served passed <<< "$counts"
said() { grep -ciE "$1" err || true; }
s=$(said "^collc: (MPI_Start of )?i?(allgatherv|reduce_scatter)(_init)?_c as ")
l=$(said "^collc: [^;]*; MPI_I?(Allgatherv|Reduce_scatter|Gatherv|Scatterv|Alltoallv|Alltoallw)(_init)?_c of the MPI library runs$")
! grep -q "^collc: error" err || fail "collc reported errors"
[ "$s" = "$served" ] || fail "$served calls and starts collc should serve, $s reported served"
[ "$l" = "$passed" ] || fail "$passed calls collc should pass on, $l reported passed on with a reason"
[ "$(grep -c . err)" = $((served + passed)) ] || fail "other lines on the error stream"
echo "large_count_vector (mpich, $p ranks): $served calls and starts of MPI_Allgatherv_c and MPI_Reduce_scatter_c served by collc, $passed vector _c calls passed on with their reason, results equal to the library's"
