/* stats_lists.c: `adelim stats --diagnostics / --regions`, text and JSON. */
#include <inttypes.h>

#include "cli.h"
#include "stats.h"

/* Region depths come from the file: indent at most this deep. */
#define MAX_INDENT 32

static const char *kind_name(int kind) {
  switch (kind) {
  case ADE_DIAG_KINK: return "kink";
  case ADE_DIAG_SINGULAR: return "singular";
  case ADE_DIAG_NONFINITE: return "nonfinite";
  default: return "unknown";
  }
}

int stats_list_diagnostics(const stats_tape *t, FILE *f) {
  size_t n = ade_tape_num_diagnostics(t->tape);
  fputs("\ndiagnostics of ", f);
  cli_put_text(f, t->path);
  fprintf(f, " (%zu):\n", n);
  for (size_t i = 0; i < n; i++) {
    ade_diagnostic d;
    char name[16];
    int rc = ade_tape_diagnostic(t->tape, i, &d);
    if (rc < 0) return cli_tape_error(t->path, "cannot read diagnostic", rc);
    fprintf(f, "  op %-8" PRIu64 " %-9s %-9s ", d.op,
            stats_op_name(d.opcode, name, sizeof name), kind_name(d.kind));
    if (d.site && *d.site) cli_put_text(f, d.site);
    else fputs("(no call site: recorded without capture)", f);
    fputc('\n', f);
  }
  return CLI_OK;
}

static int clamp_depth(int depth) {
  return depth < 0 ? 0 : depth > MAX_INDENT ? MAX_INDENT : depth;
}

static void print_region(const stats_tape *t, size_t i, const ade_region *r,
                         FILE *f) {
  int indent = 2 + 2 * clamp_depth(r->depth);
  fprintf(f, "%*s", indent, "");
  cli_put_text(f, r->name && *r->name ? r->name : "(unnamed)");
  fprintf(f, "  ops [%" PRIu64 ", %" PRIu64 ")\n", r->first_op, r->end_op);
  for (size_t k = 0; k < r->nframes; k++) {
    const char *frame = ade_tape_region_frame(t->tape, i, k);
    if (!frame) break;
    fprintf(f, "%*sat ", indent + 4, "");
    cli_put_text(f, frame);
    fputc('\n', f);
  }
}

int stats_list_regions(const stats_tape *t, FILE *f) {
  size_t n = ade_tape_num_regions(t->tape);
  fputs("\nregions of ", f);
  cli_put_text(f, t->path);
  fprintf(f, " (%zu):\n", n);
  for (size_t i = 0; i < n; i++) {
    ade_region r;
    int rc = ade_tape_region(t->tape, i, &r);
    if (rc < 0) return cli_tape_error(t->path, "cannot read region", rc);
    print_region(t, i, &r, f);
  }
  return CLI_OK;
}

int stats_json_diagnostics(const stats_tape *t, cli_json *j) {
  size_t n = ade_tape_num_diagnostics(t->tape);
  int status = CLI_OK;
  cli_json_open(j, "diagnostic_list", '[', 0);
  for (size_t i = 0; i < n && status == CLI_OK; i++) {
    ade_diagnostic d;
    char name[16];
    int rc = ade_tape_diagnostic(t->tape, i, &d);
    if (rc < 0) {
      status = cli_tape_error(t->path, "cannot read diagnostic", rc);
      break; /* the JSON stays well-formed */
    }
    cli_json_open(j, NULL, '{', 1);
    cli_json_u64(j, "op", d.op);
    cli_json_int(j, "opcode", d.opcode);
    cli_json_str(j, "name", stats_op_name(d.opcode, name, sizeof name));
    cli_json_str(j, "kind", kind_name(d.kind));
    cli_json_str(j, "site", d.site);
    cli_json_close(j);
  }
  cli_json_close(j);
  return status;
}

static void json_region(const stats_tape *t, size_t i, const ade_region *r, cli_json *j) {
  cli_json_open(j, NULL, '{', 1);
  cli_json_str(j, "name", r->name);
  cli_json_int(j, "parent", r->parent);
  cli_json_int(j, "depth", r->depth);
  cli_json_u64(j, "first_op", r->first_op);
  cli_json_u64(j, "end_op", r->end_op);
  cli_json_open(j, "frames", '[', 1);
  for (size_t k = 0; k < r->nframes; k++) {
    const char *frame = ade_tape_region_frame(t->tape, i, k);
    if (!frame) break;
    cli_json_str(j, NULL, frame);
  }
  cli_json_close(j);
  cli_json_close(j);
}

int stats_json_regions(const stats_tape *t, cli_json *j) {
  size_t n = ade_tape_num_regions(t->tape);
  int status = CLI_OK;
  cli_json_open(j, "region_list", '[', 0);
  for (size_t i = 0; i < n; i++) {
    ade_region r;
    int rc = ade_tape_region(t->tape, i, &r);
    if (rc < 0) {
      status = cli_tape_error(t->path, "cannot read region", rc);
      break;
    }
    json_region(t, i, &r, j);
  }
  cli_json_close(j);
  return status;
}
