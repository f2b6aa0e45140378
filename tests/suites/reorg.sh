# reorg.sh -- the reorg pass changes no result and the cost report has the paper's closed forms.
#
#   reorg/equiv/...   tests/reorg/equiv.py: gnnc run with -fno-reorg against the default
#                     pipeline, compared to 1e-12 (|a - b| / max(1, |b|)): the six examples on
#                     Cora and every graph under tests/interp/graphs/ (isolated vertices,
#                     self-loops, duplicates, a hub), the rule programs tests/ir/reorg_*.gnn (also
#                     with -fno-canonicalize), and 60 random programs. The pass's rewrites in
#                     IR form are golden-tested by ir.sh (tests/ir/expected/*.after-reorg.ir).
reorg_out=$("$PY" tests/reorg/equiv.py "$GNNC" "$TMP/reorg" 2>&1)
reorg_rc=$?
while IFS= read -r reorg_line; do
  case "$reorg_line" in
    "ok "*) reorg_name=${reorg_line#ok }; pass "reorg/equiv/${reorg_name%%:*}" ;;
    "FAIL "*) reorg_name=${reorg_line#FAIL }; fail "reorg/equiv/${reorg_name%%:*}" "${reorg_name#*: }" ;;
  esac
done <<< "$reorg_out"
if [ $reorg_rc -ne 0 ] && ! grep -q '^FAIL ' <<< "$reorg_out"; then
  fail "reorg/equiv" "equiv.py exited $reorg_rc: $(tail -3 <<< "$reorg_out" | tr '\n' ' ')"
fi
unset reorg_out reorg_rc reorg_line reorg_name

#   reorg/cost/...    tests/reorg/cost.py: --stats=symbolic after canonicalize and after reorg,
#                     FLOPs and bytes as polynomials in V and E, against closed forms written
#                     from the dims: the paper's GAT attention (6|E|f + |E| FLOPs before,
#                     4|V|f + 2|E| after) for f = 4, 16, 64, and GAT, EdgeConv, GCN as written.
reorg_out=$("$PY" tests/reorg/cost.py "$GNNC" "$TMP/reorg-cost" 2>&1)
reorg_rc=$?
while IFS= read -r reorg_line; do
  case "$reorg_line" in
    "ok "*) reorg_name=${reorg_line#ok }; pass "reorg/cost/${reorg_name%%:*}" ;;
    "FAIL "*) reorg_name=${reorg_line#FAIL }; fail "reorg/cost/${reorg_name%%:*}" "${reorg_name#*: }" ;;
  esac
done <<< "$reorg_out"
if [ $reorg_rc -ne 0 ] && ! grep -q '^FAIL ' <<< "$reorg_out"; then
  fail "reorg/cost" "cost.py exited $reorg_rc: $(tail -3 <<< "$reorg_out" | tr '\n' ' ')"
fi
unset reorg_out reorg_rc reorg_line reorg_name
