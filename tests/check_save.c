/* check_save.c: atomic saves: a save or a streaming recording replaces its target whole or not at all. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "common_internal.h"

#define BIG_OPS 400000 /* level 0: about 3 MB of tape */

static char dir[32];
static char path[64], other[64];

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/ade-save-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/t.adt", dir);
  snprintf(other, sizeof other, "%s/u.adt", dir);
}

static void teardown(void) {
  DIR *d = opendir(dir);
  struct dirent *e;
  char p[400];
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.') {
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      unlink(p);
    }
  if (d) closedir(d);
  rmdir(dir);
}

/* Temporary files "<name>.XXXXXX" left in dir next to path; remove: delete them. */
static int temps(const char *target, int remove) {
  const char *base = strrchr(target, '/') + 1;
  size_t n = strlen(base);
  int count = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  char p[400];
  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d)))
    if (strncmp(e->d_name, base, n) == 0 && e->d_name[n] == '.' && strlen(e->d_name) == n + 7) {
      count++;
      snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
      if (remove) ck_assert_int_eq(unlink(p), 0);
    }
  closedir(d);
  return count;
}

/* The whole file, malloc'ed; *n its size. */
static unsigned char *slurp(const char *p, size_t *n) {
  FILE *f = fopen(p, "rb");
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  rewind(f);
  unsigned char *b = malloc(*n + 1);
  ck_assert_uint_eq(fread(b, 1, *n, f), *n);
  fclose(f);
  return b;
}

static int same_file(const char *p, const void *bytes, size_t n) {
  size_t m;
  unsigned char *b = slurp(p, &m);
  int same = m == n && memcmp(b, bytes, n) == 0;
  free(b);
  return same;
}

static void put_file(const char *p, const char *text) {
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* A tape of about ops records with options o; variant changes its values
 * (so its bytes). */
static ade_tape *record_with(int ops, int variant, const ade_tape_options *o) {
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double x = ade_indep(1.385 + variant), a = x;
  for (int i = 0; i < ops / 2; i++) a = ADE_SIN(ADE_MUL(a, x));
  ade_dep(a);
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  return t;
}

static ade_tape *record_big(int ops, int variant, const char *file, int level) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.level = level;
  o.path = file;
  return record_with(ops, variant, &o);
}

/* The file at p opens, verifies, and holds exactly bytes. */
static void check_tape_file(const char *p, const void *bytes, size_t n) {
  ade_tape *t;
  ck_assert_int_eq(ade_tape_open(&t, p), ADE_OK);
  ck_assert_int_eq(ade_tape_verify(t), ADE_OK);
  ade_tape_free(t);
  ck_assert(same_file(p, bytes, n));
}

/* A file-backed tape saved onto the file it reads from: the open fd keeps
 * the old inode readable while the rename replaces the name. Both for a
 * tape opened from the file and for one recorded streaming to it. */
START_TEST(save_onto_own_file) {
  for (int streamed = 0; streamed < 2; streamed++) {
    ade_tape *t = record_big(2000, 0, path, 3), *u;
    size_t n;
    unsigned char *orig = slurp(path, &n);
    if (!streamed) {
      ade_tape_free(t);
      ck_assert_int_eq(ade_tape_open(&t, path), ADE_OK);
    }
    ck_assert_int_eq(ade_tape_save(t, path), ADE_OK);
    check_tape_file(path, orig, n);
    ck_assert_int_eq(ade_tape_verify(t), ADE_OK); /* still reads its old inode */
    ck_assert_int_eq(ade_tape_load(&u, path), ADE_OK);
    ade_tape_free(u);
    ade_tape_free(t);
    ck_assert_int_eq(temps(path, 0), 0);
    free(orig);
  }
}
END_TEST

/* Writes hit the file size limit (a stand-in for a full disk that works as
 * root): SIGXFSZ ignored, so write fails with EFBIG. */
static void limit_file_size(rlim_t bytes, struct rlimit *old) {
  ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, old), 0);
  struct rlimit lim = {bytes, old->rlim_max};
  signal(SIGXFSZ, SIG_IGN);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

/* A failed save returns ADE_EIO naming the path, leaves an existing target
 * as it was and no temporary file behind. */
