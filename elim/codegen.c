/* codegen.c: a compiled elimination plan as portable C: one straight-line function from x to the values of J's nonzeros. */
#include <stdio.h>

#include "elim_internal.h"
#include "eval_internal.h"

/* The emitted function replays the tape's records (values, then each
 * operand's partial into its slot, as ade__lin_build and load_inputs do at
 * a new point), then the plan's steps in their order, then copies J's
 * slots: the operations ade_elim_plan_jacobian executes, in its order, each
 * written from the operation table's own source text (ops_rules.h), so the
 * results are bitwise equal wherever both are compiled without contracting
 * a*b + c (doc/elimination.md, "Code generation"). */

#define TEXT_MAX 4096 /* one substituted rule; the table's rules are < 300 */

typedef struct gen {
  FILE *f;
  ade__planinfo P;
  ade_tape *t;
  uint8_t *need;   /* per record id: NEEDED, REF */
  uint8_t *decl;   /* per slot: declared */
  uint8_t *loaded; /* per record of a chunk: a partial goes to a slot */
  size_t loadcap;
  uint8_t used[ADE_OP_COUNT];
  int r_used;      /* the last substitution named the result r */
} gen;

enum { NEEDED = 1, REF = 2 };

/* Each row's name in ADE_OPS, which names its rule functions. */
static const char *const op_enum[ADE_OP_COUNT] = {
#define ADE__OP_ENUMNAME(N, s, k, f) #N,
    ADE_OPS(ADE__OP_ENUMNAME)
#undef ADE__OP_ENUMNAME
};

/* ---------------------------------------------------------- text */

static void literal(char *buf, size_t cap, double c) {
  if (isnan(c)) snprintf(buf, cap, "NAN");
  else if (isinf(c)) snprintf(buf, cap, c < 0 ? "(-INFINITY)" : "INFINITY");
  else snprintf(buf, cap, signbit(c) ? "(%a)" : "%a", c);
}

/* Operand j of record i: its variable, or the tape's constant. */
static void operand(const ade__view *v, uint32_t i, int j, char *buf, size_t cap) {
  const uint64_t id = ade__view_arg(v, i)[j];
  if (id) snprintf(buf, cap, "v%llu", (unsigned long long)id);
  else literal(buf, cap, ade__view_argv(v, i)[j]);
}

