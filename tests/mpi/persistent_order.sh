#!/usr/bin/env bash
# Persistent collectives matched by the order they were made, and a
# persistent call passed on after collc's were freed (tests/mpi/
# persistent_order.c), under the MPICH build of the drop-in library: every
# rank's results right, the broadcasts and allreduces served by collc.
#
#   persistent_order.sh <libdir> <srcdir> <workdir> <ranks>
set -euo pipefail
lib=$1 src=$2 work=$3 p=$4
source "$src/tests/mpi/ranks.sh"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
dropin_program mpich "$lib" "$src" "$src/tests/mpi/persistent_order.c" persistent_order "$p"
fail() { echo "persistent_order.sh ($p ranks): $*"; tail -n 30 out err 2>/dev/null || true; exit 1; }
launch 120 preload > out 2> err || fail "the program failed under the library"
[ "$(grep -c '^persistent_order: results correct$' out || true)" = "$p" ] || fail "wrong results under the library"
starts=$(grep -cE "^collc: MPI_Start of (bcast|allreduce)_init '" err || true)
[ "$starts" = 8 ] || fail "$starts starts of collc's persistent calls reported on rank 0, not 8"
grep -q "user-defined operator.*MPI_Scan_init of the MPI library runs" err || fail "the scan was not passed on with its reason"
echo "persistent_order (mpich, $p ranks): persistent calls started in different orders served by collc, a persistent call passed on after they were freed, results correct"
