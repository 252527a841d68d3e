#!/usr/bin/env bash
# The cases of the evaluator's comparison with SMPI, for smpi_compare.sh:
#   cases.sh full    every broadcast, allreduce, allgather and all-to-all
#                    algorithm at 1 B (4 B for allreduce: one int32), 1 KiB,
#                    64 KiB and 1 MiB on the three platforms (all-to-all
#                    blocks up to 1 KiB: 256 ranks' larger exchanges take
#                    SMPI too long or too much memory);
#   cases.sh quick   a subset whose SMPI runs are short (ctest
#                    network.smpi-makespans, about a minute on a quiet
#                    machine);
#   cases.sh more    the pipelines, rings and all-to-alls whose SMPI runs
#                    take minutes (ctest network.smpi-makespans-more, long).
set -euo pipefail
plats=(torus-16x16 cluster-256 fat-tree-256)
bcast=(opt-tree binomial sequential chain opt-mesh u-mesh greedy edge-disjoint
       k-segment pipeline two-path-pipeline scatter-allgather ring-pipeline
       spanning-trees scatter-ring scatter-trees kary-pipeline knomial scatter-rdb-allgather bine)
if [ "${1:-full}" = quick ]; then
  printf "%s\n" \
    torus-16x16:bcast:binomial:1 torus-16x16:bcast:binomial:1048576 \
    torus-16x16:allreduce:reduce-scatter-allgather:1024 \
    cluster-256:bcast:binomial:65536 cluster-256:allreduce:binomial:4 \
    cluster-256:allgather:bruck:1024 \
    fat-tree-256:bcast:binomial:1048576
  exit 0
fi
if [ "${1:-full}" = more ]; then
  printf "%s\n" \
    torus-16x16:bcast:pipeline:1048576 torus-16x16:bcast:scatter-allgather:65536 \
    torus-16x16:allgather:ring:1024 torus-16x16:alltoall:bruck:1 \
    fat-tree-256:allgather:ring:1 fat-tree-256:alltoall:pairwise:1024
  exit 0
fi
for pl in "${plats[@]}"; do
  for b in 1 1024 65536 1048576; do
    for a in "${bcast[@]}"; do echo "$pl:bcast:$a:$b"; done
    for a in binomial reduce-scatter-allgather nearest-halving nearest-doubling dimension-rings \
      swing bine; do
      echo "$pl:allreduce:$a:$([ "$b" = 1 ] && echo 4 || echo "$b")"
    done
    for a in ring bruck dimension-rings; do echo "$pl:allgather:$a:$b"; done
    if [ "$b" -le 1024 ]; then
      for a in pairwise bruck sem torus-direct torus-row-column; do echo "$pl:alltoall:$a:$b"; done
    fi
  done
done
