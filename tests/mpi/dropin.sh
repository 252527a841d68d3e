#!/usr/bin/env bash
# The drop-in library (libcollc-mpi*.so) under an unmodified MPI program
# (tests/mpi/dropin.c: every collective collc serves, every root, 0 to 4 MiB,
# MPI_IN_PLACE, a non-commutative operator on a derived datatype, strided
# datatypes, split communicators of odd sizes), with COLLC_VERBOSE: the
# results are right, and every call the program made is reported served by
# a collc schedule (one line per call from rank 0 of its communicator),
# none passed to the MPI library.
#
# Flavor `testbed`: Open MPI across the nodes of the testbed that is up
# (scripts/testbed, $TESTBED_NAME), one rank per node over TCP, with the
# machine it wrote ($TESTBED_MACHINE).
#
#   dropin.sh openmpi|mpich|smpi|testbed <libdir> <srcdir> <workdir> <ranks>
set -euo pipefail
flavor=$1 lib=$2 src=$3 work=$4 p=$5
source "$src/tests/mpi/ranks.sh"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
case $flavor in
  openmpi|testbed)
    machine=$src/examples/machines/pc-cluster.yaml
    launcher=(mpirun.openmpi --allow-run-as-root --oversubscribe)
    if [ "$flavor" = testbed ]; then
      machine=$TESTBED_MACHINE
      launcher=("$src/scripts/testbed" run --)
    fi
    mpicc.openmpi -O2 -Wall -Wextra -Werror "$src/tests/mpi/dropin.c" -o dropin
    export COLLC_MACHINE=$machine
    run() { joined_openmpi 300 "${launcher[@]}" :: -np "$p" -x COLLC_MACHINE "$@"; }
    preload=(-x COLLC_VERBOSE=1 -x LD_PRELOAD="$lib/libcollc-mpi.so")
    ;;
  mpich)
    machine=$src/examples/machines/pc-cluster.yaml
    mpicc.mpich -O2 -Wall -Wextra -Werror "$src/tests/mpi/dropin.c" -o dropin
    run() { joined_mpich 300 -np "$p" -genv COLLC_MACHINE "$machine" "$@"; }
    preload=(-genv COLLC_VERBOSE 1 -genv LD_PRELOAD "$lib/libcollc-mpi-mpich.so")
    ;;
  smpi)
    # SMPI runs every rank in one process: the library is linked into the
    # program (before SimGrid, so that its MPI_* come first) and privatized,
    # one copy per rank as MPI processes have (smpi/privatize-libs, found on
    # LD_LIBRARY_PATH), copied into this test's own folder (smpi/tmpdir: the
    # copies are named by rank alone, so two launches sharing /tmp, as the
    # suite's parallel tests do, remove each other's). The machine is the
    # simulated platform itself.
    machine=$src/examples/platforms/cluster-256.xml
    smpi_programs "$src/tests/mpi/dropin.c" dropin "$lib" "$p"
    run() {
      local env=() prog=./dropin-plain
      while [ $# -gt 0 ] && [ "$1" != -- ]; do env+=("$1"); prog=./dropin; shift; done
      timeout 300 env COLLC_MACHINE="$machine" LD_LIBRARY_PATH="$lib" "${env[@]}" \
        smpirun -np "$p" -platform "$machine" -hostfile hosts --log=root.thres:critical \
        --cfg=smpi/display-timing:no --cfg=smpi/privatize-libs:libcollc-mpi-smpi.so \
        --cfg=smpi/tmpdir:"$PWD" "$prog"
    }
    preload=(COLLC_VERBOSE=1 --)
    ;;
  *) echo "dropin.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
# The output of the run that failed: $out and $err name it.
out=out err=err
fail() { echo "dropin.sh ($flavor, $p ranks): $*"; tail -n 30 "$out" "$err" 2>/dev/null || true; exit 1; }
# Without the library: the MPI library's own collectives. Open MPI's pass
# the program's checks. SMPI 3.32's get some of it wrong (a non-commutative
# MPI_Scan and MPI_Exscan of 512 Ki pairs on 6 ranks fold out of order; an
# in-place MPI_Alltoall on 3 ranks aborts) and MPICH 4.0's MPI_Reduce of
# 4 MiB with MPI_IN_PLACE at the root crashes a non-root rank: there the
# plain run only must not hear from collc. (On the testbed, where a launch
# takes seconds, only the run under the library: the plain run and the
# cache below are mpi.dropin-openmpi's business.)
if [ "$flavor" != testbed ]; then
  out=plain.out err=plain.err
  if [ "$flavor" = smpi ]; then
    run > plain.out 2> plain.err || plain=failed
  else
    run ./dropin > plain.out 2> plain.err || plain=failed
  fi
  if [ "${plain:-}" = failed ]; then
    [ "$flavor" != openmpi ] || fail "the program failed without the library"
    echo "dropin.sh: note: the $flavor library's own collectives fail this program"
  fi
  ! grep -q "^collc:" plain.err || fail "collc spoke without the library"
