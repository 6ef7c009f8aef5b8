/* stats.c: the fields of `adelim stats` and their text, shared by the table, the JSON and the listings. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "stats.h"

#define FIELD(label, name, kind) {label, #name, kind, offsetof(ade_stats, name)}
const stats_field stats_fields[] = {
    FIELD("records", records, FIELD_U64),
    FIELD("independents", independents, FIELD_U64),
    FIELD("dependents", dependents, FIELD_U64),
    FIELD("chunks", chunks, FIELD_U64),
    FIELD("level", level, FIELD_INT),
    FIELD("capture", capture, FIELD_BOOL),
    FIELD("complete", complete, FIELD_BOOL),
    FIELD("raw bytes", raw_bytes, FIELD_U64),
    FIELD("stored bytes", stored_bytes, FIELD_U64),
    FIELD("bytes/op", bytes_per_op, FIELD_DBL),
    FIELD("compression ratio", compression_ratio, FIELD_DBL),
    FIELD("stored values", stored_values, FIELD_U64),
    FIELD("regions", regions, FIELD_U64),
    FIELD("diagnostics", diagnostics, FIELD_U64),
    FIELD("call sites", callsites, FIELD_U64),
};
const size_t stats_nfields = sizeof stats_fields / sizeof stats_fields[0];

stats_value stats_get(const ade_stats *s, const stats_field *f) {
  const char *p = (const char *)s + f->offset;
  stats_value v = {0, 0, 0.0};
  if (f->kind == FIELD_U64) memcpy(&v.u, p, sizeof v.u);
  else if (f->kind == FIELD_DBL) memcpy(&v.d, p, sizeof v.d);
  else memcpy(&v.i, p, sizeof v.i);
  return v;
}

void stats_format(char *buf, size_t size, const ade_stats *s,
                  const stats_field *f) {
  stats_value v = stats_get(s, f);
  switch (f->kind) {
  case FIELD_U64: snprintf(buf, size, "%" PRIu64, v.u); break;
  case FIELD_INT: snprintf(buf, size, "%d", v.i); break;
  case FIELD_BOOL: snprintf(buf, size, "%s", v.i ? "yes" : "no"); break;
  default:
    if (isfinite(v.d)) snprintf(buf, size, "%.2f", v.d);
    else snprintf(buf, size, "-");
  }
}

const char *stats_op_name(int op, char *buf, size_t size) {
  const char *name = ade_op_name(op);
  if (name) return name;
  snprintf(buf, size, "op%d", op);
  return buf;
}
