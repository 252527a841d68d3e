# What the arenas share (sourced by bench/mpi/arena.sh and
# bench/mpi/random-arena.sh): one SMPI launch under a time limit, SMPI's own
# list of its algorithms for a collective, and the cells' format.
#
# The caller sets: work (a scratch folder), and may set vmem_kb (the most
# virtual memory a launch may take, KiB: a launch beyond it fails, "x",
# instead of waking the kernel's out-of-memory killer) and cpu_secs (the most
# CPU time a launch may take, s: a launch beyond it ran out of time, "-", as
# one beyond the wall-time limit; unlike wall time, CPU time does not depend
# on what else the host runs).

arena_say() { echo "arena: $*" >&2; }

# arena_simgrid_version: "3.32", or an error.
arena_simgrid_version() {
  local v
  v=$(smpirun -version 2>&1 | awk '/SimGrid version/ {print $3; exit}')
  [ -n "$v" ] || { echo "arena: error: smpirun -version names no SimGrid version" >&2; return 1; }
  echo "$v"
}

# arena_run <platform.xml> <hostfile> <ranks> <seconds> <args...>: one SMPI
# launch. Prints the driver's rows (one per size, flushed as each size ends),
# then "-" when it ran out of time, or "x" when it failed (the driver aborts
# on wrong data); nothing more when it succeeded.
arena_run() {
  local plat=$1 hosts=$2 np=$3 secs=$4 rc=0
  shift 4
  (
    [ -z "${vmem_kb:-}" ] || ulimit -v "$vmem_kb"
    # SIGXCPU at the soft limit (152), SIGKILL 10 s later (137).
    [ -z "${cpu_secs:-}" ] || { ulimit -St "$cpu_secs" && ulimit -Ht $((cpu_secs + 10)); }
    exec timeout "$secs" smpirun -np "$np" -platform "$plat" -hostfile "$hosts" \
      --log=root.thres:critical --cfg=smpi/display-timing:no \
      --cfg=smpi/simulate-computation:no "$@"
  ) > "$work/out" 2> "$work/err" || rc=$?
  grep -E '^[0-9]+ ' "$work/out" || true
  # 124: timeout's wall time; 152 or 137: SIGXCPU or SIGKILL past the CPU
  # time (the simulator is smpirun's child and its status smpirun's; the
  # memory limit above keeps the kernel's out-of-memory killer away).
  if [ $rc -eq 124 ] || { [ -n "${cpu_secs:-}" ] && { [ $rc -eq 152 ] || [ $rc -eq 137 ]; }; }; then
    echo -
    return
  fi
  if [ $rc -ne 0 ]; then
    arena_say "  failed (exit $rc): $(grep -v '^$' "$work/err" | tail -2 | tr '\n' ' ')"
    echo x
  fi
}

# arena_smpi_algorithms <coll> <platform.xml> <hostfile> <driver>: SMPI's list
# for the collective (from its message for an unknown name), without
# `automatic` (which times every algorithm inside each call).
arena_smpi_algorithms() {
  smpirun -np 2 -platform "$2" -hostfile "$3" --log=root.thres:critical \
    --cfg=smpi/$1:arena-no-such-algorithm "$4" 2>&1 |
    sed -n 's/.*Valid algorithms: \(.*\)\.$/\1/p' | tr -d ',' | head -1 |
    tr ' ' '\n' | grep -v -x -e automatic -e '' | tr '\n' ' '
}

# arena_fmt <value>: a cell, a time with one decimal or its mark.
arena_fmt() {
  case $1 in -|x|n/a|mem) echo "$1" ;; *) printf "%.1f" "$1" ;; esac
}
