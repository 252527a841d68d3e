#!/usr/bin/env bash
# The MPI code collc generates, for every collective, and the preload
# library compile with clang under -Wall -Wextra -Werror, through each MPI
# wrapper installed (Open MPI's mpicxx with OMPI_CXX, MPICH's with MPICH_CXX).
#
#   generated_mpi.sh COLLC SOURCE_DIR CLANGXX WORK_DIR
set -euo pipefail
collc=$1 src=$2 cxx=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
machine=$src/examples/machines/ibm-sp.yaml
emit() { # NAME ARGS...: emits NAME.cpp
  local name=$1
  shift
  "$collc" --machine "$machine" "$@" -o "$work/$name.cpp"
}
for c in bcast reduce allreduce scan exscan gather scatter allgather alltoall; do
  emit "$c" --collective "$c" --ranks 8 --bytes 64 --emit mpi
done
emit multicast --collective multicast --root 0 --destinations 1,3,5 --bytes 64 --emit mpi
emit barrier --collective barrier --ranks 8 --emit mpi
emit preload --collective allreduce --ranks 8 --bytes 64 --emit mpi-preload
flags=(-std=c++17 -O2 -Wall -Wextra -Werror -I"$src/runtime")
wrappers=0 failed=0
for w in openmpi mpich; do
  command -v "mpicxx.$w" >/dev/null || continue
  wrappers=$((wrappers + 1))
  for f in "$work"/*.cpp; do
    if ! OMPI_CXX=$cxx MPICH_CXX=$cxx "mpicxx.$w" "${flags[@]}" -c "$f" \
        -o "$work/$(basename "$f" .cpp).$w.o"; then
      echo "FAIL: $(basename "$f") with $cxx through mpicxx.$w" >&2
      failed=$((failed + 1))
    fi
  done
done
if [ "$wrappers" -eq 0 ]; then
  echo "generated_mpi: error: no MPI C++ wrapper (mpicxx.openmpi, mpicxx.mpich)" >&2
  exit 1
fi
# The wrappers must really have used clang: its predefined macro says so.
for w in openmpi mpich; do
  command -v "mpicxx.$w" >/dev/null || continue
  # (Into a variable first: grep -q would cut the pipe under pipefail.)
  macros=$(OMPI_CXX=$cxx MPICH_CXX=$cxx "mpicxx.$w" -dM -E -x c++ /dev/null)
  if ! grep -q __clang__ <<<"$macros"; then
    echo "FAIL: mpicxx.$w does not compile with $cxx" >&2
    failed=$((failed + 1))
  fi
done
[ "$failed" -eq 0 ] || exit 1
echo "generated_mpi: $(ls "$work"/*.cpp | wc -l) generated files compile with $cxx through $wrappers MPI wrapper(s)"
