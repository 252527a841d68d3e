#!/usr/bin/env bash
# Every drawn platform (collc-platforms, tools/PlatformDraw.h) is read by
# collc (`collc --machine P.xml`, which builds a broadcast on all its ranks)
# and by SimGrid's SMPI (`smpirun -platform P.xml -hostfile P.hosts`): a
# small MPI program (platform_hello.c) runs on all the platform's ranks,
# checks that each runs on the host collc places it on, and exchanges over
# the routes. 28 platforms (four per family) of 16 to 256 ranks from two
# seeds. Exits 77 (skipped) without smpicc.
#
#   platforms_smpi.sh COLLC COLLC_PLATFORMS SOURCE_DIR WORK_DIR [SEEDS]
set -euo pipefail
collc=$1 draw=$2 src=$3 work=$4 seeds=${5:-"11 12"}
command -v smpicc > /dev/null || { echo "platforms: no smpicc; skipped"; exit 77; }
mkdir -p "$work"
smpicc -O1 "$src/tests/tools/platform_hello.c" -o "$work/hello" 2> "$work/build.log" ||
  { cat "$work/build.log"; exit 1; }
n=0
for seed in $seeds; do
  "$draw" --seed "$seed" --count 14 --out "$work/p" > "$work/index-$seed.tsv"
  while IFS=$'\t' read -r -u 3 name _ ranks _ per desc; do
    case $name in '#'*) continue ;; esac
    "$collc" --machine "$work/p/$name.xml" --collective bcast --ranks "$ranks" --bytes 1 \
      --algorithm binomial --emit summary > "$work/collc.txt" 2>&1 ||
      { echo "platforms: collc does not read $name ($desc):"; cat "$work/collc.txt"; exit 1; }
    out=$(smpirun -np "$ranks" -platform "$work/p/$name.xml" -hostfile "$work/p/$name.hosts" \
      --log=root.thres:critical "$work/hello" "$per" 2>&1) ||
      { echo "platforms: SMPI does not run $name ($desc):"; echo "$out" | tail -5; exit 1; }
    [ "$(echo "$out" | tail -1)" = "ok $ranks" ] ||
      { echo "platforms: $name: unexpected output:"; echo "$out" | tail -5; exit 1; }
    n=$((n + 1))
  done 3< "$work/index-$seed.tsv"
done
echo "platforms: $n drawn platforms read by collc and run by SMPI"
