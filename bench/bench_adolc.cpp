/* bench_adolc.cpp: the ADOL-C side of bench_tape: the same problem source
 * (problems.h) instantiated with ADOL-C's adouble, recorded and swept. */
#include "bench_adolc.h"

#include <adolc/adolc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ADOL-C parses ".adolcrc" in the working directory with this function
 * (exported by libadolc, not declared in its headers). */
extern "C" void readConfigFile(void);

/* The operation layer of problems.h for adouble: plain C++ operators, so
 * ADOL-C records exactly what natural operator-overloading code would. */
template <class T> static inline T bench_square(const T &a) { return a * a; }
#define ADE_ADD(a, b) ((a) + (b))
#define ADE_SUB(a, b) ((a) - (b))
#define ADE_MUL(a, b) ((a) * (b))
#define ADE_DIV(a, b) ((a) / (b))
#define ADE_SQUARE(a) bench_square(a)
#define ADE_EXP(a) exp(a)
#define ADE_SIN(a) sin(a)
#define BENCH_REAL adouble
#define BENCH_FN(name) adolc_##name
#include "problems.h"

void bench_adolc_setup(size_t bufsize)
{
  char dir[] = "/tmp/bench_adolc.XXXXXX", cwd[4096], rc[64];
  if (!mkdtemp(dir) || !getcwd(cwd, sizeof cwd))
    return;
  std::snprintf(rc, sizeof rc, "%s/.adolcrc", dir);
  if (FILE *f = std::fopen(rc, "w")) {
    const char *keys[] = {"OBUFSIZE", "LBUFSIZE", "VBUFSIZE", "TBUFSIZE"};
    for (const char *k : keys)
      std::fprintf(f, "\"%s\" \"%zu\"\n", k, bufsize);
    std::fclose(f);
    /* readConfigFile reports what it found on stderr: keep that quiet. */
    std::fflush(stderr);
    const int err = dup(2), null = open("/dev/null", O_WRONLY);
    if (null >= 0 && err >= 0 && chdir(dir) == 0) {
      dup2(null, 2);
      readConfigFile();
      dup2(err, 2);
      if (chdir(cwd) != 0)
        std::perror("bench_adolc: chdir back");
    }
    if (null >= 0)
      close(null);
    if (err >= 0)
      close(err);
    std::remove(rc);
  }
  rmdir(dir);
}

namespace {

struct ctx {
  const bench_problem *p;
  short tag;
  int keep, m, n, status;
  adouble *xa, *wa, *ya;
  bench_adolc_result *r;
};

void record(void *v)
{
  ctx *c = static_cast<ctx *>(v);
  const bench_problem *p = c->p;
  trace_on(c->tag, c->keep);
  for (size_t i = 0; i < p->n; i++)
    c->xa[i] <<= p->x[i];
  adolc_eval(p, c->xa, c->wa, c->ya);
  for (size_t j = 0; j < p->m; j++)
    c->ya[j] >>= c->r->y[j];
  trace_off();
}

void forward(void *v)
{
  ctx *c = static_cast<ctx *>(v);
  c->status |= fos_forward(c->tag, c->m, c->n, 0, c->p->x, c->p->xd, c->r->y, c->r->yd) < 0;
}

void zos_keep(void *v)
{
  ctx *c = static_cast<ctx *>(v);
  c->status |= zos_forward(c->tag, c->m, c->n, 1, c->p->x, c->r->y) < 0;
}

void reverse(void *v)
{
  ctx *c = static_cast<ctx *>(v);
  c->status |= fos_reverse(c->tag, c->m, c->n, c->p->yb, c->r->xb) < 0;
}

void forward_reverse(void *v)
{
  zos_keep(v);
  reverse(v);
}

void stats(short tag, bench_adolc_result *r)
{
  size_t s[STAT_SIZE];
  tapestats(tag, s);
  r->ops = (double)s[NUM_OPERATIONS];
  r->locs = (double)s[NUM_LOCATIONS];
  r->vals = (double)s[NUM_VALUES];
  r->tays = (double)s[TAY_STACK_SIZE];
  r->bytes = r->ops + r->locs * (double)sizeof(locint) + (r->vals + r->tays) * 8.0;
  r->spilled = s[OP_FILE_ACCESS] || s[LOC_FILE_ACCESS] || s[VAL_FILE_ACCESS];
}

} // namespace

int bench_adolc_run(const struct bench_problem *p, struct bench_adolc_result *r)
{
  std::memset(r, 0, sizeof *r);
  r->y = static_cast<double *>(bench_xmalloc(p->m, sizeof(double)));
  r->yd = static_cast<double *>(bench_xmalloc(p->m, sizeof(double)));
  r->xb = static_cast<double *>(bench_xmalloc(p->n, sizeof(double)));
  /* The active arrays exist before taping, like the C arrays of the other
   * sides, so their construction is not on the tape. */
  adouble *xa = new adouble[p->n], *ya = new adouble[p->m];
  adouble *wa = new adouble[p->nwork ? p->nwork : 1];
  ctx c = {p, (short)(p->id + 1), 0, (int)p->m, (int)p->n, 0, xa, wa, ya, r};

  r->rec_s = bench_time(nullptr, record, nullptr, &c);
  c.keep = 1;
  r->rec_keep_s = bench_time(nullptr, record, nullptr, &c);
  stats(c.tag, r);
  r->fwd_s = bench_time(nullptr, forward, nullptr, &c);
  r->rev_s = bench_time(zos_keep, reverse, nullptr, &c);
  r->fwdrev_s = bench_time(nullptr, forward_reverse, nullptr, &c);
  forward(&c); /* leave y and yd from the tangent sweep */

  delete[] wa;
  delete[] ya;
  delete[] xa;
  return c.status ? -1 : 0;
}
