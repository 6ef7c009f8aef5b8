/* bench_hessian_adolc.cpp: the ADOL-C side of bench_hessian: the same
 * problem source (hessian_problems.h) instantiated with adouble, recorded,
 * and differentiated by hessian(), by hess_pat + a coloring + hess_mat, and
 * (in a child process) by sparse_hess. */
#include "bench_hessian.h"

#include <adolc/adolc.h>
#include <adolc/sparse/sparsedrivers.h>

#include <cerrno>
#include <exception>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/wait.h>
#include <unistd.h>

/* The operation layer of hessian_problems.h for adouble: plain C++
 * operators, so ADOL-C records what natural operator-overloading code
 * records. */
template <class T> static inline adub bh_square(const T &a) { return a * a; }
#define ADE_ADD(a, b) ((a) + (b))
#define ADE_SUB(a, b) ((a) - (b))
#define ADE_MUL(a, b) ((a) * (b))
#define ADE_SQUARE(a) bh_square(a)
#define ADE_SIN(a) sin(a)
#define ADE_EXP(a) exp(a)
#define ADE_LOG(a) log(a)
#define ADE_SQRT(a) sqrt(a)
#define BH_REAL adouble
#define BH_CONST(v) adouble(v)
#define BH_FN(name) adolc_##name
#include "hessian_problems.h"

struct bh_adolc {
  const bh_problem *p;
  short tag;
  int n, colors;
  double **H;          /* lower triangle: row i has i + 1 entries */
  unsigned int **HP;   /* hess_pat: HP[i][0] entries, then their columns */
  int *color;          /* n */
  double **S, **W;     /* n x colors */
  int have_h, have_w;
  /* sparse_hess's results (reused by repeat = 1 calls) */
  unsigned *sh_ri, *sh_ci;
  double *sh_v;
  int sh_nnz, have_sh;
  /* ColPack's seed (generate_seed_hess), its pattern and W = H Seed */
  unsigned int **CHP;
  double **CS, **CW;
  int cp_colors, cp_option, have_cw;
};

static double seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

extern "C" struct bh_adolc *bh_adolc_create(const struct bh_problem *p, double *rec_s, double *y,
                                            double *ops)
{
  static short next_tag = 40;
  bh_adolc *a = new bh_adolc();
  a->p = p;
  a->tag = next_tag++;
  a->n = (int)p->n;
  /* The active arrays exist before taping, like the C arrays of the other
   * side, so their construction is not on the tape. */
  adouble *xa = new adouble[p->n], *wa = new adouble[p->nwork ? p->nwork : 1], f;
  const double t0 = seconds();
  trace_on(a->tag);
  for (size_t i = 0; i < p->n; i++)
    xa[i] <<= p->x[i];
  f = adolc_eval(p, xa, wa);
  f >>= *y;
  trace_off();
  *rec_s = seconds() - t0;
  delete[] wa;
  delete[] xa;
  size_t s[STAT_SIZE];
  tapestats(a->tag, s);
  *ops = (double)s[NUM_OPERATIONS];
  if (s[OP_FILE_ACCESS] || s[LOC_FILE_ACCESS] || s[VAL_FILE_ACCESS])
    std::fprintf(stderr, "bench_hessian: ADOL-C spilled the %s tape to a file\n", p->name);
  return a;
}

/* The ColPack part: hess_pat's rows (malloc), the seed (ColPack's new[],
 * as ADOL-C's examples free it), W. */
static void free_colpack(bh_adolc *a)
{
  for (int i = 0; a->CHP && i < a->n; i++)
    std::free(a->CHP[i]);
  delete[] a->CHP;
  for (int j = 0; a->CS && j < a->n; j++)
    delete[] a->CS[j];
  delete[] a->CS;
  if (a->CW)
    myfree2(a->CW);
  a->CHP = nullptr, a->CS = a->CW = nullptr;
}

