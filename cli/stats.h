/* stats.h: shared parts of `adelim stats` (table, JSON and listings). */
#ifndef ADE_CLI_STATS_H
#define ADE_CLI_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <adelim.h>

#include "cli.h"

/* One open tape and its statistics. */
typedef struct stats_tape {
  const char *path;
  ade_tape *tape;
  ade_stats st;
} stats_tape;

/* What to print besides the counts. */
typedef struct stats_flags {
  int json, diagnostics, regions;
} stats_flags;

enum { FIELD_U64, FIELD_INT, FIELD_BOOL, FIELD_DBL };

/* One scalar field of ade_stats: its row label and JSON key. */
typedef struct stats_field {
  const char *label, *key;
  int kind;
  size_t offset;
} stats_field;

extern const stats_field stats_fields[];
extern const size_t stats_nfields;

/* A field's value: u (FIELD_U64), i (FIELD_INT, FIELD_BOOL) or d. */
typedef struct stats_value {
  uint64_t u;
  int i;
  double d;
} stats_value;

stats_value stats_get(const ade_stats *s, const stats_field *f);

/* A field's value as text for the table ("yes", "12", "3.45", "-"). */
void stats_format(char *buf, size_t size, const ade_stats *s,
                  const stats_field *f);
/* An opcode's name, or "opN" for one the library does not name. */
const char *stats_op_name(int op, char *buf, size_t size);

/* Listings after the table (text) or inside a tape's object (JSON);
 * each returns CLI_OK or CLI_FAIL. */
int stats_list_diagnostics(const stats_tape *t, FILE *f);
int stats_list_regions(const stats_tape *t, FILE *f);
int stats_json_diagnostics(const stats_tape *t, cli_json *j);
int stats_json_regions(const stats_tape *t, cli_json *j);

/* The whole JSON array. */
int stats_print_json(const stats_tape *t, size_t n, const stats_flags *fl,
                     FILE *f);

#endif /* ADE_CLI_STATS_H */