fi
out=out err=err
if [ "$flavor" = smpi ]; then
  run "${preload[@]}" > out 2> err || fail "the program failed under the library"
else
  run "${preload[@]}" ./dropin > out 2> err || fail "the program failed under the library"
fi
n=$(grep -c "^dropin: [0-9]* calls as rank 0, results correct$" out || true)
[ "$n" = "$p" ] || fail "$n of $p ranks report correct results"
calls=$(awk '/^dropin: [0-9]+ calls/ { n += $2 } END { print n + 0 }' out)
served=$(grep -cE "^collc: [a-z]+ '[^']+' on [0-9]+ ranks" err || true)
passed=$(grep -c "of the MPI library runs$" err || true)
errors=$(grep -c "^collc: error" err || true)
[ "$passed" = 0 ] || { grep "of the MPI library runs$" err | sort | uniq -c | head; fail "$passed calls passed to the MPI library"; }
[ "$errors" = 0 ] || fail "collc reported errors"
[ "$served" = "$calls" ] || fail "the program made $calls calls, collc reports $served served"
# No COLLC_ALGORITHM and fewer than 512 ranks: auto chose every schedule
# from the whole candidates, and each line says so.
chosen=$(grep -cE "^collc: [a-z]+ '[^']+' on [0-9]+ ranks.*, auto's choice from whole candidates$" err || true)
[ "$chosen" = "$served" ] || fail "$chosen of $served served calls say auto chose from whole candidates"
if [ "$flavor" = openmpi ]; then
  # With a cache directory: the first run writes the tables, the second
  # reads them (every kind from a file), with the same results.
  mkdir cache
  for pass in write read; do
    out=cache-$pass.out err=cache-$pass.err
    run -x COLLC_CACHE="$PWD/cache" "${preload[@]}" ./dropin > "cache-$pass.out" 2> "cache-$pass.err" ||
      fail "the program failed with a cache ($pass)"
    n=$(grep -c "results correct$" "cache-$pass.out" || true)
    [ "$n" = "$p" ] || fail "with a cache ($pass): $n of $p ranks report correct results"
    c=$(grep -cE "^collc: [a-z]+ '[^']+' on [0-9]+ ranks" "cache-$pass.err" || true)
    [ "$c" = "$calls" ] || fail "with a cache ($pass): $c calls served of $calls"
  done
  files=$(find cache -name 'collc-*.schedule' | wc -l)
  [ "$files" -gt 0 ] || fail "no cache file written"
  ! find cache -name '*.tmp' | grep -q . || fail "a temporary cache file was left"
  echo "dropin (openmpi): $files cache files written, then read, results correct"
  # Every message cut in pieces of 4099 bytes (COLLC_MAX_PIECE), all posted
  # at once: the same results, every call served.
  out=pieces.out err=pieces.err
  run -x COLLC_MAX_PIECE=4099 "${preload[@]}" ./dropin > pieces.out 2> pieces.err ||
    fail "the program failed with COLLC_MAX_PIECE"
  n=$(grep -c "results correct$" pieces.out || true)
  [ "$n" = "$p" ] || fail "with COLLC_MAX_PIECE: $n of $p ranks report correct results"
  c=$(grep -cE "^collc: [a-z]+ '[^']+' on [0-9]+ ranks" pieces.err || true)
  [ "$c" = "$calls" ] || fail "with COLLC_MAX_PIECE: $c calls served of $calls"
  echo "dropin (openmpi): messages in pieces of 4099 bytes, results correct"
  # The same pieces from the machine's protocol: {max_piece} (what
  # collc-probe writes where whole messages that cross share a connection).
  sed 's/^    send_overhead: 0$/    send_overhead: 0\n    max_piece: 4099/' \
    "$src/examples/machines/cluster-256-net.yaml" > max-piece.yaml
  grep -q "max_piece: 4099" max-piece.yaml || fail "no max_piece in the test's machine"
  COLLC_MACHINE=$PWD/max-piece.yaml run "${preload[@]}" ./dropin > mp.out 2> mp.err ||
    fail "the program failed with the machine's max_piece"
  n=$(grep -c "results correct$" mp.out || true)
  [ "$n" = "$p" ] || fail "with the machine's max_piece: $n of $p ranks report correct results"
  grep -q "^collc: messages go in pieces of up to 4099 bytes (the machine's max_piece" mp.err ||
    fail "the machine's max_piece was not said"
  echo "dropin (openmpi): the machine's max_piece (4099 bytes), results correct"
fi
kinds=$(grep -oE "^collc: [a-z]+ '[^']+'" err | sed 's/^collc: //' | sort -u | paste -sd, -)
echo "dropin ($flavor, $p ranks): $calls calls, all served by collc: $kinds"
