/* parts.c: partitions of a tape's records (by regions) for two-level elimination. */
#include "elim_internal.h"

int ade_tape_parts(const ade_tape *t, int kind, size_t *part, size_t nid, size_t *nparts) {
  ade_stats s;
  int st = t && part ? ade_tape_stats(t, &s) : ade__fail(ADE_EINVAL, "ade_tape_parts: NULL argument");
  if (!st && !s.complete) return ade__fail(ADE_ESTATE, "ade_tape_parts: the tape is incomplete");
  if (!st && (kind != ADE_PARTS_REGIONS || nid < s.records + 1))
    return ade__fail(ADE_EINVAL, "ade_tape_parts: unknown kind %d or %zu ids for %llu records", kind, nid,
                     (unsigned long long)s.records);
  if (st) return st;
  size_t nr = ade_tape_num_regions(t);
  for (size_t i = 0; i < nid; i++) part[i] = ADE_PART_NONE;
  /* Regions are listed as they begin, a region after those holding it: the
   * innermost one is written last. */
  for (size_t r = 0; r < nr; r++) {
    ade_region g;
    if ((st = ade_tape_region(t, r, &g))) return st;
    for (uint64_t op = g.first_op; op < g.end_op && op < s.records; op++) part[op + 1] = r;
  }
  if (nparts) *nparts = nr;
  return ADE_OK;
}
