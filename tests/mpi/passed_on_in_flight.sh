#!/usr/bin/env bash
# A collective collc passes on, entered while one it serves is in flight
# (tests/mpi/passed_on_in_flight.c): under the drop-in library the program
# ends (within the time limit) with every result right, the broadcasts
# served and the all-to-alls passed on with their reason. same: the
# all-to-all on the broadcast's communicator; other: on another one (Open
# MPI's build only: docs/mpi.md says why MPICH's cannot).
#
#   passed_on_in_flight.sh openmpi|mpich <libdir> <srcdir> <workdir> <ranks> [same|other]
set -euo pipefail
flavor=$1 lib=$2 src=$3 work=$4 p=$5 mode=${6:-same}
source "$src/tests/mpi/ranks.sh"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
dropin_program "$flavor" "$lib" "$src" "$src/tests/mpi/passed_on_in_flight.c" passed_on_in_flight "$p"
fail() { echo "passed_on_in_flight.sh ($flavor, $p ranks, $mode): $*"; tail -n 30 out err 2>/dev/null || true; exit 1; }
launch 60 preload "$mode" > out 2> err || fail "the program failed or hung under the library"
[ "$(grep -c '^passed_on_in_flight: results correct$' out || true)" = "$p" ] || fail "wrong results under the library"
[ "$(grep -cE "^collc: ibcast '" err || true)" = 3 ] || fail "the broadcasts were not served"
[ "$(grep -c "MPI_Alltoallv of the MPI library runs" err || true)" = 3 ] || fail "the all-to-alls were not passed on"
echo "passed_on_in_flight ($flavor, $p ranks, $mode communicator): a passed-on all-to-all entered with a served broadcast in flight, results correct"
