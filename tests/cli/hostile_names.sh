#!/usr/bin/env bash
# Hostile text through every backend: a machine name, a schedule's
# algorithm and machine fields, and a file name on the command line that
# hold newlines, comment ends, quotes, backslashes, `#`, trigraphs and a
# bidirectional override. Each output must keep the shape it has with a
# plain name (no line added, no `#error` at the start of a line), DOT must
# render without a word from Graphviz, the generated C++ must compile with
# -Wall -Wextra -Werror, JSON must parse, and the schedule must read back
# through --schedule into the same JSON. The file name is the last argument,
# so that the command line recorded in the MPI code ends with a backslash.
. "$(dirname "$0")/checks.sh"

# The name as YAML writes it; JSON writes it the same way.
name='"evil\n#error injected */ /* \" \\ # ??= ??/ \u202e Z\u00fcrich \\"'
for m in ibm-sp mesh-6x6 star-4 mesh16-wormhole; do
  N="$name" awk '/^name:/ { print "name: " ENVIRON["N"]; next } { print }' \
    "examples/machines/$m.yaml" > "$tmp/$m.yaml"
done
# A folder "evil<newline>#error path ??" and in it a file " \".
mkdir "$tmp/"$'evil\n#error path ??'
evil="$tmp/"$'evil\n#error path ??/ \\'
cp "$tmp/ibm-sp.yaml" "$evil"

# Runs one backend on the plain and on the hostile machine; the outputs go
# to $tmp/plain.KIND and $tmp/evil.KIND and must have as many lines.
both() {
  local machine=$1 kind=$2 tag=$3
  shift 3
  "$collc" "$@" --emit "$kind" -o "$tmp/plain.$tag" --machine "examples/machines/$machine.yaml" ||
    { bad "$tag: plain run failed"; return 1; }
  local hm="$tmp/$machine.yaml"
  [ "$machine" = ibm-sp ] && hm="$evil"
  "$collc" "$@" --emit "$kind" -o "$tmp/evil.$tag" --machine "$hm" ||
    { bad "$tag: hostile run failed"; return 1; }
  local a b
  a=$(wc -l < "$tmp/plain.$tag") b=$(wc -l < "$tmp/evil.$tag")
  [ "$a" = "$b" ] || { bad "$tag: $b lines with the hostile name, $a without"; return 1; }
  if grep -q '^#error' "$tmp/evil.$tag"; then bad "$tag: injected line"; return 1; fi
  ok
}
bcast=(--collective bcast --ranks 5 --bytes 64 --algorithm binomial)
reduce=(--collective allreduce --ranks 4 --bytes 64 --op sum --datatype int32)
for kind in summary json dot mpi mpi-header mpi-preload chrome-trace goal ti-trace contention; do
  both ibm-sp $kind $kind "${bcast[@]}"
done
both ibm-sp mpi mpi-reduce "${reduce[@]}"
both ibm-sp select select "${bcast[@]:0:4}" --bytes-range 1:4096
both ibm-sp ompi-rules ompi-rules "${bcast[@]:0:4}" --bytes-range 1:4096
both mesh-6x6 dot mesh-dot --collective bcast --ranks 36 --bytes 64
both star-4 dot star-dot --collective bcast --ranks 24 --bytes 8
both star-4 dot-graph star-graph --collective bcast --ranks 24 --bytes 8
both mesh16-wormhole sim sim --collective bcast --ranks 8 --bytes 64
both mesh16-wormhole chrome-trace-sim chrome-trace-sim --collective bcast --ranks 8 --bytes 64
grep -q '^// collc: ' <(head -n 1 "$tmp/evil.goal") && ok || bad "goal: first line is not a // comment"

# DOT: every drawing renders without a warning.
render() {
  local tool=$1 file=$2
  shift 2
  "$tool" "$@" -Tsvg "$file" -o "$file.svg" 2> "$tmp/dot.err" && [ ! -s "$tmp/dot.err" ] &&
    ok || bad "$file: $tool: $(cat "$tmp/dot.err")"
}
if command -v dot > /dev/null; then
  render dot "$tmp/evil.dot"
  render neato "$tmp/evil.mesh-dot" -n
  render dot "$tmp/evil.star-dot"
  render neato "$tmp/evil.star-graph"
fi

# JSON: it parses, the name reads back as written, and the schedule reads
# back into the same JSON.
if command -v python3 > /dev/null; then
  for f in json chrome-trace chrome-trace-sim; do
    python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$tmp/evil.$f" &&
      ok || bad "$f: not JSON"
  done
  python3 -c 'import json, sys
want = json.loads(sys.argv[2])
sys.exit(json.load(open(sys.argv[1], encoding="utf-8"))["machine"] != want)' \
    "$tmp/evil.json" "$name" && ok || bad "json: the machine name does not read back"
  # A schedule whose algorithm field is hostile too.
  python3 -c 'import json, sys
s = json.load(open(sys.argv[1], encoding="utf-8"))
s["algorithm"] = "alg\n#error algorithm */ \" \\ ??/ \u202e \\"
json.dump(s, open(sys.argv[2], "w", encoding="utf-8"), ensure_ascii=False)' \
    "$tmp/evil.json" "$tmp/evil-alg.json"
fi
"$collc" --schedule "$tmp/evil.json" --emit json -o "$tmp/again.json" &&
  cmp -s "$tmp/evil.json" "$tmp/again.json" && ok || bad "json: --schedule does not read back the same schedule"

# C++: the generated code compiles with every warning an error.
cxx=""
for c in mpicxx.openmpi mpicxx.mpich mpicxx; do
  command -v $c > /dev/null && { cxx=$c; break; }
done
if [ -n "$cxx" ]; then
  flags=(-std=c++17 -Wall -Wextra -Werror -fsyntax-only -I"$src/runtime")
  if [ -f "$tmp/evil-alg.json" ]; then
    "$collc" --schedule "$tmp/evil-alg.json" --emit mpi -o "$tmp/evil.mpi-alg" &&
      ! grep -q '^#error' "$tmp/evil.mpi-alg" && ok || bad "mpi from a hostile schedule"
    cp "$tmp/evil.mpi-alg" "$tmp/alg.cpp"
  fi
  for f in mpi mpi-reduce mpi-preload; do cp "$tmp/evil.$f" "$tmp/$f.cpp"; done
  # (Open MPI's C++ bindings do not pass -Wextra themselves; the runtime
  # skips them too.)
  printf '#define OMPI_SKIP_MPICXX 1\n#include "evil.mpi-header"\nint main() { return 0; }\n' > "$tmp/header.cpp"
  for f in mpi mpi-reduce mpi-preload header alg; do
    [ -f "$tmp/$f.cpp" ] || continue
    (cd "$tmp" && "$cxx" "${flags[@]}" "$f.cpp") 2> "$tmp/cxx.err" && ok ||
      bad "$f: does not compile: $(head -n 5 "$tmp/cxx.err")"
  done
fi

finish
