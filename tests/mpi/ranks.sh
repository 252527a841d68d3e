# Sourced by the drop-in's tests (dropin.sh, nonblocking.sh): launches that
# keep each rank's output in its own file and print them joined (the
# launchers forward the ranks' streams in pieces that may cut a line of one
# rank with another's), and SMPI's two builds of a test program.

# joined_openmpi <seconds> <launcher...> :: <mpirun arguments...>: the
# program's stdout, then its stderr (to stderr), rank by rank, and when the
# launch failed, its exit status and what the launcher said (a rank's signal
# or exit code); the launch's status.
joined_openmpi() {
  local seconds=$1 launcher=() rc=0
  shift
  while [ "$1" != :: ]; do launcher+=("$1"); shift; done
  shift
  rm -rf ranks
  timeout "$seconds" "${launcher[@]}" --output-filename "$PWD/ranks" "$@" > launcher.log 2>&1 || rc=$?
  cat ranks/1/rank.*/stdout
  cat ranks/1/rank.*/stderr >&2
  [ $rc = 0 ] || { echo "launcher exit status $rc:"; tail -n 20 launcher.log; } >&2
  return $rc
}

# joined_mpich <seconds> <mpiexec arguments...>: the same under MPICH.
joined_mpich() {
  local seconds=$1 rc=0
  shift
  rm -rf ranks && mkdir ranks
  timeout "$seconds" mpiexec.mpich -outfile-pattern "$PWD/ranks/out.%r" \
    -errfile-pattern "$PWD/ranks/err.%r" "$@" || rc=$?
  cat ranks/out.*
  cat ranks/err.* >&2
  return $rc
}

# smpi_programs <source.c> <name> <libdir> <ranks>: ./<name>-plain (SMPI
# alone) and ./<name> (linked to the drop-in library before SimGrid, so that
# its MPI_* come first), and a host file of <ranks> nodes.
smpi_programs() {
  local source=$1 name=$2 lib=$3 ranks=$4
  for i in $(seq 0 $((ranks - 1))); do echo "node-$i"; done > hosts
  smpicc -O2 -Wall -Wextra "$source" -o "$name-plain"
  smpicc -O2 -Wall -Wextra "$source" -o "$name" \
    -Wl,--no-as-needed -L"$lib" -Wl,-rpath,"$lib" -lcollc-mpi-smpi
}

# dropin_program <flavor> <libdir> <srcdir> <source.c> <name> <ranks>: builds
# ./<name> for the flavor's MPI library (openmpi, mpich or smpi) and defines
# launch <seconds> plain|preload <program arguments...>: a run on <ranks>
# ranks, joined as above, with COLLC_MACHINE set (pc-cluster.yaml; under SMPI
# the platform cluster-256.xml), alone or under the drop-in library with
# COLLC_VERBOSE=1.
dropin_program() {
  local flavor=$1 lib=$2 src=$3 source=$4 name=$5 ranks=$6
  DROPIN_FLAVOR=$flavor DROPIN_LIB=$lib DROPIN_NAME=$name DROPIN_RANKS=$ranks
  case $flavor in
    openmpi)
      DROPIN_MACHINE=$src/examples/machines/pc-cluster.yaml
      mpicc.openmpi -O2 -Wall -Wextra -Werror "$source" -o "$name" ;;
    mpich)
      DROPIN_MACHINE=$src/examples/machines/pc-cluster.yaml
      mpicc.mpich -O2 -Wall -Wextra -Werror "$source" -o "$name" ;;
    smpi)
      DROPIN_MACHINE=$src/examples/platforms/cluster-256.xml
      smpi_programs "$source" "$name" "$lib" "$ranks" ;;
    *) echo "dropin_program: unknown flavor $flavor" >&2; return 2 ;;
  esac
}
launch() {
  local seconds=$1 how=$2 m=$DROPIN_MACHINE p=$DROPIN_RANKS prog=./$DROPIN_NAME
  shift 2
  case $DROPIN_FLAVOR in
    openmpi)
      local pre=()
      [ "$how" = preload ] && pre=(-x COLLC_VERBOSE=1 -x LD_PRELOAD="$DROPIN_LIB/libcollc-mpi.so")
      COLLC_MACHINE=$m joined_openmpi "$seconds" mpirun.openmpi --allow-run-as-root --oversubscribe :: \
        -np "$p" -x COLLC_MACHINE "${pre[@]}" "$prog" "$@" ;;
    mpich)
      local pre=()
      [ "$how" = preload ] && pre=(-genv COLLC_VERBOSE 1 -genv LD_PRELOAD "$DROPIN_LIB/libcollc-mpi-mpich.so")
      joined_mpich "$seconds" -np "$p" -genv COLLC_MACHINE "$m" "${pre[@]}" "$prog" "$@" ;;
    smpi)
      local verbose=0
      [ "$how" = preload ] && verbose=1 || prog=$prog-plain
      timeout "$seconds" env COLLC_MACHINE="$m" LD_LIBRARY_PATH="$DROPIN_LIB" COLLC_VERBOSE=$verbose \
        smpirun -np "$p" -platform "$m" -hostfile hosts --log=root.thres:critical \
        --cfg=smpi/display-timing:no --cfg=smpi/privatize-libs:libcollc-mpi-smpi.so \
        --cfg=smpi/tmpdir:"$PWD" \
        "$prog" "$@" ;;
  esac
}