START_TEST(failed_save_keeps_target) {
  ade_tape *t = record_big(2000, 0, NULL, 0), *u = record_big(2000, 1, NULL, 0);
  const void *b;
  size_t n;
  char missing[128];
  snprintf(missing, sizeof missing, "%s/no-such-dir/t.adt", dir);
  ck_assert_int_eq(ade_tape_save(t, missing), ADE_EIO);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), missing));
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), strerror(ENOENT)));

  ck_assert_int_eq(ade_tape_save(t, path), ADE_OK);
  ck_assert_int_eq(ade_tape_bytes(t, &b, &n), ADE_OK);
  struct rlimit old;
  limit_file_size(n / 2, &old);
  ck_assert_int_eq(ade_tape_save(u, path), ADE_EIO);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), path));
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
  check_tape_file(path, b, n);
  ck_assert_int_eq(temps(path, 0), 0);
  ade_tape_free(t);
  ade_tape_free(u);
}
END_TEST

/* The write loop reports a full device as ENOSPC. */
START_TEST(write_all_full_device) {
  int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return; /* no /dev/full in this environment */
  char buf[4096] = {1};
  uint64_t done = 0;
  ck_assert_int_eq(ade__write_all(fd, buf, sizeof buf, &done), ENOSPC);
  ck_assert_uint_eq(done, 0);
  close(fd);
}
END_TEST

static double seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Fork a child running job, SIGKILL it after delay seconds; 1 if it was
 * killed, 0 if it finished first (successfully). */
static int run_and_kill(void (*job)(void *), void *arg, double delay) {
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    job(arg);
    _exit(0);
  }
  struct timespec ts = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};
  nanosleep(&ts, NULL);
  kill(pid, SIGKILL);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  if (WIFSIGNALED(status)) {
    ck_assert_int_eq(WTERMSIG(status), SIGKILL);
    return 1;
  }
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return 0;
}

static void save_job(void *arg) {
  if (ade_tape_save(arg, path) != ADE_OK) _exit(1);
}

static void stream_job(void *arg) {
  (void)arg;
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.level = 0;
  o.path = path;
  ade_tape *t;
  if (ade_tape_create(&t, &o) || ade_trace_on(t)) _exit(1);
  ade_double x = ade_indep(2.385), a = x;
  for (int i = 0; i < BIG_OPS / 2; i++) a = ADE_SIN(ADE_MUL(a, x));
  ade_dep(a);
  if (ade_trace_off()) _exit(1);
  ade_tape_free(t);
}

/* Kill a save (or a streaming recording) at delays spread over its
 * duration: path is always a complete tape, the old one or the new one.
 * Twenty kills; more (up to 60) until one lands inside the write. */
static void kill_loop(void (*job)(void *), void *arg, double duration, const void *oldb, size_t oldn,
                      const void *newb, size_t newn, int seed) {
  uint64_t s = (uint64_t)seed;
  int killed = 0, midway = 0; /* kills; kills that left a temporary file */
  for (int k = 0; k < 20 || (!midway && k < 60); k++) {
    double delay = ade_test_uniform(&s, 0.0, 1.3 * duration);
    int was_killed = run_and_kill(job, arg, delay);
    killed += was_killed;
    midway += temps(path, 1) > 0; /* expected after SIGKILL */
    ade_tape *t;
    ck_assert_int_eq(ade_tape_open(&t, path), ADE_OK);
    ck_assert_int_eq(ade_tape_verify(t), ADE_OK);
    ade_tape_free(t);
    if (same_file(path, newb, newn)) {
      ck_assert_int_eq(ade_tape_from_bytes(&t, oldb, oldn), ADE_OK);
      ck_assert_int_eq(ade_tape_save(t, path), ADE_OK); /* back to old for the next kill */
      ade_tape_free(t);
    } else {
      ck_assert_msg(was_killed, "a save that finished left the old tape");
      ck_assert_msg(same_file(path, oldb, oldn), "after kill %d (delay %.4f s) the file is neither tape", k,
                    delay);
    }
  }
  ck_assert_int_gt(killed, 0);
  ck_assert_int_gt(midway, 0); /* some kill did land inside the write */
}

START_TEST(kill_during_save) {
  ade_tape *oldt = record_big(BIG_OPS, 0, NULL, 0), *newt = record_big(BIG_OPS, 1, NULL, 0);
  const void *ob, *nb;
  size_t on, nn;
  ck_assert_int_eq(ade_tape_bytes(oldt, &ob, &on), ADE_OK);
  ck_assert_int_eq(ade_tape_bytes(newt, &nb, &nn), ADE_OK);
  ck_assert_uint_gt(nn, 2u << 20);
  double t0 = seconds();
  ck_assert_int_eq(ade_tape_save(newt, path), ADE_OK);
  double d = seconds() - t0;
  ck_assert_int_eq(ade_tape_save(oldt, path), ADE_OK);
  kill_loop(save_job, newt, d, ob, on, nb, nn, 7);
  ade_tape_free(oldt);
  ade_tape_free(newt);
}
END_TEST

