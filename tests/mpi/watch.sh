#!/usr/bin/env bash
# The drop-in watching its calls (dropin/Watch.h; tests/mpi/watch.c:
# broadcasts and allreduces on MPI_COMM_WORLD and on the even ranks, every
# result checked).
#
# smpi (simulated, so every figure is the same on every run): on an 8-node
# cluster of 125 MB/s links,
#  - with the platform itself as the machine, the calls keep to the model:
#    no note; nor on three drawn platforms (torus, fat tree, thin backbone;
#    20-30 ranks), each its own machine;
#  - with a machine 100 times faster, rank 0 says once per collective and
#    band that its calls take far longer than the model gives them, and
#    COLLC_WATCH=off silences it; a COLLC_WATCH it cannot use is a note;
#  - with COLLC_ADAPT=1 and the root sending to each rank in turn
#    (COLLC_ALGORITHM=bcast=sequential), the trial finds SMPI's broadcast
#    faster on both communicators: every later broadcast runs in SMPI's,
#    each said under COLLC_VERBOSE; the results stay right.
# openmpi (real time, so no side is asserted): under COLLC_ADAPT=1 every
# rank takes the same side at the same call (the program ends, with right
# results), and every call is reported once, served or passed on.
#
#   watch.sh smpi|openmpi <libdir> <srcdir> <workdir>
set -euo pipefail
flavor=$1 lib=$2 src=$3 work=$4
source "$src/tests/mpi/ranks.sh"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
rounds=16 bytes=65536
fail() { echo "watch.sh ($flavor): $*"; tail -n 20 out err 2>/dev/null || true; exit 1; }
correct() {
  local n
  n=$(grep -c "^watch: $rounds rounds as rank [0-9]*, results correct$" out || true)
  [ "$n" = "$1" ] || fail "$n of $1 ranks report correct results"
}
case $flavor in
  smpi)
    p=8
    cat > slow.xml <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" radical="0-7" suffix="" speed="1Gf"
           bw="125MBps" lat="50us" bb_bw="1GBps" bb_lat="0us"/>
