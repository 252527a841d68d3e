#!/usr/bin/env bash
# examples/embed as a user builds it: install collc, configure the example
# against the installed package, build (collc_add_schedule generates the
# broadcast), run it under Open MPI; then change the request and check that
# the build regenerates the schedule.
#
#   embed.sh <collc build dir> <srcdir> <workdir>
set -euo pipefail
build=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/lib/cmake/collc/collcConfig.cmake"
test -f "$work/prefix/include/collc/runtime.h"
test -f "$work/prefix/include/collc/tables.h"
cp -r "$src/examples/embed" "$work/embed"
cmake -S "$work/embed" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DMPI_C_COMPILER=mpicc.openmpi -DMPI_CXX_COMPILER=mpicxx.openmpi \
  -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
grep -q "built for 65536 bytes" "$work/build/collc/bcast8.cpp"
mpirun.openmpi --allow-run-as-root --oversubscribe -np 8 "$work/build/embed" | tee "$work/run.out"
grep -q "8 ranks, 65536 bytes: correct" "$work/run.out"
# A changed request regenerates the source at the next build.
sed -i 's/^bytes: 65536/bytes: 4096/' "$work/embed/bcast8.yaml"
cmake --build "$work/build" > "$work/rebuild.log"
grep -q "collc: compiling" "$work/rebuild.log"
grep -q "built for 4096 bytes" "$work/build/collc/bcast8.cpp"
# The program still broadcasts 64 KiB: now through the fallback.
mpirun.openmpi --allow-run-as-root --oversubscribe -np 8 "$work/build/embed" | grep -q correct
echo "embed: built, ran, regenerated"