static int is_ident(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9'); }

/* src with the rule's names x, y, r, da replaced by C text (da by the
 * substituted text of the first partial); numbers and other identifiers
 * copied. Returns the length, or -1 if it would not fit. */
static int subst(gen *g, const char *src, const char *const name[4], char *out, size_t cap) {
  static const char *const key[4] = {"x", "y", "r", "da"};
  size_t n = 0;
  for (const char *s = src; *s;) {
    const char *from = s, *rep = NULL;
    size_t len;
    if (is_ident((unsigned char)*s) && !(*s >= '0' && *s <= '9')) {
      while (is_ident((unsigned char)*s)) s++;
      for (int k = 0; k < 4; k++)
        if (name[k] && strlen(key[k]) == (size_t)(s - from) && !memcmp(from, key[k], (size_t)(s - from))) rep = name[k];
      if (rep == name[2] && rep) g->r_used = 1;
    } else if ((*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9')) {
      while (is_ident((unsigned char)*s) || *s == '.' ||
             ((*s == '+' || *s == '-') && strchr("eEpP", s[-1]))) s++;
    } else {
      s++;
    }
    len = rep ? strlen(rep) : (size_t)(s - from);
    if (n + len + 1 > cap) return -1;
    memcpy(out + n, rep ? rep : from, len);
    n += len;
  }
  out[n] = 0;
  return (int)n;
}

/* Function text from the table (one line, as the preprocessor gives it),
 * one statement per line. */
static void print_code(FILE *f, const char *s) {
  int depth = 0, indent = 0, bol = 1;
  for (; *s; s++) {
    if (bol && *s == ' ') continue;
    if (*s == '}') {
      indent--;
      if (!bol) fputc('\n', f);
      bol = 1;
    }
    for (int k = 0; bol && k < indent; k++) fputs("  ", f);
    bol = 0;
    fputc(*s, f);
    depth += (*s == '(') - (*s == ')');
    indent += *s == '{';
    if (*s == '}' && !strncmp(s + 1, " else", 5)) continue;
    if (*s == '{' || *s == '}' || (*s == ';' && !depth)) {
      fputc('\n', f);
      bol = 1;
    }
  }
}

/* ---------------------------------------------------------- passes */

/* Per record of the loaded chunk: whether a partial goes to a slot; k is
 * the chunk's first operand in linearized order (ade__lin_build's). */
static size_t mark_loaded(gen *g, const ade__view *v, size_t k) {
  for (uint32_t i = 0; i < v->n; i++) {
    const unsigned op = v->op[i];
    const uint64_t *arg = ade__view_arg(v, i);
    const int arity = ade__optab[op].arity;
    g->loaded[i] = 0;
    if (!arity || (ade__optab[op].flags & ADE__PASSIVE)) continue;
    for (int j = 0; j < arity; j++)
      if (arg[j] && g->P.init[k++]) g->loaded[i] = 1;
  }
  return k;
}

/* Backward over the tape: a record is needed if a partial of it goes to a
 * slot, if it is a comparison (its flip is checked) or if a needed record
 * reads it; everything else is left out of the code. */
static int mark_needed(gen *g) {
  ade_tape *t = g->t;
  size_t koff = 0;
  for (size_t c = 0; c < g->P.nchunks; c++) koff += g->P.chunk_ops[c];
  for (size_t c = g->P.nchunks; c-- > 0;) {
    int st = ade__view_load(t, c);
    if (st) return st;
    const ade__view *v = &t->view;
    if (v->n > g->loadcap) {
      uint8_t *l = ade__realloc(g->loaded, v->n);
      if (!l) return ade__fail(ADE_ENOMEM, "out of memory generating code for chunk %zu", c);
      g->loaded = l, g->loadcap = v->n;
    }
    koff -= g->P.chunk_ops[c];
    if (mark_loaded(g, v, koff) - koff != g->P.chunk_ops[c])
      return ade__fail(ADE_EINVAL, "chunk %zu has not the operands the plan was compiled for", c);
    for (uint32_t i = v->n; i-- > 0;) {
      const unsigned op = v->op[i];
      const uint64_t rid = v->first + i + 1, *arg = ade__view_arg(v, i);
      if (!(g->need[rid] & NEEDED) && !g->loaded[i] && op < ADE_OP_LT) continue;
      g->need[rid] |= NEEDED;
      g->used[op] = 1;
      for (int j = 0; j < ade__optab[op].arity; j++)
        if (arg[j]) g->need[arg[j]] |= NEEDED | REF;
    }
  }
  return ADE_OK;
}

/* Slot s named in the code: declared (0, as load_inputs zeroes slots
 * 1..ninit) where it is first used without a value of its own. */
static void slot_use(gen *g, size_t s) {
  if (g->decl[s]) return;
  g->decl[s] = 1;
  fprintf(g->f, "  double s%zu = 0.0;\n", s);
}

/* One partial, text, added to slot s: the interpreter's val[s] += d with
 * val[s] zeroed first (0.0 + d keeps its sign of zero: +0). */
static void add_partial(gen *g, size_t s, const char *text) {
  if (g->decl[s]) {
    fprintf(g->f, "  s%zu += %s;\n", s, text);
  } else {
    g->decl[s] = 1;
    fprintf(g->f, "  double s%zu = 0.0 + (%s);\n", s, text);
  }
}

/* A row whose rules are functions (fn): called on an operand array. */
static void emit_call(gen *g, const ade__view *v, uint32_t i, const char *opname, size_t *k) {
  const unsigned op = v->op[i];
  const int arity = ade__optab[op].arity;
  const uint64_t rid = v->first + i + 1, *arg = ade__view_arg(v, i);
  char a[ADE__MAX_ARITY][64];
  size_t k0 = *k;
  for (int j = 0; j < arity; j++) {
    operand(v, i, j, a[j], sizeof a[j]);
    if (arg[j] && g->P.init[*k]) slot_use(g, g->P.init[*k]);
    *k += arg[j] != 0;
  }
  fprintf(g->f, "  double v%llu; /* %s */\n  {\n    const double a[%d] = {", (unsigned long long)rid,
          ade__optab[op].name, arity);
  for (int j = 0; j < arity; j++) fprintf(g->f, "%s%s", j ? ", " : "", a[j]);
  fprintf(g->f, "};\n    double d[%d], h[6];\n    v%llu = ade__val_%s(a);\n", arity, (unsigned long long)rid, opname);
  if (g->loaded[i]) fprintf(g->f, "    (void)ade__der_%s(a, v%llu, d, h);\n", opname, (unsigned long long)rid);
  for (int j = 0; j < arity; j++) {
    if (arg[j] && g->P.init[k0]) fprintf(g->f, "    s%zu += d[%d];\n", g->P.init[k0], j);
    k0 += arg[j] != 0;
  }
  fprintf(g->f, "    (void)d, (void)h;\n  }\n");
}

/* A row written as expressions: the value, a recorded comparison's check,
 * the partials that go to slots. */
static int emit_expr(gen *g, const ade__view *v, uint32_t i, const ade__opsrc *src, size_t *k) {
  const unsigned op = v->op[i];
  const int arity = ade__optab[op].arity;
  const uint64_t rid = v->first + i + 1, *arg = ade__view_arg(v, i);
  char a[2][64], r[32], da[TEXT_MAX + 2], d[2][TEXT_MAX], val[TEXT_MAX];
  const char *name[4] = {a[0], arity > 1 ? a[1] : NULL, r, NULL};
  int nd[2] = {0, 0};
  for (int j = 0; j < arity; j++) operand(v, i, j, a[j], sizeof a[j]);
  snprintf(r, sizeof r, "v%llu", (unsigned long long)rid);
  g->r_used = 0;
  if (subst(g, src->val, name, val, sizeof val) < 0) return ade__fail(ADE_EINVAL, "rule text too long");
  g->r_used = 0;
  if (g->loaded[i] && arity > 1) { /* da, named by the second partial's rule */
    if (subst(g, src->d[0], name, d[0], sizeof d[0]) < 0) return ade__fail(ADE_EINVAL, "rule text too long");
    snprintf(da, sizeof da, "(%s)", d[0]);
    name[3] = da;
  }
  for (int j = 0; g->loaded[i] && j < arity; j++) {
    nd[j] = arg[j] && g->P.init[*k + (j && arg[0])];
    if (nd[j] && subst(g, src->d[j], name, d[j], sizeof d[j]) < 0) return ade__fail(ADE_EINVAL, "rule text too long");
  }
  if ((g->need[rid] & REF) || g->r_used)
    fprintf(g->f, "  const double %s = %s; /* %s */\n", r, val, ade__optab[op].name);
  if (op >= ADE_OP_LT)
    fprintf(g->f, "  if ((%s) != %s) ++flips; /* %s */\n", val, v->val[i] != 0 ? "1.0" : "0.0",
            ade__optab[op].name);
  for (int j = 0; j < arity && !(ade__optab[op].flags & ADE__PASSIVE); j++) {
    if (nd[j]) add_partial(g, g->P.init[*k], d[j]);
    *k += arg[j] != 0;
  }
  return ADE_OK;
}

static int emit_record(gen *g, const ade__view *v, uint32_t i, size_t *ix, size_t *k) {
  const unsigned op = v->op[i];
  const uint64_t rid = v->first + i + 1;
  const ade__opsrc src = ade__op_source(op);
  if (op == ADE_OP_INDEP) {
    if (g->need[rid] & REF) fprintf(g->f, "  const double v%llu = x[%zu];\n", (unsigned long long)rid, *ix);
    ++*ix;
    return ADE_OK;
  }
  if (!(g->need[rid] & NEEDED)) { /* left out: skip its operands */
    for (int j = 0; !(ade__optab[op].flags & ADE__PASSIVE) && j < ade__optab[op].arity; j++)
      *k += ade__view_arg(v, i)[j] != 0;
    return ADE_OK;
  }
  if (src.fn) {
    emit_call(g, v, i, op_enum[op], k);
    return ADE_OK;
  }
  return emit_expr(g, v, i, &src, k);
}

/* ---------------------------------------------------------- the file */

static void emit_array(FILE *f, const char *name, const char *what, const size_t *a, size_t n) {
  fprintf(f, "/* %s */\nconst long %s[%zu] = {", what, name, n ? n : 1);
  for (size_t k = 0; k < n; k++) fprintf(f, "%s%s%zu", k ? "," : "", k % 16 ? " " : "\n  ", a[k]);
  fprintf(f, "%s\n};\n\n", n ? "" : "0");
}

static void emit_prelude(gen *g, const char *fname) {
  FILE *f = g->f;
  const ade__planinfo *P = &g->P;
  const char *method = P->method >= 0 ? ade_order_name(P->method) : NULL;
  fprintf(f, "/* %s: the Jacobian's nonzeros of a recorded tape, generated by adelim from a\n"
             " * compiled elimination plan (%s; %llu multiply-adds).\n"
             " * J is %zu x %zu with %zu nonzeros; the tape has %llu records.\n"
             " *\n"
             " * int %s(const double *x, double *nz): nz[k] = the value at x of the\n"
             " * k-th nonzero in the row-major order of %s_rowptr/%s_col; returns 0, or\n"
             " * the number of recorded comparisons that differ at x: the code follows\n"
             " * the recorded path only, so nz is then that path's Jacobian.\n"
             " *\n"
             " * Compile without contracting a*b+c into fma (e.g. cc -O2\n"
             " * -ffp-contract=off; the pragma below is for compilers that honour it):\n"
             " * the results then equal ade_elim_plan_jacobian's bit for bit. */\n"
             "#include <math.h>\n\n#pragma STDC FP_CONTRACT OFF\n\n",
          fname, method ? method : "a given elimination sequence", (unsigned long long)P->fma, P->m, P->n,
          P->nnz, (unsigned long long)P->records, fname, fname, fname);
  fprintf(f, "/* The operation rules this code uses, from adelim's operation table. */\n");
  fprintf(f, "#define ADE__2_SQRTPI %s\n#define ADE__LN10 %s\n", ADE__XSTR(ADE__2_SQRTPI), ADE__XSTR(ADE__LN10));
  fprintf(f, "#ifndef ADELIM_H\nenum { ADE_DIAG_KINK = %d, ADE_DIAG_SINGULAR = %d, ADE_DIAG_NONFINITE = %d };\n#endif\n",
          ADE_DIAG_KINK, ADE_DIAG_SINGULAR, ADE_DIAG_NONFINITE);
  print_code(f, ade__src_helpers().fn);
  for (unsigned op = 0; op < ADE_OP_COUNT; op++)
    if (g->used[op] && ade__op_source(op).fn) print_code(f, ade__op_source(op).fn);
  fprintf(f, "\n/* J's structure: %zu rows, %zu columns, %zu nonzeros (CSR). */\n", P->m, P->n, P->nnz);
  fprintf(f, "const long %s_m = %zu, %s_n = %zu, %s_nnz = %zu;\n\n", fname, P->m, fname, P->n, fname, P->nnz);
  char name[300];
  snprintf(name, sizeof name, "%s_rowptr", fname);
  emit_array(f, name, "row i's nonzeros are nz[rowptr[i]] .. nz[rowptr[i+1]-1]", P->rowptr, P->m + 1);
  snprintf(name, sizeof name, "%s_col", fname);
  emit_array(f, name, "each nonzero's column", P->col, P->nnz);
}

/* The plan's steps, in its order, then J's slots. */
static void emit_program(gen *g) {
  const ade__planrec *r = g->P.prog;
  fprintf(g->f, "\n  /* The elimination: %zu steps, %llu multiply-adds, in the plan's order. */\n", r->n,
          (unsigned long long)g->P.fma);
  for (size_t k = 0; k < r->n; k++) {
    const size_t d = r->d[k], a = r->a[k], b = r->b[k];
    slot_use(g, a);
    if (r->kind[k] != ADE__P_ADD) slot_use(g, b);
    if (r->kind[k] == ADE__P_SET) {
      fprintf(g->f, "  %ss%zu = s%zu * s%zu;\n", g->decl[d] ? "" : "double ", d, a, b);
      g->decl[d] = 1;
      continue;
    }
    slot_use(g, d);
    if (r->kind[k] == ADE__P_FMA) fprintf(g->f, "  s%zu += s%zu * s%zu;\n", d, a, b);
    else fprintf(g->f, "  s%zu += s%zu;\n", d, a);
  }
  fprintf(g->f, "\n  /* J's nonzeros, row by row. */\n");
  for (size_t k = 0; k < g->P.nnz; k++) {
    slot_use(g, g->P.out[k]);
    fprintf(g->f, "  nz[%zu] = s%zu;\n", k, g->P.out[k]);
  }
}

static int emit_function(gen *g, const char *fname) {
  ade_tape *t = g->t;
  size_t ix = 0, k = 0;
  fprintf(g->f, "\nint %s(const double *x, double *nz) {\n  int flips = 0;\n  (void)x, (void)nz;\n\n"
                "  /* The tape: values, recorded comparisons, partials into the slots s. */\n", fname);
  for (size_t c = 0; c < g->P.nchunks; c++) {
    int st = ade__view_load(t, c);
    if (st) return st;
    mark_loaded(g, &t->view, k);
    for (uint32_t i = 0; i < t->view.n && !st; i++) st = emit_record(g, &t->view, i, &ix, &k);
    if (st) return st;
  }
  emit_program(g);
  fprintf(g->f, "  return flips;\n}\n");
  return ADE_OK;
}

static int valid_name(const char *s) {
  if (!s || !*s || strlen(s) > 200 || (*s >= '0' && *s <= '9')) return 0;
  for (; *s; s++)
    if (!is_ident((unsigned char)*s)) return 0;
  return 1;
}

static int codegen(const ade_elim_plan *p, ade_tape *t, const char *fname, FILE *f) {
  gen g;
  memset(&g, 0, sizeof g);
  if (!p || !f) return ade__fail(ADE_EINVAL, "ade_plan_codegen: NULL argument");
  if (!valid_name(fname)) return ade__fail(ADE_EINVAL, "ade_plan_codegen: '%s' is not a C identifier", fname ? fname : "(null)");
  int st = ade__tape_usable(t);
  if (st) return st;
  ade__plan_info(p, &g.P);
  if (t->meta.records != g.P.records || t->meta.nchunks != g.P.nchunks)
    return ade__fail(ADE_EINVAL, "the plan was compiled for a tape of %llu records in %zu chunks, not %llu in %zu",
                     (unsigned long long)g.P.records, g.P.nchunks, (unsigned long long)t->meta.records,
                     t->meta.nchunks);
  g.f = f, g.t = t;
  size_t nrec = (size_t)t->meta.records + 1;
  st = ade__budget(t->memlimit, nrec + g.P.nslot + 1, "code generation's marks for %zu records", nrec);
  if (!st) {
    g.need = ade__calloc(nrec, 1);
    g.decl = ade__calloc(g.P.nslot + 1, 1);
    if (!g.need || !g.decl) st = ade__fail(ADE_ENOMEM, "out of memory generating code for %zu records", nrec);
  }
  if (!st) st = mark_needed(&g);
  if (!st) {
    emit_prelude(&g, fname);
    st = emit_function(&g, fname);
  }
  if (!st && (fflush(f) || ferror(f))) st = ade__fail(ADE_EIO, "ade_plan_codegen: write error");
  ade__free(g.need);
  ade__free(g.decl);
  ade__free(g.loaded);
  return st;
}

int ade_plan_codegen(const ade_elim_plan *p, ade_tape *shared, const char *fname, void *file) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : codegen(p, t, fname, file));
}
