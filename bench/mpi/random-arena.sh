#!/usr/bin/env bash
# The random arena: collc's `auto` against every SMPI built-in algorithm, on
# SimGrid platforms drawn at random from each family (collc-platforms: tori,
# fat trees, clusters; tools/PlatformDraw.h), with the physical bound.
#
#   bench/mpi/random-arena.sh [collc]     draw, run every cell, summarise
#   bench/mpi/random-arena.sh summary DIR the summary of a finished (or
#                                         running) draw again, with the
#                                         bound of today's bench-bound
#
# For each drawn platform (all its ranks: hosts x `core`, placed by the
# drawn hostfile), collective and size, the makespan of one call (simulated
# µs on SimGrid's global clock: every rank starts the call at one agreed
# moment and the makespan ends with the latest rank's end; bench/mpi/osu.h)
# of
#  - collc's `auto`, built with `--machine PLATFORM.xml` (after one checked
#    call of the same size: collc's first call duplicates the communicator);
#  - every SMPI built-in (`--cfg=smpi/<coll>:NAME`, SMPI's own list without
#    `automatic`), SMPI's `default` among them (after one checked call of one
#    element: SMP-aware algorithms split the communicator at their first
#    call);
# every call's data checked (a wrong result aborts the run: "x"). One launch
# runs all sizes of one column, under SMPI_LIMIT seconds of CPU time (what
# the host's other work does not change); a launch that runs out keeps the
# sizes it finished, the rest are "-". Then per cell: auto
# against the fastest built-in (a **shortfall** when auto is slower by more
# than 0.1%, or failed; a cell auto did not finish within the limit is not
# counted), and auto against the bound (bench-bound).
#
# Collectives: bcast (root 0), allreduce and reduce (sum of int32 to root
# 0; sizes round up to whole elements: 1 -> 4), allgather and alltoall
# (BYTES per block: what each rank contributes, or sends to each rank).
#
# Environment:
#   ARENA_SEED        the draw's seed (default: a fresh one, printed)
#   ARENA_COUNT       platforms (default 30); ARENA_FIRST the first index (0)
#   ARENA_FAMILIES    families taken in turn (default all; collc-platforms
#                     --families)
#   ARENA_MIN_RANKS, ARENA_MAX_RANKS  ranks per platform (default 16, 128)
#   ARENA_MAX_PER_HOST  most ranks per host (default 8)
#   ARENA_COLLS       collectives (default "bcast allreduce allgather reduce
#                     alltoall")
#   ARENA_SIZES       bytes (default "1 1024 65536 1048576")
#   ARENA_SMPI_ALGS   only these SMPI algorithms (each collective keeps those
#                     of its own list; default: all)
#   ARENA_MEMORY      host memory a run's buffers may take, bytes (default
#                     4 GiB): larger cells (allgather and alltoall of many
#                     ranks) are "mem", not run; a launch that takes more
#                     than twice that and 4 GiB of virtual memory (a
#                     built-in's own buffers) fails ("x")
#   SMPI_LIMIT        seconds of CPU time per launch (default 120)
#   ARENA_WALL_LIMIT  seconds of wall time per launch, against a launch that
#                     hangs without computing (default 10 x SMPI_LIMIT)
#   ARENA_OUT         output folder (default build/random-arena/seed-SEED)
#   ARENA_CACHE       SMPI built-ins' results, by SimGrid version, platform
#                     content, collective, algorithm, size and measure
#                     (default build/arena-cache)
#   ARENA_JOBS        platforms measured at once (default 1; each runs one
#                     launch at a time, so JOBS launches and JOBS x the
#                     memory above at most)
#   ARENA_RESUME      1: keep the platforms an earlier run of the same draw
#                     into the same ARENA_OUT finished (cells/NAME.tsv) and
#                     measure the rest; without it the folder's cells are
#                     measured again (auto's cells come from the collc of
#                     the run that measured them)
#
# Output folder: platforms/NAME.xml and NAME.hosts (every drawn platform,
# kept), index.tsv (collc-platforms' list, the seed on its first line),
# cells/NAME.tsv (the cells of each finished platform: platform family
# ranks collective bytes column time, and for auto its algorithm and the
# evaluator's estimate of its makespan; NAME.tsv.part while it runs),
# cells.tsv (those of the finished platforms, in the draw's order),
# bound.tsv, summary.md (per family: cells, shortfalls, worst ratio; issue
# 27's two targets: at 64 KiB and above where the bound is below 0.4x SMPI's
# default, auto at most half the default, and at 1 MiB auto within 2x the
# bound on tori and 3x on fat trees, the cells, misses and worst ratio of
# each; every shortfall with its platform file; every cell with auto /
# bound), and
# shortfalls/ (a copy of each platform with a shortfall). Progress goes to
# standard error, the summary also to standard output.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
summary_only=
if [ "${1:-}" = summary ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 summary DIR" >&2; exit 1; }
  out=$2 summary_only=1 collc=$root/build/bin/collc
  [ -f "$out/cells.tsv" ] || [ -d "$out/cells" ] ||
    { echo "arena: error: no $out/cells.tsv or $out/cells/" >&2; exit 1; }
else
  collc=${1:-$root/build/bin/collc}
fi
bindir=$(dirname "$collc")
draw=${ARENA_PLATFORMS_TOOL:-$bindir/collc-platforms}
bound=${ARENA_BOUND:-$bindir/bench-bound}
cache=${ARENA_CACHE:-$root/build/arena-cache}
limit=${SMPI_LIMIT:-120}
[[ $limit =~ ^[1-9][0-9]*$ ]] || { echo "arena: error: SMPI_LIMIT: expected whole seconds, got '$limit'" >&2; exit 1; }
cpu_secs=$limit
wall=${ARENA_WALL_LIMIT:-$((10 * limit))}
[[ $wall =~ ^[1-9][0-9]*$ ]] || { echo "arena: error: ARENA_WALL_LIMIT: expected whole seconds, got '$wall'" >&2; exit 1; }
memory=${ARENA_MEMORY:-4294967296}
# A launch may take twice that and 4 GiB more of virtual memory (SMPI's
# copies of the program and stacks, the built-ins' own buffers).
vmem_kb=$(((2 * memory + 4294967296) / 1024))
njobs=${ARENA_JOBS:-1}
[[ $njobs =~ ^[1-9][0-9]*$ ]] || { echo "arena: error: ARENA_JOBS: expected a count of 1 or more, got '$njobs'" >&2; exit 1; }
read -ra colls <<< "${ARENA_COLLS:-bcast allreduce allgather reduce alltoall}"
read -ra base_sizes <<< "${ARENA_SIZES:-1 1024 65536 1048576}"
# Bump when the drivers' measure changes: cached results of another measure
# are not reused.
measure=makespan-2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -O2 -Wall -Wextra -I"$root/runtime")
. "$root/bench/mpi/arena-lib.sh"