extern "C" void bh_adolc_free(struct bh_adolc *a)
{
  if (!a)
    return;
  for (int i = 0; a->H && i < a->n; i++)
    delete[] a->H[i];
  delete[] a->H;
  for (int i = 0; a->HP && i < a->n; i++)
    std::free(a->HP[i]); /* hess_pat allocates the rows with malloc */
  delete[] a->HP;
  delete[] a->color;
  if (a->S)
    myfree2(a->S);
  if (a->W)
    myfree2(a->W);
  std::free(a->sh_ri);
  std::free(a->sh_ci);
  std::free(a->sh_v);
  free_colpack(a);
  delete a;
}

extern "C" void bh_adolc_hessian_alloc(struct bh_adolc *a)
{
  if (a->H)
    return;
  a->H = new double *[a->n]; /* hessian() writes H[i][j] for j <= i only */
  for (int i = 0; i < a->n; i++)
    a->H[i] = new double[i + 1]();
}

extern "C" int bh_adolc_hessian(struct bh_adolc *a, int vector_mode)
{
  bh_adolc_hessian_alloc(a);
  const int rc = vector_mode ? hessian2(a->tag, a->n, a->p->x, a->H)
                             : hessian(a->tag, a->n, a->p->x, a->H);
  if (rc < 0)
    return -1;
  a->have_h = 1;
  return 0;
}

/* Greedy distance-2 coloring: columns j and k may share a color only if no
 * row holds both, so every entry is read directly from W = H S. */
static int color_d2(int n, unsigned int *const *HP, int *color)
{
  int *mark = new int[n], ncolors = 0;
  for (int c = 0; c < n; c++)
    mark[c] = -1;
  for (int j = 0; j < n; j++)
    color[j] = -1;
  for (int j = 0; j < n; j++) {
    for (unsigned a = 1; a <= HP[j][0]; a++) { /* rows i holding column j */
      const unsigned i = HP[j][a];
      for (unsigned b = 1; b <= HP[i][0]; b++)
        if (color[HP[i][b]] >= 0)
          mark[color[HP[i][b]]] = j;
    }
    int c = 0;
    while (mark[c] == j)
      c++;
    color[j] = c;
    ncolors = c + 1 > ncolors ? c + 1 : ncolors;
  }
  delete[] mark;
  return ncolors;
}

extern "C" int bh_adolc_pattern(struct bh_adolc *a)
{
  if (!a->HP) {
    a->HP = new unsigned int *[a->n]();
    a->color = new int[a->n];
  }
  for (int i = 0; i < a->n; i++) {
    std::free(a->HP[i]);
    a->HP[i] = nullptr;
  }
  if (hess_pat(a->tag, a->n, a->p->x, a->HP, 0) < 0)
    return -1;
  const int colors = color_d2(a->n, a->HP, a->color);
  if (colors != a->colors || !a->S) {
    if (a->S)
      myfree2(a->S), myfree2(a->W);
    a->colors = colors;
    a->S = myalloc2(a->n, colors);
    a->W = myalloc2(a->n, colors);
  }
  for (int j = 0; j < a->n; j++)
    for (int c = 0; c < colors; c++)
      a->S[j][c] = a->color[j] == c ? 1.0 : 0.0;
  return colors;
}

extern "C" size_t bh_adolc_pattern_nnz(const struct bh_adolc *a)
{
  size_t nz = 0;
  for (int i = 0; a->HP && i < a->n; i++)
    for (unsigned k = 1; k <= a->HP[i][0]; k++)
      nz += (int)a->HP[i][k] <= i;
  return nz;
}

extern "C" int bh_adolc_hess_mat(struct bh_adolc *a)
{
  if (!a->S || hess_mat(a->tag, a->n, a->colors, a->p->x, a->S, a->W) < 0)
    return -1;
  a->have_w = 1;
  return 0;
}

