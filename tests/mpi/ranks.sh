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