# sizes_of <coll>: the sizes, whole int32 elements for the reductions.
sizes_of() {
  local b
  for b in "${base_sizes[@]}"; do
    case $1 in allreduce|reduce) echo $(((b + 3) / 4 * 4)) ;; *) echo "$b" ;; esac
  done
}

# fits <coll> <ranks> <bytes>: whether the buffers of all ranks (with collc's
# scratch and staging) stay within ARENA_MEMORY.
fits() {
  local need
  case $1 in
    bcast) need=$(($2 * $3)) ;;
    allreduce|reduce) need=$((3 * $2 * $3)) ;;
    allgather) need=$((2 * $2 * $2 * $3)) ;;
    alltoall) need=$((3 * $2 * $2 * $3)) ;;
  esac
  [ "$need" -le "$memory" ]
}

# The cells of one platform and collective: appends to $cells (the
# platform's file, arena_platform).
arena_collective() {
  local name=$1 family=$2 np=$3 coll=$4 plat=$5 hosts=$6
  local -a sizes=() run_sizes=() files=() opts=(--collective "$coll" --ranks "$np")
  local b v a key lim
  declare -A T=() Alg=() Est=()
  mapfile -t sizes < <(sizes_of "$coll")
  case $coll in
    bcast) opts+=(--root 0) ;;
    reduce) opts+=(--root 0 --op sum --datatype int32) ;;
    allreduce) opts+=(--op sum --datatype int32) ;;
  esac
  for b in "${sizes[@]}"; do
    if ! fits "$coll" "$np" "$b"; then T[auto,$b]=mem; continue; fi
    if "$collc" --machine "$plat" "${opts[@]}" --bytes "$b" --algorithm auto \
      --emit json -o "$work/s-$b.json" 2> "$work/err"; then
      files+=(--schedule "$work/s-$b.json")
      run_sizes+=("$b")
      # auto's choice and the evaluator's estimate of its makespan.
      read -r Alg[$b] Est[$b] < <("$collc" --schedule "$work/s-$b.json" --emit summary |
        awk '$1 == "algorithm:" {a = $2} $1 == "makespan:" {m = $2} END {print a, m}')
    else
      T[auto,$b]=n/a
      arena_say "$name $coll auto $b bytes does not build: $(head -1 "$work/err")"
    fi
  done
  if [ ${#run_sizes[@]} -eq 0 ]; then
    arena_say "$name $coll: no size to run"
  else
    "$collc" "${files[@]}" --emit mpi --mpi-name bench -o "$work/g.cpp"
    rm -f "$work"/s-*.json
    local drv=$work/osu-$coll
    smpicxx "${flags[@]}" "$root/bench/mpi/osu_$coll.cpp" "$work/g.cpp" -o "$drv" 2> "$work/err" ||
      { cat "$work/err" >&2; echo "arena: error: the $coll driver did not build" >&2; exit 1; }
    # auto: one launch for every size.
    local t0 mark
    t0=$(date +%s)
    arena_run "$plat" "$hosts" "$np" "$wall" "$drv" --which collc --measure makespan \
      --warmup 1 "${run_sizes[@]}" > "$work/rows"
    while read -r b v _; do T[auto,$b]=$v; done < <(grep -E '^[0-9]+ ' "$work/rows")
    mark=$(grep -v -E '^[0-9]+ ' "$work/rows" | head -1 || true)
    for b in "${run_sizes[@]}"; do [ -n "${T[auto,$b]:-}" ] || T[auto,$b]=${mark:-x}; done
    arena_say "$name $coll auto: $(for b in "${run_sizes[@]}"; do printf "%s " "${T[auto,$b]}"; done)($(($(date +%s) - t0)) s)"
    # SMPI's built-ins: one launch per algorithm for the sizes not cached.
    local -a algs=() want=()
    read -ra algs <<< "$(arena_smpi_algorithms "$coll" "$plat" "$hosts" "$drv")"
    [ ${#algs[@]} -gt 0 ] ||
      { echo "arena: error: smpirun did not list its $coll algorithms" >&2; exit 1; }
    if [ -n "${ARENA_SMPI_ALGS:-}" ]; then
      want=()
      for a in ${ARENA_SMPI_ALGS}; do
        [[ " ${algs[*]} " == *" $a "* ]] && want+=("$a")
      done
      algs=("${want[@]}")
    fi
    local pkey
    pkey=$(cat "$plat" "$hosts" | md5sum | cut -c1-16)
    for a in "${algs[@]}"; do
      local -a todo=()
      local stop=
      for b in "${run_sizes[@]}"; do
        key=$cache/simgrid-$sgver/$pkey/$coll/$a/$b.$measure
        if [ -z "$stop" ] && [ -f "$key" ]; then
          # A time is kept; "-" only when it ran out of as much CPU time or
          # more ("cpu:N"; a bare N was wall time on a host of unknown load).
          read -r v lim < "$key"
          if [ "$v" != - ] || { [[ $lim =~ ^cpu:[0-9]+$ ]] && [ "${lim#cpu:}" -ge "$limit" ]; }; then
            T[s:$a,$b]=$v
            case $v in -|x) stop=$v ;; esac
            continue
          fi
        fi
        if [ -n "$stop" ]; then T[s:$a,$b]=$stop; else todo+=("$b"); fi
      done
      [ ${#todo[@]} -gt 0 ] || continue
      t0=$(date +%s)
      arena_run "$plat" "$hosts" "$np" "$wall" --cfg=smpi/$coll:$a "$drv" --which mpi \
        --measure makespan --warmup 0 --prewarm "${todo[@]}" > "$work/rows"
      mark=$(grep -v -E '^[0-9]+ ' "$work/rows" | head -1 || true)
      declare -A got=()
      while read -r b _ v; do got[$b]=$v; done < <(grep -E '^[0-9]+ ' "$work/rows")
      stop=
      for b in "${todo[@]}"; do
        key=$cache/simgrid-$sgver/$pkey/$coll/$a/$b.$measure
        if [ -n "${got[$b]:-}" ]; then
          v=${got[$b]}
        elif [ -z "$stop" ]; then
          v=${mark:-x} stop=$v
        else
          T[s:$a,$b]=$stop # not tried after the one that stopped
          continue
        fi
        T[s:$a,$b]=$v
        mkdir -p "$(dirname "$key")"
        echo "$v cpu:$limit" > "$key"
      done
      unset got
      arena_say "$name $coll smpi:$a: $(for b in "${run_sizes[@]}"; do printf "%s " "${T[s:$a,$b]:-?}"; done)($(($(date +%s) - t0)) s)"
    done
    for a in "${algs[@]}"; do
      for b in "${run_sizes[@]}"; do
        printf "%s\t%s\t%s\t%s\t%s\tsmpi:%s\t%s\n" "$name" "$family" "$np" "$coll" "$b" "$a" \
          "${T[s:$a,$b]:--}" >> "$cells"
      done
    done
  fi
  for b in "${sizes[@]}"; do
    printf "%s\t%s\t%s\t%s\t%s\tauto\t%s\t%s\t%s\n" "$name" "$family" "$np" "$coll" "$b" \
      "${T[auto,$b]:--}" "${Alg[$b]:--}" "${Est[$b]:--}" >> "$cells"
  done
}

# arena_platform <name> <family> <ranks> <description>: every collective of
# one platform, in a scratch folder of its own (platforms may run at once),
# into cells/NAME.tsv once all are done.
arena_platform() {
  local name=$1 family=$2 np=$3 desc=$4 coll
  local work=$work/$name cells=$out/cells/$name.tsv.part
  mkdir -p "$work"
  : > "$cells"
  arena_say "$name: $desc ($np ranks)"
  for coll in "${colls[@]}"; do
    arena_collective "$name" "$family" "$np" "$coll" "$out/platforms/$name.xml" \
      "$out/platforms/$name.hosts"
  done
  mv "$cells" "$out/cells/$name.tsv"
  rm -rf "$work"
}

# cells.tsv from the finished platforms' files, in the draw's order (a
# folder of an earlier layout has cells.tsv alone: kept as it is).
gather_cells() {
  [ -d "$out/cells" ] || return 0
  local name
  : > "$out/cells.tsv.tmp"
  for name in $(awk -F'\t' '$1 !~ /^#/ {print $1}' "$out/index.tsv"); do
    [ ! -f "$out/cells/$name.tsv" ] || cat "$out/cells/$name.tsv" >> "$out/cells.tsv.tmp"
  done
  mv "$out/cells.tsv.tmp" "$out/cells.tsv"
}

# The bound of every platform and collective of cells.tsv (bound.tsv), then
# the summary.
summarise() {
  gather_cells
  : > "$out/bound.tsv.tmp"
  local name coll np
  while IFS=$'\t' read -r -u 3 name coll np; do
    local -a sizes=()
    mapfile -t sizes < <(awk -F'\t' -v n="$name" -v c="$coll" '$1 == n && $4 == c {print $5}' \
      "$out/cells.tsv" | sort -n -u)
    if "$bound" --machine "$out/platforms/$name.xml" --collective "$coll" --ranks "$np" \
      "${sizes[@]}" > "$work/bound" 2> "$work/err"; then
      grep -v '^#' "$work/bound" | awk -v n="$name" -v c="$coll" '{w = $7; for (i = 8; i <= NF; i++) w = w " " $i; print n "\t" c "\t" $1 "\t" $2 "\t" w}' \
        >> "$out/bound.tsv.tmp"
    else
      arena_say "bench-bound failed on $name $coll: $(head -1 "$work/err")"
    fi
  done 3< <(awk -F'\t' '{print $1 "\t" $4 "\t" $3}' "$out/cells.tsv" | sort -u)
  mv "$out/bound.tsv.tmp" "$out/bound.tsv"
  mkdir -p "$out/shortfalls"
  awk -F'\t' -v seedline="$(head -2 "$out/index.tsv" | tail -1)" -v out="$out" '
    function num(v) { return v ~ /^[0-9.]+$/ }
    # The numbers of a list written " a b c" into V, sorted; how many.
    function sorted(list, V,   m, x, y, t) {
      m = split(substr(list, 2), V, " ")
      for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (V[y] + 0 < V[x] + 0) { t = V[x]; V[x] = V[y]; V[y] = t }
      return m
    }
    function median(V, m) { return (m % 2) ? V[(m + 1) / 2] : (V[m / 2] + V[m / 2 + 1]) / 2 }
    # A worst ratio r and the cell where (platform, collective, bytes); the
    # collective left out where the table is by collective.
    function worst(r, at, bycoll,   W) {
      split(at, W, SUBSEP)
      return bycoll ? sprintf("%.2f (%s, %d B)", r, W[1], W[3]) : sprintf("%.2f (%s, %s %d B)", r, W[1], W[2], W[3])
    }
    # Counts cell k (a shortfall or not, of ratio r: auto over the fastest
    # built-in, -1 where auto failed) in group g, a family or a collective.
    function tally(g, k, short, r) {
      Cells[g]++
      if (short) Short[g]++
      if (r >= 0 && (!(g in Worst) || r > Worst[g])) { Worst[g] = r; WorstAt[g] = k }
    }
    # The row of group g: a collective (bycoll) has its cells, shortfalls
    # and worst ratio; a family also the cells where auto failed and auto
    # over the bound (median and worst).
    function row(g, bycoll,   w, m, med, wb) {
      w = (g in Worst) ? worst(Worst[g], WorstAt[g], bycoll) : "-"
      if (bycoll) return sprintf("| %s | %d | %d | %s |", g, Cells[g], Short[g], w)
      wb = (g in WorstB) ? worst(WorstB[g], WorstBAt[g], 0) : "-"
      m = sorted(Q[g], V)
      med = m ? sprintf("%.2f", median(V, m)) : "-"
      return sprintf("| %s | %d | %d | %d | %s | %s | %s |", g, Cells[g], Short[g], Failed[g], w, med, wb)
    }
    # A table by family or (bycoll) by collective: the header and alignment
    # lines, then the row of each group of the list (in its order) that has
    # cells.
    function table(header, align, list, bycoll,   G, m, j) {
      print header
      print align
      m = split(list, G, " ")
      for (j = 1; j <= m; j++) if (G[j] in Cells) print row(G[j], bycoll)
    }
    FNR == NR { B[$1 SUBSEP $2 SUBSEP $3] = $4; next }
    {
      k = $1 SUBSEP $4 SUBSEP $5
      if (!(k in Seen)) { Seen[k] = 1; Order[++n] = k; Fam[k] = $2; Ranks[k] = $3; Coll[k] = $4 }
      if (num($7) && (!(k in Low) || $7 + 0 < Low[k] + 0)) { Low[k] = $7; LowName[k] = $6 }
      if ($6 == "auto") { Auto[k] = $7; Alg[k] = $8; Est[k] = $9; next }
      a = substr($6, 6)
      if (a == "default") Def[k] = $7
      if (num($7) && (!(k in Best) || $7 + 0 < Best[k] + 0)) { Best[k] = $7; BestName[k] = a }
    }
    END {
      print "# The random arena\n"
      print "Draw: `" seedline "` (" n " cells). A cell is one platform, collective and size; a " \
        "**shortfall** is a cell where `auto` is more than 0.1% slower than the fastest SMPI " \
        "built-in, or failed (\"x\": a crash or wrong data). Cells where auto did not finish within " \
        "SMPI_LIMIT seconds of CPU time (\"-\") are not counted. Times: makespan of one call, " \
        "simulated µs.\n"
      for (i = 1; i <= n; i++) {
        k = Order[i]; f = Fam[k]; c = Coll[k]; split(k, K, SUBSEP)
        if ((k in Low) && (k in B) && Low[k] < B[k] * 0.9999) Below[++nb] = k
        if (Auto[k] == "mem") { Mem[f]++; continue }
        if (Auto[k] == "-") { Slow[f]++; continue }
        if (!(k in Best)) { NoBest[f]++; continue }
        short = !num(Auto[k]) || Auto[k] > Best[k] * 1.001
        r = num(Auto[k]) ? Auto[k] / Best[k] : -1
        tally(f, k, short, r); tally(c, k, short, r); AllCells++
        if (short) { AllShort++; Sf[++ns] = k; Kept[K[1]] = 1 }
        if (!num(Auto[k])) Failed[f]++
        if (num(Auto[k]) && (k in B) && B[k] > 0) {
          q = Auto[k] / B[k]; Q[f] = Q[f] " " q
          if (!(f in WorstB) || q > WorstB[f]) { WorstB[f] = q; WorstBAt[f] = k }
        }
      }
      families = "torus-2d torus-3d fat-tree-2 fat-tree-3 cluster-flat cluster-thin cluster-fat"
      nf = split(families, F, " ")
      table("| family | cells | shortfalls | auto failed | worst auto / fastest built-in | median auto / bound | worst auto / bound |",
        "|---|---:|---:|---:|---|---:|---|", families, 0)
      printf "| all | %d | %d | | | | |\n\n", AllCells, AllShort
      for (j = 1; j <= nf; j++) {
        f = F[j]
        if (f in Mem) printf "%s: %d cells not run (buffers beyond ARENA_MEMORY).\n", f, Mem[f]
        if (f in Slow) printf "%s: %d cells where auto did not finish within SMPI_LIMIT (not counted).\n", f, Slow[f]
        if (f in NoBest) printf "%s: %d cells without any SMPI built-in that finished.\n", f, NoBest[f]
      }
      print ""
      table("| collective | cells | shortfalls | worst auto / fastest built-in |", "|---|---:|---:|---|",
        "bcast allreduce allgather reduce alltoall", 1)
      # Issue 27'"'"'s targets. Half: at 64 KiB and above, where the bound is
      # below 0.4x SMPI'"'"'s default, auto at most half the default. Bound: at
      # 1 MiB, auto within 2x the bound on tori and 3x on fat trees.
      for (i = 1; i <= n; i++) {
        k = Order[i]; f = Fam[k]; split(k, K, SUBSEP)
        if (!num(Auto[k]) || !(k in B) || B[k] <= 0) continue
        if (K[3] >= 65536 && num(Def[k]) && Def[k] > 0 && B[k] < 0.4 * Def[k]) {
          h = Auto[k] / Def[k]; HCells[f]++; HAll++
          if (h > 0.5) { HMiss[f]++; HAllMiss++ }
          if (!(f in HWorst) || h > HWorst[f]) { HWorst[f] = h; HWorstAt[f] = k }
        }
        lim = (f ~ /^torus/) ? 2 : (f ~ /^fat-tree/) ? 3 : 0
        if (K[3] == 1048576 && lim) {
          q = Auto[k] / B[k]; TCells[f]++; TAll++
          if (q > lim) { TMiss[f]++; TAllMiss++ }
          if (!(f in TWorst) || q > TWorst[f]) { TWorst[f] = q; TWorstAt[f] = k }
        }
      }
      print "\nTargets (issue 27): **half**, at 64 KiB and above where the bound is below 0.4x SMPI'"'"'s default, " \
        "auto at most 0.5x the default; **bound**, at 1 MiB, auto within 2x the bound on tori and 3x on fat trees.\n"
      print "| family | half: cells | missed | worst auto / default | bound: cells | missed | worst auto / bound |"
      print "|---|---:|---:|---|---:|---:|---|"
      for (j = 1; j <= nf; j++) {
        f = F[j]
        if (!(f in HCells) && !(f in TCells)) continue
        printf "| %s | %d | %d | %s | %d | %d | %s |\n", f, HCells[f], HMiss[f],
          (f in HWorst) ? worst(HWorst[f], HWorstAt[f], 0) : "-", TCells[f], TMiss[f],
          (f in TWorst) ? worst(TWorst[f], TWorstAt[f], 0) : "-"
      }
      printf "| all | %d | %d | | %d | %d | |\n", HAll, HAllMiss, TAll, TAllMiss
      # The evaluator (what auto plans with) against SMPI, on the auto cells.
      for (i = 1; i <= n; i++) {
        k = Order[i]; f = Fam[k]
        if (!num(Auto[k]) || !num(Est[k]) || Auto[k] <= 0) continue
        e = Est[k] / Auto[k]; E[f] = E[f] " " e; Ne++
        if (!(f in EWorst) || (e > 1 ? e : 1 / e) > (EWorst[f] > 1 ? EWorst[f] : 1 / EWorst[f])) {
          EWorst[f] = e; EWorstAt[f] = k
        }
      }
      if (Ne) {
        print "\nThe evaluator'"'"'s estimate of auto'"'"'s makespan (what auto chose by) over SMPI'"'"'s:\n"
        print "| family | cells | median | farthest from 1 |"
        print "|---|---:|---:|---|"
        for (j = 1; j <= nf; j++) {
          f = F[j]; if (!(f in E)) continue
          m = sorted(E[f], V)
          split(EWorstAt[f], W, SUBSEP)
          printf "| %s | %d | %.3f | %.3f (%s, %s %d B) |\n", f, m, median(V, m), EWorst[f], W[1], W[2], W[3]
        }
      }
      printf "\nCells where a measured time is below the bound (the bound does not hold there): %d.\n", nb
      for (i = 1; i <= nb; i++) {
        k = Below[i]; split(k, K, SUBSEP)
        printf "- %s %s %d B: %s %.3f < bound %.3f\n", K[1], K[2], K[3], LowName[k], Low[k], B[k]
      }
      print "\n## Shortfalls\n"
      print "| platform | collective | bytes | auto (µs) | fastest built-in (µs) | ratio | bound (µs) | auto / bound |"
      print "|---|---|---:|---|---|---:|---:|---:|"
      for (i = 1; i <= ns; i++) {
        k = Sf[i]; split(k, K, SUBSEP)
        printf "| `shortfalls/%s.xml` | %s | %d | %s %s | %s %.1f | %s | %s | %s |\n", K[1], K[2], K[3], Alg[k],
          num(Auto[k]) ? sprintf("%.1f", Auto[k]) : Auto[k], BestName[k], Best[k],
          num(Auto[k]) ? sprintf("%.2f", Auto[k] / Best[k]) : "-",
          (k in B) ? sprintf("%.1f", B[k]) : "-",
          (num(Auto[k]) && (k in B) && B[k] > 0) ? sprintf("%.2f", Auto[k] / B[k]) : "-"
      }
      for (p in Kept) print p > (out "/shortfalls/list")
      print "\n## Every cell\n"
      print "| platform | family | ranks | collective | bytes | auto (µs) | fastest built-in (µs) | SMPI default (µs) | bound (µs) | auto / fastest | auto / bound |"
      print "|---|---|---:|---|---:|---|---|---:|---:|---:|---:|"
      for (i = 1; i <= n; i++) {
        k = Order[i]; split(k, K, SUBSEP)
        printf "| %s | %s | %d | %s | %d | %s %s | %s %s | %s | %s | %s | %s |\n", K[1], Fam[k], Ranks[k], K[2], K[3],
          Alg[k], num(Auto[k]) ? sprintf("%.1f", Auto[k]) : Auto[k],
          (k in Best) ? BestName[k] : "-", (k in Best) ? sprintf("%.1f", Best[k]) : "",
          num(Def[k]) ? sprintf("%.1f", Def[k]) : (k in Def ? Def[k] : "-"),
          (k in B) ? sprintf("%.1f", B[k]) : "-",
          (num(Auto[k]) && (k in Best)) ? sprintf("%.2f", Auto[k] / Best[k]) : "-",
          (num(Auto[k]) && (k in B) && B[k] > 0) ? sprintf("%.2f", Auto[k] / B[k]) : "-"
      }
    }' "$out/bound.tsv" "$out/cells.tsv" > "$out/summary.md"
  if [ -f "$out/shortfalls/list" ]; then
    while read -r name; do
      cp "$out/platforms/$name.xml" "$out/platforms/$name.hosts" "$out/shortfalls/"
    done < "$out/shortfalls/list"
  fi
  cat "$out/summary.md"
}

if [ -n "$summary_only" ]; then
  summarise
  exit 0
fi

sgver=$(arena_simgrid_version)
args=(--count "${ARENA_COUNT:-30}" --first "${ARENA_FIRST:-0}"
  --families "${ARENA_FAMILIES:-all}" --min-ranks "${ARENA_MIN_RANKS:-16}"
  --max-ranks "${ARENA_MAX_RANKS:-128}" --max-procs-per-node "${ARENA_MAX_PER_HOST:-8}")
if [ -n "${ARENA_SEED:-}" ]; then
  seed=$ARENA_SEED
else
  seed=$("$draw" "${args[@]}" | awk '$1 == "#" && $2 == "seed" && s == "" {s = $3} END {print s}')
fi
out=${ARENA_OUT:-$root/build/random-arena/seed-$seed}
mkdir -p "$out/cells" "$cache"
"$draw" "${args[@]}" --seed "$seed" --out "$work/platforms" > "$work/index.tsv"
if [ "${ARENA_RESUME:-}" = 1 ] && [ -f "$out/index.tsv" ]; then
  # The same draw, or nothing is kept.
  cmp -s "$work/index.tsv" "$out/index.tsv" ||
    { echo "arena: error: $out holds another draw ($(sed -n 2p "$out/index.tsv")); ARENA_RESUME keeps a draw's own platforms only" >&2; exit 1; }
else
  rm -f "$out"/cells/*.tsv "$out"/cells/*.tsv.part
fi
rm -rf "$out/platforms"
mv "$work/platforms" "$out/platforms"
mv "$work/index.tsv" "$out/index.tsv"
rm -f "$out"/cells/*.tsv.part
arena_say "seed $seed: $(grep -c -v '^#' "$out/index.tsv") platforms in $out (SimGrid $sgver)"
start_all=$(date +%s)
failed=0
# (The platforms' list on descriptor 3: smpirun reads standard input.)
while IFS=$'\t' read -r -u 3 name family np hosts per desc; do
  case $name in '#'*) continue ;; esac
  if [ -f "$out/cells/$name.tsv" ]; then
    arena_say "$name: kept from the earlier run"
    continue
  fi
  while [ "$(jobs -rp | wc -l)" -ge "$njobs" ]; do wait -n || failed=1; done
  arena_platform "$name" "$family" "$np" "$desc" 3<&- &
done 3< "$out/index.tsv"
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
[ "$failed" = 0 ] || { echo "arena: error: a platform's measure failed (above); ARENA_RESUME=1 measures what is left" >&2; exit 1; }
arena_say "all done in $(($(date +%s) - start_all)) s"
summarise
