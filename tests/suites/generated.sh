# generated.sh -- generated/ is reproducible: regenerating every file gives the same bytes.
# Per example: NAME.ir (the optimised IR), NAME.cu, NAME.c and NAME.h (the header of both).
for f in dsl-examples/*.gnn; do
  n=$(basename "$f" .gnn)
  mkdir -p "$TMP/gen"
  if ! "$GNNC" "$f" -o "$TMP/gen/$n.ir" 2> "$TMP/gen.err" || ! "$GNNC" "$f" --emit=cu -o "$TMP/gen/$n.cu" 2>> "$TMP/gen.err" ||
     ! "$GNNC" "$f" --emit=c -o "$TMP/gen/$n.c" 2>> "$TMP/gen.err"; then
    fail "generated/$n" "$(head -2 "$TMP/gen.err")"
    continue
  fi
  for ext in ir cu c h; do
    if [ ! -f "generated/$n.$ext" ]; then fail "generated/$n.$ext" "generated/$n.$ext is missing (run make generated)"
    elif cmp -s "generated/$n.$ext" "$TMP/gen/$n.$ext"; then pass "generated/$n.$ext"
    else fail "generated/$n.$ext" "generated/$n.$ext is stale (run make generated and commit)"; fi
  done
done
# and nothing in generated/ without a source
for g in generated/*; do
  [ -f "dsl-examples/$(basename "${g%.*}").gnn" ] || fail "generated/orphan" "$g has no dsl-examples source"
done
# The host emitter's help for walks on graphs larger than the caches (issue 28; emit_host.c's
# pf_walk, pf_ahead and simd_ok), in the freshly generated host C: a CSR walk (GCN) asks for the
# rows of the edge 16 ahead, src[jj + 16], bounded by the edge count in_ptr[nrows]; a CSC walk
# (GAT's backward) for out_dst[jj + 16]'s, bounded by out_ptr[nrows]; and GCN's staged-edge
# lanes loops carry `omp simd`. The byte comparison above would flag a change too; these say
# which property a change lost.
gen_has() { # NAME FILE PATTERN (grep -F)
  if [ ! -f "$2" ]; then fail "$1" "$2 was not generated"
  elif grep -qF -- "$3" "$2"; then pass "$1"
  else fail "$1" "$2 has no '$3'"; fi
}
gen_has generated/host-walk-ahead/csr "$TMP/gen/gcn.c" "const int64_t gnn_pf_u = src[jj + 16];"
gen_has generated/host-walk-ahead/csr-bound "$TMP/gen/gcn.c" "const int64_t gnn_pf_ne = nrows > 0 ? in_ptr[nrows] : 0;"
gen_has generated/host-walk-ahead/csc "$TMP/gen/gat.c" "const int64_t gnn_pf_u = out_dst[jj + 16];"
gen_has generated/host-walk-ahead/csc-bound "$TMP/gen/gat.c" "const int64_t gnn_pf_ne = nrows > 0 ? out_ptr[nrows] : 0;"
gen_has generated/host-simd "$TMP/gen/gcn.c" "#pragma omp simd /* see simd_ok */"