START_TEST(kill_during_streaming) {
  ade_tape *oldt = record_big(BIG_OPS, 0, NULL, 0);
  const void *ob;
  size_t on, nn;
  ck_assert_int_eq(ade_tape_bytes(oldt, &ob, &on), ADE_OK);
  double t0 = seconds();
  stream_job(NULL); /* the new tape, and how long recording it takes */
  double d = seconds() - t0;
  unsigned char *nb = slurp(path, &nn);
  ck_assert_int_eq(ade_tape_save(oldt, path), ADE_OK);
  kill_loop(stream_job, NULL, d, ob, on, nb, nn, 11);
  free(nb);
  ade_tape_free(oldt);
}
END_TEST

/* Streaming onto an existing file replaces it at ade_trace_off; a tape
 * freed before recording leaves it and no temporary file. */
START_TEST(streaming_replaces_at_trace_off) {
  put_file(path, "old contents\n");
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.path = path;
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(temps(path, 0), 1);
  ade_tape_free(t);
  ck_assert(same_file(path, "old contents\n", 13));
  ck_assert_int_eq(temps(path, 0), 0);
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_OK);
  ck_assert_int_eq(ade_trace_on(t), ADE_OK);
  ade_double x = ade_indep(0.7);
  ade_dep(ADE_EXP(x));
  ck_assert(same_file(path, "old contents\n", 13)); /* not yet */
  ck_assert_int_eq(ade_trace_off(), ADE_OK);
  ck_assert_int_eq(temps(path, 0), 0);
  double g;
  ck_assert_int_eq(ade_gradient(t, NULL, NULL, &g), ADE_OK); /* reads through its fd */
  ade_assert_rel(g, exp(0.7), 4 * DBL_EPSILON);
  ade_tape_free(t);
  ck_assert_int_eq(ade_tape_open(&t, path), ADE_OK);
  ck_assert_int_eq(ade_tape_verify(t), ADE_OK);
  ade_tape_free(t);
}
END_TEST

/* seq_save and sparse_write_mtx: success replaces an existing file, a
 * failure (a missing directory, a write cut short) leaves it. */
START_TEST(text_writers) {
  ade_elim_seq *q;
  ade_sparse *A;
  char missing[128];
  snprintf(missing, sizeof missing, "%s/no-such-dir/x", dir);
  ck_assert_int_eq(ade_seq_create(&q, ADE_SEQ_VERTEX), ADE_OK);
  for (long v = 0; v < 400; v++) ck_assert_int_eq(ade_seq_push(q, v, 0, 0), ADE_OK);
  ck_assert_int_eq(ade_sparse_create(&A, 300, 300, 300, 0), ADE_OK);
  for (size_t i = 0; i < 300; i++) {
    A->rowptr[i + 1] = i + 1;
    A->col[i] = 299 - i;
    A->val[i] = 2.385 * (double)i;
  }
  for (int w = 0; w < 2; w++) {
    const char *p = w ? other : path;
    put_file(p, "old contents\n");
    int st = w ? ade_sparse_write_mtx(A, missing) : ade_seq_save(q, missing);
    ck_assert_int_eq(st, ADE_EIO);
    ck_assert_ptr_nonnull(strstr(ade_errmsg(), missing));
    struct rlimit old;
    limit_file_size(1000, &old);
    st = w ? ade_sparse_write_mtx(A, p) : ade_seq_save(q, p);
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
    ck_assert_int_eq(st, ADE_EIO);
    ck_assert_ptr_nonnull(strstr(ade_errmsg(), p));
    ck_assert(same_file(p, "old contents\n", 13));
    ck_assert_int_eq(temps(p, 0), 0);
    st = w ? ade_sparse_write_mtx(A, p) : ade_seq_save(q, p);
    ck_assert_int_eq(st, ADE_OK);
    ck_assert_int_eq(temps(p, 0), 0);
  }
  ade_elim_seq *q2;
  ck_assert_int_eq(ade_seq_load(&q2, path), ADE_OK);
  ck_assert_uint_eq(ade_seq_length(q2), 400);
  ade_seq_free(q2);
  size_t n;
  char *text = (char *)slurp(other, &n);
  text[n] = '\0';
  ck_assert_ptr_nonnull(strstr(text, "%%MatrixMarket matrix coordinate real general\n300 300 300\n1 300 0\n"));
  free(text);
  ade_seq_free(q);
  ade_sparse_free(A);
}
END_TEST

