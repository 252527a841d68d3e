#!/usr/bin/env bash
# collc routes SimGrid platforms as SimGrid does: every route of the machine
# built from each bundled platform's numbers (collc-netcheck routes NAME), and
# of platforms drawn at random from every family and read by collc's reader
# (collc-netcheck routes FILE.xml; collc-platforms), equals SimGrid's route on
# the platform file (simgrid_routes.cpp, links renamed to collc's vertices).
# Exits 77 (skipped) without libsimgrid.
#
#   routes.sh NETCHECK SOURCE_DIR WORK_DIR [COLLC_PLATFORMS SEED COUNT]
set -euo pipefail
netcheck=$1 src=$2 work=$3 draw=${4:-} seed=${5:-1} count=${6:-14}
mkdir -p "$work"
if ! g++ -std=c++17 -O1 "$src/tests/network/simgrid_routes.cpp" -o "$work/simgrid_routes" \
    -lsimgrid 2>"$work/build.log"; then
  echo "routes: cannot build against libsimgrid; skipped"; exit 77
fi
# compare NAME FILE.xml NETCHECK_ARG
compare() {
  "$work/simgrid_routes" "$2" > "$work/simgrid-$1.txt" 2>/dev/null
  "$netcheck" routes "$3" > "$work/collc-$1.txt"
  if ! cmp -s "$work/simgrid-$1.txt" "$work/collc-$1.txt"; then
    echo "routes: $1: collc and SimGrid route differently:"
    diff "$work/simgrid-$1.txt" "$work/collc-$1.txt" | head -10
    exit 1
  fi
  echo "routes: $1: $(wc -l < "$work/collc-$1.txt") routes agree"
}
for p in torus-16x16 cluster-256 fat-tree-256; do
  compare "$p" "$src/examples/platforms/$p.xml" "$p"
done
if [ -n "$draw" ]; then
  "$draw" --seed "$seed" --count "$count" --max-ranks 128 --out "$work/drawn" > "$work/drawn.tsv"
  while IFS=$'\t' read -r name _ _ _ _ desc; do
    case $name in '#'*) continue ;; esac
    echo "routes: $name: $desc"
    compare "$name" "$work/drawn/$name.xml" "$work/drawn/$name.xml"
  done < "$work/drawn.tsv"
fi
