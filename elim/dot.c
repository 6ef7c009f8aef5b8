/* dot.c: a c-graph or its dual as Graphviz DOT. */
#include <stdio.h>

#include "elim_internal.h"

static const char *const shapes[] = {"box", "circle", "doublecircle"}; /* X, Z, Y */

/* One vertex: its id as name; a dual vertex shows its label too. */
static void dot_vertex(FILE *f, const ade_cgraph *g, const ade__vtx *v) {
  fprintf(f, "  \"%ld\" [shape=%s", v->id, shapes[v->kind]);
  if (g->dual && v->kind == ADE__Z) fprintf(f, ", label=\"%ld\\n%.3g\"", v->id, v->val);
  fputs("];\n", f);
}

/* Independents on one rank at the bottom, dependents at the top. */
static void dot_rank(FILE *f, const ade_cgraph *g, int kind, const char *rank) {
  fprintf(f, "  { rank=%s;", rank);
  for (size_t i = 0; i < g->nv; i++)
    if (g->v[i].alive && g->v[i].kind == kind) fprintf(f, " \"%ld\";", g->v[i].id);
  fputs(" }\n", f);
}

int ade_cgraph_print_dot(const ade_cgraph *g, void *file) {
  FILE *f = file;
  if (!g || !f) return ade__fail(ADE_EINVAL, "ade_cgraph_print_dot: NULL argument");
  fprintf(f, "digraph %s {\n  rankdir=BT;\n  node [fontsize=10];\n  edge [fontsize=9];\n",
          g->dual ? "dual_cgraph" : "cgraph");
  for (size_t i = 0; i < g->nv; i++)
    if (g->v[i].alive) dot_vertex(f, g, &g->v[i]);
  dot_rank(f, g, ADE__X, "source");
  dot_rank(f, g, ADE__Y, "sink");
  for (size_t i = 0; i < g->nv; i++) {
    const ade__vtx *v = &g->v[i];
    for (size_t k = 0; v->alive && k < v->nout; k++) {
      const ade__edge *e = &g->e[v->out[k]];
      fprintf(f, "  \"%ld\" -> \"%ld\"", v->id, g->v[e->dst].id);
      if (!g->dual) fprintf(f, " [label=\"%.3g\"]", e->val);
      fputs(";\n", f);
    }
  }
  fputs("}\n", f);
  return ferror(f) ? ade__fail(ADE_EIO, "writing the DOT graph failed") : ADE_OK;
}
