#!/usr/bin/env bash
# scripts/check-includes: the checkout's includes run only downward with no
# cycle; a tree with an upward include, or with a cycle, fails naming it.
set -u
root=$1
script="$root/scripts/check-includes"
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$script" "$root" > "$tmp/out" 2>&1 || { bad "the checkout: exit $?"; cat "$tmp/out"; }

# passes/ including runtime/ (what the posting plan used to do).
mkdir -p "$tmp/up/passes" "$tmp/up/runtime/collc" "$tmp/up/ir"
echo '#include "runtime/collc/tables.h"' > "$tmp/up/passes/Posting.h"
: > "$tmp/up/runtime/collc/tables.h"
if python3 "$script" "$tmp/up" > "$tmp/out" 2>&1; then
  bad "an upward include passed"
else
  grep -q 'passes/Posting.h:1: passes/ includes runtime/collc/tables.h' "$tmp/out" ||
    { bad "the upward include is not named"; cat "$tmp/out"; }
fi

# Two headers of one folder including each other.
mkdir -p "$tmp/cycle/ir"
echo '#include "ir/B.h"' > "$tmp/cycle/ir/A.h"
echo '#include "ir/A.h"' > "$tmp/cycle/ir/B.h"
if python3 "$script" "$tmp/cycle" > "$tmp/out" 2>&1; then
  bad "a cycle passed"
else
  grep -q 'include cycle: ir/A.h -> ir/B.h -> ir/A.h' "$tmp/out" ||
    { bad "the cycle is not named"; cat "$tmp/out"; }
fi

[ $fails = 0 ] && echo "includes: ok" || exit 1
