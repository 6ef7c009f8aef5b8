/* codegen.c: a compiled elimination plan as portable C: one function from x to the values of J's nonzeros, straight-line (or loops over tables for large plans). */
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
  size_t *vidx;    /* table form: each needed value's index, 0 = none */
  uint8_t *loaded; /* per record of a chunk: bit j, operand j's partial goes to a slot */
  size_t loadcap;
  uint8_t used[ADE_OP_COUNT];
  int table;       /* loops over tables instead of straight-line code */
  size_t stmts;    /* statements of straight-line code */
  size_t nrec;     /* table form: records in the table */
} gen;

/* Straight-line code takes the compiler superlinear time beyond some size
 * (register allocation over one huge block, doc/benchmarks.md); larger
 * plans are written as loops over tables. */
#define TABLE_STMTS 25000

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

/* Whether rule text src names the identifier id. */
static int mentions(const char *src, const char *id) {
  const size_t n = strlen(id);
  for (const char *s = src; *s;) {
    const char *from = s;
    if (is_ident((unsigned char)*s) && !(*s >= '0' && *s <= '9')) {
      while (is_ident((unsigned char)*s)) s++;
      if ((size_t)(s - from) == n && !memcmp(from, id, n)) return 1;
    } else if (*s >= '0' && *s <= '9') {
      while (is_ident((unsigned char)*s) || *s == '.') s++;
    } else {
      s++;
    }
  }
  return 0;
}

/* src with the rule's names x, y, r, da replaced by C text (da by the
 * substituted text of the first partial); numbers and other identifiers
 * copied. Returns the length, or -1 if it would not fit. */
