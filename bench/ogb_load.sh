#!/usr/bin/env bash
# bench/ogb_load.sh [EDGES] [VERTICES] -- how fast the runtime reads an OGB node-property folder.
#
# Writes a random folder in OGB's layout (raw/edge.csv.gz "src,dst" lines, gzip -1, and the two
# count files; no features: the edges are what is large) under build/bench/ogb-EDGES, then times
# build/bench/gen_graph info on it three times: the first load (inflate, parse, build CSR/CSC, write
# processed/gnnc-graph-0.gcsr), the second (from that cache), and the same edges as a plain edge
# list (graph.edges) for comparison. Prints each time and the seconds per 100 M edges. Defaults:
# 20 M edges over 2 M vertices (about 130 MB gzip'd). Not part of make test (docs/benchmarks.md).
set -eu
edges=${1:-20000000}
verts=${2:-$((edges / 10))}
gen=build/bench/gen_graph
[ -x $gen ] || { echo "ogb_load: $gen is missing (make build/bench/gen_graph)" >&2; exit 2; }
d=build/bench/ogb-$edges
if [ ! -f "$d/raw/edge.csv.gz" ]; then
  rm -rf "$d" && mkdir -p "$d/raw"
  echo "writing $d: $edges random edges over $verts vertices"
  awk -v n="$edges" -v v="$verts" 'BEGIN { srand(7); for (i = 0; i < n; i++) printf "%d,%d\n", int(rand() * v), int(rand() * v) }' |
    gzip -1 > "$d/raw/edge.csv.gz"
  echo "$verts" | gzip > "$d/raw/num-node-list.csv.gz"
  echo "$edges" | gzip > "$d/raw/num-edge-list.csv.gz"
fi
[ -f "$d.edges" ] || zcat "$d/raw/edge.csv.gz" | tr ',' ' ' > "$d.edges"
rm -rf "$d/processed"
# TIME COMMAND...: "WALL CPU" seconds of one run (CPU = user + system: on a machine shared with
# other work the wall time is mostly waiting, so both are printed)
secs() {
  local TIMEFORMAT='%R %U %S' out
  out=$( { time "$@" > /dev/null; } 2>&1 | tail -1)
  awk -v o="$out" 'BEGIN { split(o, a, " "); printf "%.2f %.2f", a[1], a[2] + a[3] }'
}
per() { awk -v s="$1" -v e="$edges" 'BEGIN { printf "%.1f", s * 1e8 / e }'; }
line() { # WHAT "WALL CPU"
  set -- "$1" ${2% *} ${2#* }
  printf '  %-48s wall %6.2f s (%5.1f s per 100 M edges), CPU %6.2f s (%5.1f s per 100 M edges)\n' "$1" "$2" "$(per "$2")" "$3" "$(per "$3")"
}
first=$(secs $gen info "$d")
cached=$(secs $gen info "$d")
plain=$(secs $gen info "$d.edges")
echo "OGB folder, $edges edges, $verts vertices ($(du -m "$d/raw/edge.csv.gz" | cut -f1) MB edge.csv.gz), $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg):"
line "first load (gzip CSV -> CSR/CSC, cache written)" "$first"
line "second load (processed/gnnc-graph-0.gcsr)" "$cached"
line "the same edges as a plain edge list" "$plain"
