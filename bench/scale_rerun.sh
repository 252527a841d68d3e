#!/usr/bin/env bash
# The scaling issue's table, rerun: auto's pick, collc's prediction, wall
# seconds and peak memory for the twelve cases it measured (SimGrid tori and
# a two-level fat tree of 1,024 to 65,536 ranks). 120 s per case.
# usage: bench/scale_rerun.sh <collc>   (writes its platform files in a
# temporary directory)
set -u
COLLC=$(realpath "${1:?usage: scale_rerun.sh <collc>}")
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
# shellcheck source=bench/scale_platform.sh
source "$(dirname "$(realpath "$0")")/scale_platform.sh"
cd "$DIR" || exit 1

mk() { scale_platform "$1.xml" "$2" "$3" "$4" "$5" "$6"; }
mk t32 1024 TORUS 32,32 12.5GBps 1us
mk t64 4096 TORUS 64,64 12.5GBps 1us
mk t16c 4096 TORUS 16,16,16 12.5GBps 1us
mk ft 4096 FAT_TREE "2;64,64;1,16;1,2" 12.5GBps 1us
mk t16s 4096 TORUS 16,16,16 8GBps 1.5us
mk t256 65536 TORUS 256,256 12.5GBps 1us
while read -r F P C B; do
  X=(); [ $C = allreduce ] && X=(--op sum --datatype int32)
  /usr/bin/time -f '%e %M' -o time.txt timeout 120 $COLLC --machine $F.xml --collective $C --ranks $P --bytes $B "${X[@]}" --emit json -o s.json > out.txt 2>&1
  RC=$?; read -r W M < <(tail -1 time.txt)
  if [ $RC = 0 ]; then A=$(head -c 3000 s.json | grep -o '"algorithm": *"[^"]*"' | sed 's/.*: *"//; s/"$//'); T=$(head -c 3000 s.json | grep -o '"makespan": *[0-9.e+-]*' | sed 's/.*: *//'); else A="rc=$RC $(grep -m1 -o 'error: .*' out.txt | cut -c1-60)"; T=-; fi
  printf '%s %s %s %s | %s (%s) | %s s, %s MB\n' $F $P $C $B "$A" "$T" "$W" $((M/1024))
done <<L
t32 1024 allreduce 1048576
t32 1024 bcast 1048576
t64 4096 allreduce 1048576
t64 4096 allreduce 65536
t64 4096 bcast 65536
t64 4096 bcast 1048576
t16c 4096 allreduce 1048576
ft 4096 allreduce 1048576
ft 4096 bcast 65536
t16s 4096 allgather 8
t256 65536 allreduce 1048576
t256 65536 bcast 1048576
L
