#!/usr/bin/env bash
# collc routes the bundled SimGrid platforms as SimGrid does: every route of
# the machine built from each platform's numbers (collc-netcheck routes)
# equals SimGrid's route on the platform file (simgrid_routes.cpp, links
# renamed to collc's vertices). Exits 77 (skipped) without libsimgrid.
#
#   routes.sh NETCHECK SOURCE_DIR WORK_DIR
set -euo pipefail
netcheck=$1 src=$2 work=$3
mkdir -p "$work"
if ! g++ -std=c++17 -O1 "$src/tests/network/simgrid_routes.cpp" -o "$work/simgrid_routes" \
    -lsimgrid 2>"$work/build.log"; then
  echo "routes: cannot build against libsimgrid; skipped"; exit 77
fi
for p in torus-16x16 cluster-256 fat-tree-256; do
  "$work/simgrid_routes" "$src/examples/platforms/$p.xml" > "$work/simgrid-$p.txt" 2>/dev/null
  "$netcheck" routes "$p" > "$work/collc-$p.txt"
  if ! cmp -s "$work/simgrid-$p.txt" "$work/collc-$p.txt"; then
    echo "routes: $p: collc and SimGrid route differently:"
    diff "$work/simgrid-$p.txt" "$work/collc-$p.txt" | head -10
    exit 1
  fi
  echo "routes: $p: $(wc -l < "$work/collc-$p.txt") routes agree"
done
