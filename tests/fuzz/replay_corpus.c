/* replay_corpus.c: run the fuzz harness once on each file named, or in each directory named.
 * Usage: replay_corpus PATH...; exit 0 when every input ran (a bug crashes
 * or, under a sanitizer, aborts), 1 on a usage or I/O error. No libFuzzer needed. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_tape.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 1;
  }
  size_t cap = 1 << 16, n = 0, r;
  unsigned char *buf = malloc(cap);
  while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0)
    if ((n += r) == cap) {
      unsigned char *p = realloc(buf, cap *= 2);
      if (!p) free(buf);
      buf = p;
    }
  int err = ferror(f) || !buf;
  fclose(f);
  if (err) {
    fprintf(stderr, "%s: cannot read\n", path);
    free(buf);
    return 1;
  }
  printf("%s (%zu bytes)\n", path, n);
  fflush(stdout); /* the name shows before a crash does */
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of a directory, in name order (reproducible logs). */
static int run_dir(const char *dir, int *count) {
  DIR *d = opendir(dir);
  if (!d) {
    perror(dir);
    return 1;
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  int err = 0;
  struct dirent *e;
  while (!err && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      char **p = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *p);
      if ((err = !p)) break;
      names = p;
    }
    size_t len = strlen(dir) + strlen(e->d_name) + 2;
    if ((err = !(names[n] = malloc(len)))) break;
    snprintf(names[n++], len, "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n; i++) {
    struct stat st;
    if (!err && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
      err = run_file(names[i]);
      ++*count;
    }
    free(names[i]);
  }
  free(names);
  return err;
}

int main(int argc, char **argv) {
  int count = 0, err = 0;
  if (argc < 2) {
    fputs("usage: replay_corpus FILE|DIR...\n", stderr);
    return 1;
  }
  for (int i = 1; i < argc && !err; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      err = 1;
    } else if (S_ISDIR(st.st_mode)) {
      err = run_dir(argv[i], &count);
    } else {
      err = run_file(argv[i]);
      count++;
    }
  }
  printf("replay_corpus: %d input(s) %s\n", count, err ? "(stopped on an error)" : "ran cleanly");
  return err;
}
