/* file.c: atomic file writes: a temporary file next to the target replaces it only when complete and on disk. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common_internal.h"

#define SUFFIX ".XXXXXX"

int ade__write_all(int fd, const void *p, size_t n, uint64_t *done) {
  const unsigned char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    if (w == 0) return ENOSPC; /* no progress: the device is full */
    c += w;
    n -= (size_t)w;
    if (done) *done += (uint64_t)w;
  }
  return 0;
}

/* Replace the X's at the end of tmp with letters and digits that differ per
 * process, per call and per try (mkostemp's scheme, kept here so the file
 * is created with mode 0644 & ~umask rather than 0600). */
static void fill_suffix(char *x, unsigned attempt) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static atomic_uint_fast64_t calls;
  uint64_t z = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull + (uint64_t)(ade__now() * 1e9) +
               ((uint64_t)atomic_fetch_add(&calls, 1) << 20) + attempt;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull; /* splitmix64 finalizer */
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  for (int i = 0; i < 6; i++, z /= 62) x[i] = digits[z % 62];
}

static void forget(ade__afile *a) {
  ade__free(a->path);
  ade__free(a->tmp);
  a->path = a->tmp = NULL;
  a->fd = -1;
  a->f = NULL;
}

int ade__afile_open(ade__afile *a, const char *path) {
  size_t n = strlen(path);
  a->path = ade__strdup(path);
  a->tmp = ade__alloc(n + sizeof SUFFIX);
  a->f = NULL;
  a->fd = -1;
  if (!a->path || !a->tmp) {
    forget(a);
    return ade__fail(ADE_ENOMEM, "out of memory writing '%s'", path);
  }
  memcpy(a->tmp, path, n);
  memcpy(a->tmp + n, SUFFIX, sizeof SUFFIX);
  for (unsigned k = 0; k < 100 && a->fd < 0; k++) {
    fill_suffix(a->tmp + n + 1, k);
    a->fd = open(a->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (a->fd < 0 && errno != EEXIST) break;
  }
  if (a->fd < 0) {
    int e = errno;
    forget(a);
    return ade__fail(ADE_EIO, "cannot create a temporary file next to '%s': %s", path, strerror(e));
  }
  return ADE_OK;
}

int ade__afile_stream(ade__afile *a, FILE **f) {
  a->f = fdopen(a->fd, "w");
  if (!a->f) {
    int st = ade__fail(ADE_EIO, "cannot write '%s': %s", a->path, strerror(errno));
    ade__afile_abort(a);
    return st;
  }
  *f = a->f;
  return ADE_OK;
}

int ade__afile_write(ade__afile *a, const void *p, size_t n) {
  int e = ade__write_all(a->fd, p, n, NULL);
  return e ? ade__fail(ADE_EIO, "writing '%s': %s", a->path, strerror(e)) : ADE_OK;
}

/* Flush and fsync; unless keep, close (checked: NFS reports errors here). */
static int sync_close(ade__afile *a, int keep) {
  int e = 0;
  if (a->f && (fflush(a->f) != 0 || ferror(a->f))) e = errno ? errno : EIO;
  if (!e && fsync(a->fd) != 0) e = errno;
  if (!keep) {
    int r = a->f ? fclose(a->f) : close(a->fd);
    if (r != 0 && !e) e = errno;
    a->f = NULL;
    a->fd = -1;
  }
  return e;
}

/* Make the rename durable: fsync the directory of tmp (the target's),
 * named by cutting tmp, which is no longer needed, at its last slash, so
 * that nothing is allocated once the target has been replaced. EINVAL: the
 * file system cannot sync directories. */
static int sync_dir(char *tmp) {
  char *slash = strrchr(tmp, '/');
  const char *dir = slash ? tmp : ".";
  if (slash) slash[slash == tmp] = '\0'; /* "/x": the root */
  int e = 0, fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL)) e = errno;
  if (fd >= 0) close(fd);
  return e;
}

int ade__afile_commit(ade__afile *a, int keep) {
  errno = 0;
  int e = sync_close(a, keep);
  if (!e && rename(a->tmp, a->path) != 0) e = errno;
  if (e) {
    int st = ade__fail(ADE_EIO, "writing '%s': %s", a->path, strerror(e));
    if (keep) {
      unlink(a->tmp);
      forget(a);
    } else {
      ade__afile_abort(a);
    }
    return st;
  }
  e = sync_dir(a->tmp);
  int st = e ? ade__fail(ADE_EIO, "'%s' was replaced, but syncing its directory failed: %s", a->path,
                         strerror(e))
             : ADE_OK;
  forget(a);
  return st;
}

void ade__afile_abort(ade__afile *a) {
  if (!a->tmp) return;
  if (a->f) fclose(a->f);
  else if (a->fd >= 0) close(a->fd);
  unlink(a->tmp);
  forget(a);
}

void ade__afile_release(ade__afile *a) { forget(a); }
