#!/usr/bin/env bash
# collc's algorithms for one cell against each other and the MPI library, in
# one launch under Open MPI, each call timed alone:
#
#   bench/mpi/alternatives.sh MACHINE bcast|allreduce P BYTES CALLS ALGORITHM...
#
# Generates each algorithm's schedule for the cell (`--algorithm A`, root 0
# or a sum of int32) as its own function (`--mpi-name a<i>`), links them into
# one program with MPI_Bcast / MPI_Allreduce last, and runs CALLS rounds in
# which every variant makes one call, in turn, each after a barrier; a
# call's time is the slowest rank's. Prints per variant the median over the
# rounds and its ratio to the MPI library's. Interleaved, so that every
# variant sees the same load on a shared host. BUILD as in run.sh (the build
# whose bin/collc generates), BTB=N: each timed sample is N calls back to
# back (their mean) instead of one.
set -euo pipefail
[ $# -ge 6 ] || { sed -n 2,15p "$0" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
case $build in /*) ;; *) build=$root/$build ;; esac
collc=$build/bin/collc
m=$1 coll=$2 p=$3 b=$4 calls=$5
shift 5
case $coll in bcast | allreduce) ;; *) echo "alternatives.sh: bcast or allreduce" >&2; exit 2 ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
extra=(--root 0)
[ "$coll" = allreduce ] && extra=(--op sum --datatype int32)
srcs=() decl="" cases="" i=0
for a in "$@"; do
  "$collc" --machine "$m" --collective "$coll" --ranks "$p" --bytes "$b" "${extra[@]}" \
    --algorithm "$a" --emit json -o "$work/s$i.json"
  "$collc" --schedule "$work/s$i.json" --emit mpi --mpi-name "a$i" -o "$work/g$i.cpp"
  srcs+=("$work/g$i.cpp")
  if [ "$coll" = allreduce ]; then
    decl+="extern \"C\" int collc_allreduce_a$i(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);"
    cases+="case $i: return collc_allreduce_a$i(S, D, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);"
  else
    decl+="extern \"C\" int collc_bcast_a$i(void *, int, MPI_Datatype, int, MPI_Comm);"
    cases+="case $i: return collc_bcast_a$i(D, N * 4, MPI_BYTE, 0, MPI_COMM_WORLD);"
  fi
  i=$((i + 1))
done
library='MPI_Allreduce(S, D, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD)'
[ "$coll" = bcast ] && library='MPI_Bcast(D, N * 4, MPI_BYTE, 0, MPI_COMM_WORLD)'
cat > "$work/main.cpp" <<EOC
#include <mpi.h>
#include <algorithm>
#include <cstdio>
#include <vector>
$decl
static int call(int K, int *S, int *D, int N) {
  switch (K) { $cases default: return $library; }
}
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int R;
  MPI_Comm_rank(MPI_COMM_WORLD, &R);
  const int N = ($b + 3) / 4, K = $i + 1, Calls = $calls, Btb = ${BTB:-1};
  std::vector<int> S(N + 1, R + 1), D(N + 1);
  std::vector<std::vector<double>> T(K);
  for (int I = 0; I < Calls + 2; ++I)
    for (int V = 0; V < K; ++V) {
      MPI_Barrier(MPI_COMM_WORLD);
      double Start = MPI_Wtime();
      for (int J = 0; J < Btb; ++J)
        if (call(V, S.data(), D.data(), N) != MPI_SUCCESS)
          MPI_Abort(MPI_COMM_WORLD, 1);
      double Mine = (MPI_Wtime() - Start) / Btb * 1e6, Max = 0;
      MPI_Reduce(&Mine, &Max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (I >= 2)
        T[V].push_back(Max);
    }
  if (R == 0)
    for (int V = 0; V < K; ++V) {
      std::sort(T[V].begin(), T[V].end());
      std::printf("%d %.2f\n", V, T[V][T[V].size() / 2]);
    }
  MPI_Finalize();
}
EOC
mpicxx.openmpi -std=c++17 -O2 -I"$root/runtime" "$work/main.cpp" "${srcs[@]}" -o "$work/x"
mpirun.openmpi --allow-run-as-root --oversubscribe -np "$p" "$work/x" > "$work/out"
mpi=$(awk -v k="$i" '$1 == k {print $2}' "$work/out")
printf "P = %d, %s of %d bytes: median of %d calls, slowest rank (MPI library: %.2f µs)\n" \
  "$p" "$coll" "$b" "$calls" "$mpi"
i=0
for a in "$@"; do
  t=$(awk -v k="$i" '$1 == k {print $2}' "$work/out")
  printf "  %-26s %10.2f µs %6.2fx\n" "$a" "$t" "$(echo "$t / $mpi" | bc -l)"
  i=$((i + 1))
done