</platform>
XML
    sed 's/bw="125MBps" lat="50us"/bw="12.5GBps" lat="0.5us"/; s/bb_bw="1GBps"/bb_bw="100GBps"/' \
      slow.xml > fast.xml
    smpi_programs "$src/tests/mpi/watch.c" watch "$lib" "$p"
    run() {
      timeout 300 env LD_LIBRARY_PATH="$lib" "$@" \
        smpirun -np "$p" -platform slow.xml -hostfile hosts --log=root.thres:critical \
        --cfg=smpi/display-timing:no --cfg=smpi/privatize-libs:libcollc-mpi-smpi.so \
        --cfg=smpi/tmpdir:"$PWD" \
        ./watch "$bytes" "$rounds" > out 2> err || fail "the program failed"
      correct "$p"
    }
    run COLLC_MACHINE=slow.xml
    ! grep -q "^collc:" err || fail "collc spoke with the right machine"
    # Platforms nobody tuned for (a torus, a fat tree, a cluster with a thin
    # backbone, drawn from a fixed seed), each its own machine: no note.
    "$lib/../bin/collc-platforms" --seed 4242 --count 3 --max-ranks 32 \
      --max-procs-per-node 1 --families torus-2d,fat-tree-2,cluster-thin \
      --out drawn > /dev/null
    for x in drawn/*.xml; do
      n=$(wc -l < "${x%.xml}.hosts")
      timeout 300 env LD_LIBRARY_PATH="$lib" COLLC_MACHINE="$x" \
        smpirun -np "$n" -platform "$x" -hostfile "${x%.xml}.hosts" \
        --log=root.thres:critical --cfg=smpi/display-timing:no \
        --cfg=smpi/privatize-libs:libcollc-mpi-smpi.so --cfg=smpi/tmpdir:"$PWD" \
        ./watch "$bytes" "$rounds" > out 2> err || fail "the program failed on $x"
      correct "$n"
      ! grep -q "^collc:" err || fail "collc spoke on $x, its own machine"
    done
    run COLLC_MACHINE=fast.xml
    for coll in bcast allreduce; do
      n=$(grep -cE "^collc: note: $coll on 8 ranks, 65536\.\.131071 bytes: the calls of schedule '[^']+' take [0-9]+x the time the machine's model gives them" err || true)
      [ "$n" = 1 ] || fail "$n notes of $coll calls departing from the model (expected 1)"
    done
    [ "$(grep -c "^collc:" err)" = 2 ] || fail "other lines than the two notes"
    run COLLC_MACHINE=fast.xml COLLC_WATCH=off
    ! grep -q "^collc:" err || fail "collc spoke with COLLC_WATCH=off"
    run COLLC_MACHINE=slow.xml COLLC_WATCH=fast
    grep -q "^collc: note: COLLC_WATCH='fast' is not 'off' or a factor" err ||
      fail "no note of the COLLC_WATCH it cannot use"
    run COLLC_MACHINE=slow.xml COLLC_ADAPT=1 COLLC_VERBOSE=1 COLLC_ALGORITHM=bcast=sequential
    for size in 8 4; do
      grep -qE "^collc: note: COLLC_ADAPT: bcast on $size ranks, .*schedule 'sequential' [0-9]+ us, MPI_Bcast of the MPI library [0-9]+ us .*: the MPI library's serves the later calls$" err ||
        fail "the trial on $size ranks did not keep SMPI's broadcast"
      grep -qE "^collc: note: COLLC_ADAPT: allreduce on $size ranks, " err ||
        fail "no trial of the allreduce on $size ranks"
    done
    # 2 warm-ups and 5 calls a side: 12 calls of the trial, then SMPI's.
    n=$(grep -c "^collc: the MPI library's call was faster for this kind (COLLC_ADAPT); MPI_Bcast of the MPI library runs$" err || true)
    [ "$n" = $((2 * (rounds - 12))) ] || fail "$n broadcasts after the trials ran in SMPI's (expected $((2 * (rounds - 12))))"
    n=$(grep -c "^collc: timing the MPI library's call for this kind (COLLC_ADAPT); MPI_Bcast" err || true)
    [ "$n" = 12 ] || fail "$n broadcasts timed in SMPI's (expected 2 x 6)"
    ;;
  openmpi)
    p=4
    mpicc.openmpi -O2 -Wall -Wextra -Werror "$src/tests/mpi/watch.c" -o watch
    joined_openmpi 120 mpirun.openmpi --allow-run-as-root --oversubscribe :: -np "$p" \
      -x COLLC_MACHINE="$src/examples/machines/pc-cluster.yaml" -x COLLC_ADAPT=1 \
      -x COLLC_VERBOSE=1 -x LD_PRELOAD="$lib/libcollc-mpi.so" \
      ./watch "$bytes" "$rounds" > out 2> err || fail "the program failed"
    correct "$p"
    for coll in bcast allreduce; do
      for size in 4 2; do
        n=$(grep -cE "^collc: note: COLLC_ADAPT: $coll on $size ranks, .*: (collc's|the MPI library's) serves the later calls$" err || true)
        [ "$n" = 1 ] || fail "$n trial results of $coll on $size ranks (expected 1)"
      done
    done
    # Rank 0 of both communicators: every call reported, served or passed on.
    served=$(grep -cE "^collc: (bcast|allreduce) '[^']+' on [0-9]+ ranks" err || true)
    passed=$(grep -cE "^collc: .*\(COLLC_ADAPT\); MPI_(Bcast|Allreduce) of the MPI library runs$" err || true)
    [ $((served + passed)) = $((4 * rounds)) ] ||
      fail "$served served and $passed passed on, of $((4 * rounds)) calls"
    ;;
  *) echo "watch.sh: unknown flavor $flavor" >&2; exit 2 ;;
esac
echo "watch.sh ($flavor): passed"