static int subst(const char *src, const char *const name[4], char *out, size_t cap) {
  static const char *const key[4] = {"x", "y", "r", "da"};
  size_t n = 0;
  for (const char *s = src; *s;) {
    const char *from = s, *rep = NULL;
    size_t len;
    if (is_ident((unsigned char)*s) && !(*s >= '0' && *s <= '9')) {
      while (is_ident((unsigned char)*s)) s++;
      for (int k = 0; k < 4; k++)
        if (name[k] && strlen(key[k]) == (size_t)(s - from) && !memcmp(from, key[k], (size_t)(s - from))) rep = name[k];
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
      if (arg[j] && g->P.init[k++]) g->loaded[i] |= (uint8_t)(1u << j);
  }
  return k;
}

/* The operands (bit j: operand j) whose values the code of needed record i
 * reads: all where its value is computed (REF: read by others, or named by
 * its partials as r, or a comparison), else those its partials' rules name. */
static unsigned operands_read(gen *g, unsigned op, uint32_t i, uint64_t rid) {
  const ade__opsrc src = ade__op_source(op);
  const int arity = ade__optab[op].arity;
  unsigned reads = 0;
  if (g->loaded[i] && src.fn) g->need[rid] |= REF;
  for (int j = 0; !src.fn && j < arity; j++) {
    const char *d = src.d[j];
    if (!(g->loaded[i] >> j & 1)) continue;
    if (mentions(d, "r") || (mentions(d, "da") && mentions(src.d[0], "r"))) g->need[rid] |= REF;
    if (mentions(d, "x") || (mentions(d, "da") && mentions(src.d[0], "x"))) reads |= 1;
    if (mentions(d, "y") || (mentions(d, "da") && mentions(src.d[0], "y"))) reads |= 2;
  }
  return (g->need[rid] & REF) || op >= ADE_OP_LT ? 7u : reads;
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
      g->stmts += 1u + (g->loaded[i] != 0);
      const unsigned reads = operands_read(g, op, i, rid);
      for (int j = 0; j < ade__optab[op].arity; j++)
        if (arg[j] && (reads >> j & 1)) g->need[arg[j]] |= NEEDED | REF;
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
  if (subst(src->val, name, val, sizeof val) < 0) return ade__fail(ADE_EINVAL, "rule text too long");
  if (g->loaded[i] && arity > 1) { /* da, named by the second partial's rule */
    if (subst(src->d[0], name, d[0], sizeof d[0]) < 0) return ade__fail(ADE_EINVAL, "rule text too long");
    snprintf(da, sizeof da, "(%s)", d[0]);
    name[3] = da;
  }
  for (int j = 0; g->loaded[i] && j < arity; j++) {
    nd[j] = arg[j] && g->P.init[*k + (j && arg[0])];
    if (nd[j] && subst(src->d[j], name, d[j], sizeof d[j]) < 0) return ade__fail(ADE_EINVAL, "rule text too long");
  }
  if (g->need[rid] & REF)
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
  const char *method = P->method >= 0 ? ade_elim_method_name(P->method) : NULL;
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
             "#include <math.h>\n\n#if !defined(__GNUC__) || defined(__clang__) /* GCC ignores it */\n"
             "#pragma STDC FP_CONTRACT OFF\n#endif\n\n",
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

/* ------------------------------------------------- the table form */

/* One case of the record loop: the row's value and the partials that go to
 * slots (L[j], 0: none), from the table's text with its own names x, y, r,
 * da in scope, in the interpreter's order. */
static void table_case(gen *g, unsigned op) {
  const ade__opsrc src = ade__op_source(op);
  const int arity = ade__optab[op].arity;
  FILE *f = g->f;
  fprintf(f, "    case %u: { /* %s */\n", op, ade__optab[op].name);
  if (op == ADE_OP_INDEP) {
    fprintf(f, "      r = x[L[0]];\n      break;\n    }\n");
    return;
  }
  if (src.fn) {
    fprintf(f, "      double d[3], h[6];\n      r = ade__val_%s(a);\n", op_enum[op]);
    fprintf(f, "      if (L[0] || L[1] || L[2]) {\n        (void)ade__der_%s(a, r, d, h);\n", op_enum[op]);
    for (int j = 0; j < arity; j++) fprintf(f, "        if (L[%d]) s[L[%d]] += d[%d];\n", j, j, j);
    fprintf(f, "      }\n      break;\n    }\n");
    return;
  }
  fprintf(f, arity > 1 ? "      const double x = a[0], y = a[1];\n      (void)x, (void)y;\n"
                       : "      const double x = a[0];\n      (void)x;\n");
  fprintf(f, "      r = %s;\n", src.val);
  if (op >= ADE_OP_LT) fprintf(f, "      if (r != (double)R->cmp) ++flips;\n");
  if (!(ade__optab[op].flags & ADE__PASSIVE)) {
    fprintf(f, "      if (L[0]%s) {\n        const double da = (%s);\n        (void)da;\n", arity > 1 ? " || L[1]" : "",
            src.d[0]);
    fprintf(f, "        if (L[0]) s[L[0]] += da;\n");
    if (arity > 1) fprintf(f, "        if (L[1]) s[L[1]] += (%s);\n", src.d[1]);
    fprintf(f, "      }\n");
  }
  fprintf(f, "      break;\n    }\n");
}

/* One record's row of the table: opcode, recorded comparison, operands
 * (value index, 0: the constant c), the slots of the partials. */
static void table_row(gen *g, const ade__view *v, uint32_t i, size_t *ix, size_t *k) {
  const unsigned op = v->op[i];
  const int arity = ade__optab[op].arity, active = arity && !(ade__optab[op].flags & ADE__PASSIVE);
  const uint64_t rid = v->first + i + 1, *arg = ade__view_arg(v, i);
  const double *argv = ade__view_argv(v, i);
  size_t ld[3] = {0, 0, 0}, gi[3] = {0, 0, 0};
  char c[3][48];
  if (op == ADE_OP_INDEP) ld[0] = (*ix)++;
  for (int j = 0; j < 3; j++) snprintf(c[j], sizeof c[j], "0");
  for (int j = 0; j < arity; j++) {
    if (arg[j]) gi[j] = g->vidx[arg[j]];
    else literal(c[j], sizeof c[j], argv[j]);
    if (active && arg[j]) ld[j] = g->P.init[(*k)++];
  }
  if (!(g->need[rid] & NEEDED) && !(op == ADE_OP_INDEP && (g->need[rid] & REF))) return;
  g->vidx[rid] = ++g->nrec;
  fprintf(g->f, "  {%u, %d, {%zu, %zu, %zu}, {%s, %s, %s}, {%zu, %zu, %zu}}, /* v%zu: %s */\n", op,
          op >= ADE_OP_LT && v->val[i] != 0, gi[0], gi[1], gi[2], c[0], c[1], c[2], ld[0], ld[1], ld[2], g->nrec,
          ade__optab[op].name);
}

static void table_prog(gen *g, const char *fname) {
  const ade__planrec *r = g->P.prog;
  fprintf(g->f, "\n/* The elimination, in the plan's order: {kind, d, a, b}: kind 0 s[d] = s[a] * s[b],\n"
                " * 1 s[d] += s[a] * s[b], 2 s[d] += s[a]. */\n"
                "static const struct %s_step { unsigned char kind; long d, a, b; } %s_prog[%zu] = {\n",
          fname, fname, r->n + 1);
  for (size_t k = 0; k < r->n; k++) fprintf(g->f, "  {%u, %zu, %zu, %zu},\n", r->kind[k], r->d[k], r->a[k], r->b[k]);
  fprintf(g->f, "  {2, 0, 0, 0} /* (one more step, on slot 0) */\n};\n\n");
  char name[300];
  snprintf(name, sizeof name, "%s_out", fname);
  emit_array(g->f, name, "the slot of each of J's nonzeros", g->P.out, g->P.nnz);
}

static int emit_tables(gen *g, const char *fname) {
  ade_tape *t = g->t;
  size_t ix = 0, k = 0, nrec = (size_t)t->meta.records + 1;
  FILE *f = g->f;
  int st = ade__budget(t->memlimit, ade__mul_size(nrec, sizeof *g->vidx), "code generation's map of %zu records", nrec);
  if (!st && !(g->vidx = ade__calloc(nrec, sizeof *g->vidx)))
    st = ade__fail(ADE_ENOMEM, "out of memory generating code for %zu records", nrec);
  if (st) return st;
  fprintf(f, "\n/* The tape's records that matter, in order: {opcode, recorded comparison,\n"
             " * operands (value index; 0: the constant c), constants c, the slot of\n"
             " * each operand's partial (0: none; an independent: its index in x)}. */\n"
             "struct %s_rec { unsigned char op, cmp; long arg[3]; double c[3]; long ld[3]; };\n"
             "static const struct %s_rec %s_rec[] = {\n", fname, fname, fname);
  for (size_t c = 0; c < g->P.nchunks; c++) {
    if ((st = ade__view_load(t, c))) return st;
    mark_loaded(g, &t->view, k);
    for (uint32_t i = 0; i < t->view.n; i++) table_row(g, &t->view, i, &ix, &k);
  }
  fprintf(f, "  {%u, 0, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}} /* (one more: a copy of v0) */\n};\n", ADE_OP_DEP);
  table_prog(g, fname);
  fprintf(f, "/* Values and slots (static: one per thread from C11 on; not reentrant\n"
             " * before C11). */\n"
             "#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L\n#define %s_LOCAL static _Thread_local\n"
             "#else\n#define %s_LOCAL static\n#endif\n\n", fname, fname);
  fprintf(f, "static int %s_run(const double *x, double *nz, double *v, double *s) {\n  int flips = 0;\n"
             "  for (long k = 1; k <= %zu; k++) s[k] = 0.0;\n\n"
             "  /* The tape: values, recorded comparisons, partials into the slots s. */\n"
             "  for (long i = 0; i < %zu; i++) {\n"
             "    const struct %s_rec *R = &%s_rec[i];\n    const long *L = R->ld;\n    double a[3], r = 0.0;\n"
             "    for (int j = 0; j < 3; j++) a[j] = R->arg[j] ? v[R->arg[j]] : R->c[j];\n"
             "    switch (R->op) {\n", fname, g->P.ninit, g->nrec, fname, fname);
  for (unsigned op = 0; op < ADE_OP_COUNT; op++)
    if (g->used[op] || op == ADE_OP_INDEP) table_case(g, op);
  fprintf(f, "    }\n    v[i + 1] = r;\n  }\n\n"
             "  /* The elimination: %zu steps, %llu multiply-adds, in the plan's order. */\n"
             "  for (long k = 0; k < %zu; k++) {\n    const struct %s_step *P = &%s_prog[k];\n"
             "    if (P->kind == 0) s[P->d] = s[P->a] * s[P->b];\n"
             "    else if (P->kind == 1) s[P->d] += s[P->a] * s[P->b];\n    else s[P->d] += s[P->a];\n  }\n\n"
             "  /* J's nonzeros, row by row. */\n  for (long k = 0; k < %zu; k++) nz[k] = s[%s_out[k]];\n"
             "  return flips;\n}\n",
          g->P.prog->n, (unsigned long long)g->P.fma, g->P.prog->n, fname, fname, g->P.nnz, fname);
  /* Called through a volatile pointer, never inlined: compilers would
   * look up a thread-local array's address again at every access. */
  fprintf(f, "\nint %s(const double *x, double *nz) {\n  %s_LOCAL double v[%zu], s[%zu];\n"
             "  static int (*volatile run)(const double *, double *, double *, double *) = %s_run;\n"
             "  return run(x, nz, v, s);\n}\n", fname, fname, g->nrec + 2, g->P.nslot + 1, fname);
  return ADE_OK;
}

static int valid_name(const char *s) {
  if (!s || !*s || strlen(s) > 200 || (*s >= '0' && *s <= '9')) return 0;
  for (; *s; s++)
    if (!is_ident((unsigned char)*s)) return 0;
  return 1;
}

static int codegen(const ade_elim_plan *p, ade_tape *t, const char *fname, FILE *f, size_t table_at) {
  gen g;
  memset(&g, 0, sizeof g);
  if (!p || !f) return ade__fail(ADE_EINVAL, "ade_plan_codegen: NULL argument");
  if (!valid_name(fname)) return ade__fail(ADE_EINVAL, "ade_plan_codegen: '%s' is not a C identifier", fname ? fname : "(null)");
  int st = ade__tape_usable(t);
  if (!st) st = ade__tape_scalar(t, "ade_plan_codegen");
  if (st) return st;
  ade__plan_info(p, &g.P);
  if (!g.P.prog || g.P.method == ADE_ELIM_CPR_FORWARD || g.P.method == ADE_ELIM_CPR_REVERSE)
    return ade__fail(ADE_EINVAL, "ade_plan_codegen: a CPR plan has no elimination to emit (use an ordering)");
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
  g.table = g.stmts + g.P.prog->n + g.P.nnz > table_at;
  if (!st) {
    emit_prelude(&g, fname);
    st = g.table ? emit_tables(&g, fname) : emit_function(&g, fname);
  }
  if (!st && (fflush(f) || ferror(f))) st = ade__fail(ADE_EIO, "ade_plan_codegen: write error");
  ade__free(g.need);
  ade__free(g.vidx);
  ade__free(g.decl);
  ade__free(g.loaded);
  return st;
}

int ade__plan_codegen(const ade_elim_plan *p, ade_tape *shared, const char *fname, void *file, size_t table_at) {
  ade_tape *t;
  int st = ade__tape_borrow(shared, &t);
  return ade__tape_release(shared, t, st ? st : codegen(p, t, fname, file, table_at));
}

int ade_plan_codegen(const ade_elim_plan *p, ade_tape *t, const char *fname, void *file) {
  return ade__plan_codegen(p, t, fname, file, TABLE_STMTS);
}