extern "C" int bh_adolc_compare(const struct bh_adolc *a, int compressed, const size_t *rowptr,
                                const size_t *col, const double *val, double *maxdiff,
                                double *maxref)
{
  if (compressed ? !a->have_w : !a->have_h)
    return -1;
  double *row = new double[a->n](), e = 0.0, big = 0.0;
  for (int i = 0; i < a->n; i++) {
    for (size_t k = rowptr[i]; k < rowptr[i + 1]; k++)
      row[col[k]] = val[k];
    if (!compressed) {
      for (int j = 0; j <= i; j++) {
        e = std::fmax(e, std::fabs(row[j] - a->H[i][j]));
        big = std::fmax(big, std::fabs(a->H[i][j]));
        row[j] = 0.0;
      }
      continue;
    }
    for (unsigned k = 1; k <= a->HP[i][0]; k++) { /* ADOL-C's entries */
      const unsigned j = a->HP[i][k];
      if ((int)j > i)
        continue;
      const double b = a->W[i][a->color[j]];
      e = std::fmax(e, std::fabs(row[j] - b));
      big = std::fmax(big, std::fabs(b));
      row[j] = 0.0;
    }
    for (size_t k = rowptr[i]; k < rowptr[i + 1]; k++) { /* adelim's, not in HP */
      e = std::fmax(e, std::fabs(row[col[k]]));
      row[col[k]] = 0.0;
    }
  }
  delete[] row;
  *maxdiff = e;
  *maxref = big;
  return 0;
}

/* In the child: sparse_hess with its stderr on fd; exit 0 if it returned. */
static void probe_child(const bh_adolc *a, int fd)
{
  dup2(fd, 2);
  dup2(fd, 1);
  int nnz = 0, options[2] = {0, 0}; /* safe pattern, indirect recovery */
  unsigned int *ri = nullptr, *ci = nullptr;
  double *v = nullptr;
  int rc = -100;
  try {
    rc = sparse_hess(a->tag, a->n, 0, a->p->x, &nnz, &ri, &ci, &v, options);
  } catch (const std::exception &ex) {
    std::fprintf(stderr, " [C++ exception: %s]", ex.what());
    std::fflush(stderr);
    _exit(3);
  } catch (...) {
    std::fprintf(stderr, " [C++ exception]");
    std::fflush(stderr);
    _exit(3);
  }
  std::fprintf(stderr, "sparse_hess returned %d, %d nonzeros", rc, nnz);
  std::fflush(stderr);
  _exit(rc < 0 ? 4 : 0);
}

extern "C" int bh_adolc_sparse_hess_probe(const struct bh_adolc *a, char *msg, size_t size)
{
  int fd[2], status = 0;
  std::fflush(stdout);
  std::fflush(stderr);
  if (pipe(fd) != 0)
    return -1;
  const pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    close(fd[0]);
    probe_child(a, fd[1]);
  }
  close(fd[1]);
  size_t got = 0;
  ssize_t r;
  while (got + 1 < size && ((r = read(fd[0], msg + got, size - 1 - got)) > 0 || (r < 0 && errno == EINTR)))
    got += r > 0 ? (size_t)r : 0;
  msg[got] = 0;
  close(fd[0]);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  for (char *s = msg; *s; s++) /* one line */
    if (*s == '\n' || *s == '|')
      *s = ' ';
  char tail[64];
  if (WIFSIGNALED(status))
    std::snprintf(tail, sizeof tail, " (child killed by signal %d)", WTERMSIG(status));
  else
    std::snprintf(tail, sizeof tail, " (child exit status %d)", WEXITSTATUS(status));
  if (std::strlen(msg) + std::strlen(tail) < size)
    std::strcat(msg, tail);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

#ifdef BENCH_HAVE_COLPACK
extern "C" int bh_adolc_sparse_hess(struct bh_adolc *a, int repeat, const double *x)
{
  int options[2] = {0, 0}; /* ADOL-C's defaults */
  if (sparse_hess(a->tag, a->n, repeat, x, &a->sh_nnz, &a->sh_ri, &a->sh_ci, &a->sh_v, options) < 0)
    return -1;
  a->have_sh = 1;
  return a->sh_nnz;
}

extern "C" int bh_adolc_colpack_seed(struct bh_adolc *a, int option)
{
  free_colpack(a);
  a->CHP = new unsigned int *[a->n]();
  if (hess_pat(a->tag, a->n, a->p->x, a->CHP, 0) < 0)
    return -1;
  generate_seed_hess(a->n, a->CHP, &a->CS, &a->cp_colors, option);
  a->cp_option = option;
  a->CW = myalloc2(a->n, a->cp_colors);
  return a->cp_colors;
}