/* A tape recorded with defer keeps its chunks raw in memory and is saved
 * compressed: the file holds the bytes the same recording at that level
 * writes, and both give the same derivatives. Also with call sites (their
 * strings live in the footer), several chunks, and level 0 (nothing to do). */
START_TEST(deferred_compression) {
  const int levels[] = {0, 1, 3, 9};
  for (int k = 0; k < 8; k++) {
    ade_tape_options o;
    ade_tape_options_init(&o);
    o.level = levels[k % 4];
    o.capture = k >= 4;
    o.chunk_ops = k % 2 ? 700 : 65536;
    ade_tape *direct = record_with(3000 + 100 * k, k, &o);
    o.defer = 1;
    ade_tape *late = record_with(3000 + 100 * k, k, &o);
    ade_stats sd, sl;
    ck_assert_int_eq(ade_tape_stats(direct, &sd), ADE_OK);
    ck_assert_int_eq(ade_tape_stats(late, &sl), ADE_OK);
    ck_assert_uint_eq(sl.records, sd.records);
    ck_assert_int_eq(sl.level, o.level);
    if (o.level) ck_assert_uint_gt(sl.stored_bytes, sd.stored_bytes); /* raw until saved */
    double x = 1.2 + k, gd, gl, fd, fl;
    ck_assert_int_eq(ade_gradient(direct, &x, &fd, &gd), ADE_OK);
    ck_assert_int_eq(ade_gradient(late, &x, &fl, &gl), ADE_OK);
    ck_assert(memcmp(&gd, &gl, sizeof gd) == 0 && memcmp(&fd, &fl, sizeof fd) == 0);
    ck_assert_int_eq(ade_tape_save(late, path), ADE_OK);
    const void *b;
    size_t n;
    ck_assert_int_eq(ade_tape_bytes(direct, &b, &n), ADE_OK);
    check_tape_file(path, b, n);
    ck_assert_int_eq(temps(path, 0), 0);
    ade_tape_free(direct);
    ade_tape_free(late);
  }
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.defer = 1;
  o.path = path;
  ade_tape *t;
  ck_assert_int_eq(ade_tape_create(&t, &o), ADE_EINVAL);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), "defer"));
}
END_TEST

/* A deferred tape's compressing save that fails leaves the target as it
 * was and no temporary file. */
START_TEST(deferred_save_fails_cleanly) {
  ade_tape_options o;
  ade_tape_options_init(&o);
  o.defer = 1;
  o.chunk_ops = 5000;
  ade_tape *t = record_with(20000, 0, &o), *u = record_with(BIG_OPS / 4, 1, &o);
  char missing[128];
  snprintf(missing, sizeof missing, "%s/no-such-dir/t.adt", dir);
  ck_assert_int_eq(ade_tape_save(t, missing), ADE_EIO);
  ck_assert_ptr_nonnull(strstr(ade_errmsg(), missing));
  ck_assert_int_eq(ade_tape_save(t, path), ADE_OK);
  size_t n;
  unsigned char *b = slurp(path, &n);
  struct rlimit old;
  limit_file_size(n + 100, &old); /* u's compressed bytes are larger */
  ck_assert_int_eq(ade_tape_save(u, path), ADE_EIO);
  ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &old), 0);
  check_tape_file(path, b, n);
  ck_assert_int_eq(temps(path, 0), 0);
  free(b);
  ade_tape_free(t);
  ade_tape_free(u);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("save");
  TCase *tc = tcase_create("atomic");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, save_onto_own_file);
  tcase_add_test(tc, failed_save_keeps_target);
  tcase_add_test(tc, write_all_full_device);
  tcase_add_test(tc, kill_during_save);
  tcase_add_test(tc, kill_during_streaming);
  tcase_add_test(tc, streaming_replaces_at_trace_off);
  tcase_add_test(tc, text_writers);
  tcase_add_test(tc, deferred_compression);
  tcase_add_test(tc, deferred_save_fails_cleanly);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return ade_test_run(suite()); }
