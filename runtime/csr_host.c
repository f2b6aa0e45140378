/* csr_host.c -- libgnnrt_host's half of gnn_graph_from_csr: the caller's CSR and CSC are host
 * memory, like the graph's own arrays, so "device to device" is memcpy.
 *
 * The rules of internal.h's RT_CSR_* list are checked in their order, each over the whole
 * array, and the first rule broken stops the checks: later rules may index with what earlier
 * ones vouch for (the CSC's segments need out_ptr from 0 to ne, never decreasing), so nothing
 * here reads out of bounds whatever the caller passed. The index recorded is the first that
 * breaks the rule, as csr_cuda.cu's atomicMin finds it, so both builds word the same message.
 * dst, the degrees and their maxima are made only from arrays that passed.
 */
#include "internal.h"

#include <string.h>

/* The first v in [0, n) with ptr[v] > ptr[v + 1], or -1. */
static int64_t first_decrease(const int64_t *ptr, int64_t n) {
  for (int64_t v = 0; v < n; v++)
    if (ptr[v] > ptr[v + 1]) return v;
  return -1;
}

/* Rules 1-9 in order; returns at the first broken one. */
static void check_rules(RtCsr *c) {
  int64_t nv = c->nv, ne = c->ne, *bad = c->first_bad;
  const int64_t *ip = c->g_in_ptr, *op = c->g_out_ptr, *origin = c->g_origin;
  const int32_t *src = c->g_src, *eid = c->g_out_eid;
  if (ip[0] != 0 || ip[nv] != ne) {
    bad[RT_CSR_IN_PTR_ENDS] = ip[0] != 0 ? 0 : nv;
    return;
  }
  if ((bad[RT_CSR_IN_PTR_ORDER] = first_decrease(ip, nv)) >= 0) return;
  if (op[0] != 0 || op[nv] != ne) {
    bad[RT_CSR_OUT_PTR_ENDS] = op[0] != 0 ? 0 : nv;
    return;
  }
  if ((bad[RT_CSR_OUT_PTR_ORDER] = first_decrease(op, nv)) >= 0) return;
  for (int64_t e = 0; e < ne; e++)
    if (src[e] < 0 || src[e] >= nv) {
      bad[RT_CSR_SRC_RANGE] = e;
      return;
    }
  for (int64_t k = 0; k < ne; k++)
    if (eid[k] < 0 || eid[k] >= ne) {
      bad[RT_CSR_EID_RANGE] = k;
      return;
    }
  for (int64_t u = 0; u < nv && bad[RT_CSR_EID_SOURCE] < 0; u++)
    for (int64_t k = op[u]; k < op[u + 1]; k++)
      if (src[eid[k]] != u) {
        bad[RT_CSR_EID_SOURCE] = k;
        break;
      }
  if (bad[RT_CSR_EID_SOURCE] >= 0) return;
  for (int64_t u = 0; u < nv && bad[RT_CSR_EID_ORDER] < 0; u++)
    for (int64_t k = op[u] + 1; k < op[u + 1]; k++)
      if (eid[k - 1] >= eid[k]) {
        bad[RT_CSR_EID_ORDER] = k;
        break;
      }
  if (bad[RT_CSR_EID_ORDER] >= 0 || !origin) return;
  for (int64_t v = 0; v < nv; v++)
    for (int64_t e = ip[v]; e < ip[v + 1]; e++)
      if (origin[e] < -1 || (origin[e] == -1 && src[e] != v)) {
        /* e ascends with v: the first e found is the smallest */
        bad[RT_CSR_ORIGIN] = e;
        return;
      }
}

gnn_status rt_csr_fill(gnn_ctx *ctx, RtCsr *c) {
  int64_t nv = c->nv, ne = c->ne;
  for (int r = 0; r < RT_CSR_NRULES; r++) c->first_bad[r] = -1;
  c->max_in_deg = c->max_out_deg = 0;
  memcpy(c->g_in_ptr, c->in_ptr, sizeof(int64_t) * (size_t)(nv + 1));
  memcpy(c->g_out_ptr, c->out_ptr, sizeof(int64_t) * (size_t)(nv + 1));
  if (ne) {
    memcpy(c->g_src, c->src, sizeof(int32_t) * (size_t)ne);
    memcpy(c->g_out_eid, c->out_eid, sizeof(int32_t) * (size_t)ne);
    if (c->origin) memcpy(c->g_origin, c->origin, sizeof(int64_t) * (size_t)ne);
  }
  check_rules(c);
  for (int r = 0; r < RT_CSR_NRULES; r++)
    if (c->first_bad[r] >= 0) return GNN_OK;
  for (int64_t v = 0; v < nv; v++) {
    int64_t din = c->g_in_ptr[v + 1] - c->g_in_ptr[v], dout = c->g_out_ptr[v + 1] - c->g_out_ptr[v];
    for (int64_t e = c->g_in_ptr[v]; e < c->g_in_ptr[v + 1]; e++) c->g_dst[e] = (int32_t)v;
    c->in_deg[v] = (float)din;
    c->out_deg[v] = (float)dout;
    if (din > c->max_in_deg) c->max_in_deg = din;
    if (dout > c->max_out_deg) c->max_out_deg = dout;
  }
  for (int64_t k = 0; k < ne; k++) c->g_out_dst[k] = c->g_dst[c->g_out_eid[k]];
  (void)ctx;
  return GNN_OK;
}