extern "C" int bh_adolc_colpack_hess_mat(struct bh_adolc *a, const double *x)
{
  if (!a->CS || hess_mat(a->tag, a->n, a->cp_colors, const_cast<double *>(x), a->CS, a->CW) < 0)
    return -1;
  a->have_cw = 1;
  return 0;
}

/* Direct recovery from a star coloring: H(i, j) = W(i, color j) when no
 * other column of row i has j's color, else W(j, color i) (a star coloring
 * makes one of the two unique). */
static double star_entry(const bh_adolc *a, const int *color, int *count, int i, int j)
{
  return count[color[j]] == 1 ? a->CW[i][color[j]] : a->CW[j][color[i]];
}

extern "C" int bh_adolc_new_compare(const struct bh_adolc *a, int which, const size_t *rowptr, const size_t *col,
                                    const double *val, double *maxdiff, double *maxref)
{
  if (which ? !a->have_cw || a->cp_option != 1 : !a->have_sh)
    return -1;
  const int n = a->n;
  double *row = new double[n](), e = 0.0, big = 0.0;
  /* B's lower triangle by rows: sparse_hess gives (r, c) with r <= c. */
  size_t *bptr = new size_t[n + 1](), nb = 0;
  int *color = new int[n], *count = new int[which ? a->cp_colors : 1]();
  if (which) {
    for (int j = 0; j < n; j++) {
      color[j] = 0;
      for (int c = 0; c < a->cp_colors; c++)
        if (a->CS[j][c] != 0.0)
          color[j] = c;
    }
    for (int i = 0; i < n; i++)
      nb += a->CHP[i][0];
  } else
    nb = (size_t)a->sh_nnz;
  size_t *bcol = new size_t[nb + 1];
  double *bval = new double[nb + 1];
  if (which) {
    for (int i = 0; i < n; i++) {
      for (unsigned k = 1; k <= a->CHP[i][0]; k++)
        count[color[a->CHP[i][k]]]++;
      bptr[i + 1] = bptr[i];
      for (unsigned k = 1; k <= a->CHP[i][0]; k++) {
        const int j = (int)a->CHP[i][k];
        if (j <= i) {
          bcol[bptr[i + 1]] = (size_t)j;
          bval[bptr[i + 1]++] = star_entry(a, color, count, i, j);
        }
      }
      for (unsigned k = 1; k <= a->CHP[i][0]; k++)
        count[color[a->CHP[i][k]]]--;
    }
  } else {
    for (int k = 0; k < a->sh_nnz; k++)
      bptr[a->sh_ci[k] + 1]++;
    for (int i = 0; i < n; i++)
      bptr[i + 1] += bptr[i];
    size_t *next = new size_t[n];
    std::memcpy(next, bptr, sizeof(size_t) * (size_t)n);
    for (int k = 0; k < a->sh_nnz; k++) {
      const size_t at = next[a->sh_ci[k]]++;
      bcol[at] = a->sh_ri[k];
      bval[at] = a->sh_v[k];
    }
    delete[] next;
  }
  for (int i = 0; i < n; i++) {
    for (size_t k = rowptr[i]; k < rowptr[i + 1]; k++)
      row[col[k]] = val[k];
    for (size_t k = bptr[i]; k < bptr[i + 1]; k++) {
      e = std::fmax(e, std::fabs(row[bcol[k]] - bval[k]));
      big = std::fmax(big, std::fabs(bval[k]));
      row[bcol[k]] = 0.0;
    }
    for (size_t k = rowptr[i]; k < rowptr[i + 1]; k++) { /* adelim's entries missing in B */
      e = std::fmax(e, std::fabs(row[col[k]]));
      row[col[k]] = 0.0;
    }
  }
  delete[] row, delete[] bptr, delete[] color, delete[] count, delete[] bcol, delete[] bval;
  *maxdiff = e;
  *maxref = big;
  return 0;
}
#endif
