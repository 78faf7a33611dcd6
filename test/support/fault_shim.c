/* klms_fault_shim: an LD_PRELOAD library that makes writes and fsyncs of state files fail, to test
 * docs/state.md §2 (durable before release; a failed write or fsync poisons the handle) in real
 * processes — the state store tests' driver now, the openssl command-line tests later.
 *
 *   LD_PRELOAD=/path/to/libklms_fault_shim.so KLMS_FAULT=fsync:1 openssl pkeyutl -sign ...
 *
 * Environment:
 *   KLMS_FAULT=<rule>[,<rule>...]   (at most 8 rules; unset or empty: the shim does nothing)
 *     rule  = <op>:<n>[+][:<errno>]
 *     op    = write      any writing call: write, pwrite, pwrite64, writev, pwritev
 *             pwrite     only pwrite, pwrite64 and pwritev (the state store uses pwrite)
 *             fsync      fsync and fdatasync
 *             fdatasync  only fdatasync
 *     n     = which matching call fails, counted from 1 per process and per rule over calls on
 *             matching files only ("fsync:1" = the first fsync of a state file); "n+" = that call
 *             and every later one
 *     errno = EIO (default), ENOSPC, EDQUOT, EROFS or EFBIG; or instead of failing, a crash:
 *             KILL       SIGKILL the process instead of making the call (the crash before it)
 *             KILLAFTER  make the call, then SIGKILL the process (the crash right after it)
 *             TORN       (write calls) write the first half of the bytes but at most 100 (less than
 *                        one state slot, so the slot is torn), then SIGKILL
 *   KLMS_FAULT_SUFFIX=<text>  which files: those whose path (readlink of /proc/self/fd/N) ends in
 *             <text>; default ".state" (".cache" for the tree cache)
 *   KLMS_FAULT_VERBOSE=1      one line on stderr for every failure injected
 *
 * A failing call does nothing and returns -1 with errno set. Counters live in process memory: a
 * forked child continues from the parent's counts, an exec'd program starts from zero.
 *
 * Crash points (test/recipes/reuse_crash_points.t): the shim can also count every durable
 * step a process takes on matching files and die by SIGKILL at the k-th one, so that a test can
 * enumerate every crash point of an operation instead of sampling instants.
 *   KLMS_KILL_AT=<k>[:after]  SIGKILL this process at the k-th step (counted from 1 per process, over
 *             all threads): just before the call, or with ":after" just after it returned
 *   KLMS_KILL_MATCH=<text>    which files are steps: those whose path contains <text> (for an open,
 *             the path opened, resolved against its directory fd; for fd calls, readlink of the fd;
 *             for rename/link either name); unset: no step is counted
 *   KLMS_KILL_TRACE=<file>    append "<pid> <step> <call> <path>" for every step to <file> (opened
 *             O_APPEND per line; its path must not contain the match text)
 *   steps = open, open64, openat, openat64, creat, write, writev, pwrite, pwrite64, pwritev, fsync,
 *           fdatasync, ftruncate, ftruncate64, fchmod, rename, renameat, renameat2, link, linkat,
 *           unlink, unlinkat, close
 * A trace run (KLMS_KILL_TRACE without KLMS_KILL_AT) tells how many steps an operation has.
 *
 * With AddressSanitizer builds, preloading an uninstrumented library before the ASan runtime needs
 * ASAN_OPTIONS=verify_asan_link_order=0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define SHIM_EXPORT __attribute__((visibility("default")))

enum op_kind { OP_WRITE, OP_PWRITE, OP_FSYNC, OP_FDATASYNC };

/* What each intercepted call counts as. */
enum call_kind { CALL_WRITE, CALL_PWRITE, CALL_FSYNC, CALL_FDATASYNC };

struct rule {
  enum op_kind op;
  unsigned long n;
  int and_later;
  int error;
  atomic_ulong seen;
};

static struct rule rules[8];
static int rule_count;
static int verbose;
static char suffix[64] = ".state";
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/* Set while the shim itself runs: its own messages to stderr must not recurse into it. */
static __thread int inside_shim;

/* Pseudo error numbers: a crash instead of a failure. */
#define ACT_KILL (-1)
#define ACT_KILL_AFTER (-2)
#define ACT_TORN (-3)

static int parse_errno(const char* s) {
  if (strcmp(s, "KILL") == 0) return ACT_KILL;
  if (strcmp(s, "KILLAFTER") == 0) return ACT_KILL_AFTER;
  if (strcmp(s, "TORN") == 0) return ACT_TORN;
  if (strcmp(s, "EIO") == 0) return EIO;
  if (strcmp(s, "ENOSPC") == 0) return ENOSPC;
  if (strcmp(s, "EDQUOT") == 0) return EDQUOT;
  if (strcmp(s, "EROFS") == 0) return EROFS;
  if (strcmp(s, "EFBIG") == 0) return EFBIG;
  return 0;
}

static int parse_op(const char* s, size_t len, enum op_kind* op) {
  if (len == 5 && strncmp(s, "write", 5) == 0) *op = OP_WRITE;
  else if (len == 6 && strncmp(s, "pwrite", 6) == 0) *op = OP_PWRITE;
  else if (len == 5 && strncmp(s, "fsync", 5) == 0) *op = OP_FSYNC;
  else if (len == 9 && strncmp(s, "fdatasync", 9) == 0) *op = OP_FDATASYNC;
  else return 0;
  return 1;
}

static void complain(const char* what, const char* text) {
  fprintf(stderr, "klms_fault_shim: ignoring %s \"%s\"\n", what, text);
}

static void parse_rule(char* text) {
  struct rule* r = &rules[rule_count];
  char* colon = strchr(text, ':');
  if (colon == NULL || !parse_op(text, (size_t)(colon - text), &r->op)) { complain("rule", text); return; }
  char* end = NULL;
  r->n = strtoul(colon + 1, &end, 10);
  if (end == colon + 1 || r->n == 0) { complain("rule", text); return; }
  r->and_later = 0;
  if (*end == '+') {
    r->and_later = 1;
    ++end;
  }
  r->error = EIO;
  if (*end == ':') {
    r->error = parse_errno(end + 1);
    if (r->error == 0) { complain("rule", text); return; }
  } else if (*end != '\0') {
    { complain("rule", text); return; }
  }
  atomic_init(&r->seen, 0);
  ++rule_count;
}

static void init(void) {
  const char* v = getenv("KLMS_FAULT_VERBOSE");
  verbose = v != NULL && strcmp(v, "1") == 0;
  const char* s = getenv("KLMS_FAULT_SUFFIX");
  if (s != NULL && *s != '\0' && strlen(s) < sizeof suffix) strcpy(suffix, s);
  const char* spec = getenv("KLMS_FAULT");
  if (spec == NULL) return;
  char copy[512];
  if (strlen(spec) >= sizeof copy) { complain("KLMS_FAULT (too long)", spec); return; }
  strcpy(copy, spec);
  char* save = NULL;
  for (char* tok = strtok_r(copy, ",", &save); tok != NULL && rule_count < 8; tok = strtok_r(NULL, ",", &save)) {
    parse_rule(tok);
  }
}

static int fd_matches(int fd, char* path, size_t path_size) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, path_size - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  const char* deleted = " (deleted)";
  const size_t dlen = strlen(deleted);
  size_t len = (size_t)n;
  if (len > dlen && strcmp(path + len - dlen, deleted) == 0) len -= dlen;
  const size_t slen = strlen(suffix);
  return len >= slen && strncmp(path + len - slen, suffix, slen) == 0;
}

static int rule_applies(enum op_kind op, enum call_kind call) {
  switch (op) {
    case OP_WRITE: return call == CALL_WRITE || call == CALL_PWRITE;
    case OP_PWRITE: return call == CALL_PWRITE;
    case OP_FSYNC: return call == CALL_FSYNC || call == CALL_FDATASYNC;
    case OP_FDATASYNC: return call == CALL_FDATASYNC;
  }
  return 0;
}

/* The errno to fail with, or 0 to let the call through. */
static int injected_error(int fd, enum call_kind call, const char* name) {
  if (inside_shim) return 0;
  inside_shim = 1;
  pthread_once(&init_once, init);
  char path[4096];
  int error = 0;
  if (rule_count == 0 || !fd_matches(fd, path, sizeof path)) {
    inside_shim = 0;
    return 0;
  }
  for (int i = 0; i < rule_count; ++i) {
    struct rule* r = &rules[i];
    if (!rule_applies(r->op, call)) continue;
    const unsigned long seen = atomic_fetch_add(&r->seen, 1) + 1;
    if (error == 0 && (seen == r->n || (r->and_later && seen > r->n))) error = r->error;
  }
  if (error != 0 && verbose) {
    fprintf(stderr, "klms_fault_shim: %s %s on %s%s%s\n", error < 0 ? "crashing at" : "failing", name, path,
            error < 0 ? "" : ": ", error < 0 ? "" : strerror(error));
  }
  inside_shim = 0;
  return error;
}


/* ---- crash points ---- */
static char kill_match[512];
static char kill_trace[1024];
static unsigned long kill_at;
static int kill_after;
static atomic_ulong kill_steps;
static pthread_once_t kill_once = PTHREAD_ONCE_INIT;

static void kill_init(void) {
  const char* m = getenv("KLMS_KILL_MATCH");
  if (m != NULL && strlen(m) < sizeof kill_match) strcpy(kill_match, m);
  const char* t = getenv("KLMS_KILL_TRACE");
  if (t != NULL && strlen(t) < sizeof kill_trace) strcpy(kill_trace, t);
  const char* a = getenv("KLMS_KILL_AT");
  if (a != NULL) {
    char* end = NULL;
    kill_at = strtoul(a, &end, 10);
    if (end != NULL && strcmp(end, ":after") == 0) kill_after = 1;
  }
  atomic_init(&kill_steps, 0);
}

static void die_now(void) { kill(getpid(), SIGKILL); }

static ssize_t (*real_write_fn(void))(int, const void*, size_t);

/* Step number (>= 1) when `path` is a step file, 0 otherwise; dies first when the step is the one. */
static unsigned long step_path(const char* path, const char* name) {
  if (inside_shim || path == NULL) return 0;
  inside_shim = 1;
  pthread_once(&kill_once, kill_init);
  unsigned long step = 0;
  if (kill_match[0] != '\0' && strstr(path, kill_match) != NULL) {
    step = atomic_fetch_add(&kill_steps, 1) + 1;
    if (kill_trace[0] != '\0') {
      char line[4400];
      const int len = snprintf(line, sizeof line, "%ld %lu %s %s%s\n", (long)getpid(), step, name, path,
                               kill_at == step ? (kill_after ? " (kill after)" : " (kill before)") : "");
      int (*real_open)(const char*, int, ...) = (int (*)(const char*, int, ...))dlsym(RTLD_NEXT, "open");
      int (*real_close)(int) = (int (*)(int))dlsym(RTLD_NEXT, "close");
      const int fd = real_open(kill_trace, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
      if (fd >= 0) {
        if (len > 0) (void)real_write_fn()(fd, line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
        real_close(fd);
      }
    }
    if (kill_at == step && !kill_after) die_now();
  }
  inside_shim = 0;
  return step;
}

static unsigned long step_fd(int fd, const char* name) {
  if (inside_shim) return 0;
  pthread_once(&kill_once, kill_init);
  if (kill_match[0] == '\0') return 0;
  char link[64];
  char path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  inside_shim = 1;
  const ssize_t n = readlink(link, path, sizeof path - 1);
  inside_shim = 0;
  if (n <= 0) return 0;
  path[n] = '\0';
  return step_path(path, name);
}

static unsigned long step_at(int dirfd, const char* name_in_dir, const char* name) {
  if (inside_shim || name_in_dir == NULL) return 0;
  pthread_once(&kill_once, kill_init);
  if (kill_match[0] == '\0') return 0;
  char path[8200];
  if (name_in_dir[0] == '/') return step_path(name_in_dir, name);
  inside_shim = 1;
  char base[4096];
  ssize_t n = -1;
  if (dirfd == AT_FDCWD) {
    n = getcwd(base, sizeof base) != NULL ? (ssize_t)strlen(base) : -1;
  } else {
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
    n = readlink(link, base, sizeof base - 1);
    if (n > 0) base[n] = '\0';
  }
  inside_shim = 0;
  if (n <= 0) return 0;
  snprintf(path, sizeof path, "%s/%s", base, name_in_dir);
  return step_path(path, name);
}

static void step_done(unsigned long step) {
  if (step != 0 && kill_after && step == kill_at) die_now();
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static void crash(void) {
  raise(SIGKILL);
  _exit(137); /* not reached */
}

/* A failure returns -1 with errno; KILL crashes before the call; KILLAFTER and TORN are left to
 * the wrapper (CRASH_AFTER, TORN_WRITE). */
#define FAIL_IF_INJECTED(fd, call, name)                  \
  const int injected = injected_error(fd, call, name);    \
  do {                                                    \
    if (injected == ACT_KILL) crash();                    \
    if (injected > 0) {                                   \
      errno = injected;                                   \
      return -1;                                          \
    }                                                     \
  } while (0)

/* KILLAFTER: the real call was made, now the crash. */
#define CRASH_AFTER()                                     \
  do {                                                    \
    if (injected == ACT_KILL_AFTER) crash();              \
  } while (0)

/* TORN: the first half of the bytes of a write (at most 100) reach the file, then the crash. */
#define TORN_COUNT(count) ((count) / 2 < 100 ? (count) / 2 : 100)
#define TORN_WRITE(expr)                                  \
  do {                                                    \
    if (injected == ACT_TORN) {                           \
      (void)(expr);                                       \
      crash();                                            \
    }                                                     \
  } while (0)

SHIM_EXPORT ssize_t write(int fd, const void* buf, size_t count) {
  FAIL_IF_INJECTED(fd, CALL_WRITE, "write");
  TORN_WRITE(REAL(write)(fd, buf, TORN_COUNT(count)));
  const unsigned long step = step_fd(fd, "write");
  const __typeof__(REAL(write)(fd, buf, count)) r = REAL(write)(fd, buf, count);
  const int saved = errno;
  CRASH_AFTER();
  step_done(step);
  errno = saved;
  return r;
}

SHIM_EXPORT ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  FAIL_IF_INJECTED(fd, CALL_WRITE, "writev");
  TORN_WRITE(iovcnt > 0 ? REAL(write)(fd, iov[0].iov_base, TORN_COUNT(iov[0].iov_len)) : 0);
  const unsigned long step = step_fd(fd, "writev");
  const __typeof__(REAL(writev)(fd, iov, iovcnt)) r = REAL(writev)(fd, iov, iovcnt);
  const int saved = errno;
  CRASH_AFTER();
  step_done(step);
  errno = saved;
  return r;
}

SHIM_EXPORT ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  FAIL_IF_INJECTED(fd, CALL_PWRITE, "pwrite");
  TORN_WRITE(REAL(pwrite)(fd, buf, TORN_COUNT(count), offset));
  const unsigned long step = step_fd(fd, "pwrite");
  const __typeof__(REAL(pwrite)(fd, buf, count, offset)) r = REAL(pwrite)(fd, buf, count, offset);
  const int saved = errno;
  CRASH_AFTER();
  step_done(step);
  errno = saved;
  return r;
}

SHIM_EXPORT ssize_t pwrite64(int fd, const void* buf, size_t count, off64_t offset) {
  FAIL_IF_INJECTED(fd, CALL_PWRITE, "pwrite64");
  TORN_WRITE(REAL(pwrite64)(fd, buf, TORN_COUNT(count), offset));
  const unsigned long step = step_fd(fd, "pwrite64");
  const __typeof__(REAL(pwrite64)(fd, buf, count, offset)) r = REAL(pwrite64)(fd, buf, count, offset);
  const int saved = errno;
  CRASH_AFTER();
  step_done(step);
  errno = saved;
  return r;
}

SHIM_EXPORT ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  FAIL_IF_INJECTED(fd, CALL_PWRITE, "pwritev");
  TORN_WRITE(iovcnt > 0 ? REAL(pwrite)(fd, iov[0].iov_base, TORN_COUNT(iov[0].iov_len), offset) : 0);
  const unsigned long step = step_fd(fd, "pwritev");
  const __typeof__(REAL(pwritev)(fd, iov, iovcnt, offset)) r = REAL(pwritev)(fd, iov, iovcnt, offset);
  const int saved = errno;
  CRASH_AFTER();
  step_done(step);
  errno = saved;
  return r;
}

SHIM_EXPORT int fsync(int fd) {
  FAIL_IF_INJECTED(fd, CALL_FSYNC, "fsync");
  TORN_WRITE(0);
  const unsigned long step = step_fd(fd, "fsync");
  const __typeof__(REAL(fsync)(fd)) r = REAL(fsync)(fd);
  const int saved = errno;
  CRASH_AFTER();
  step_done(step);
  errno = saved;
  return r;
}

SHIM_EXPORT int fdatasync(int fd) {
  FAIL_IF_INJECTED(fd, CALL_FDATASYNC, "fdatasync");
  TORN_WRITE(0);
  const unsigned long step = step_fd(fd, "fdatasync");
  const __typeof__(REAL(fdatasync)(fd)) r = REAL(fdatasync)(fd);
  const int saved = errno;
  CRASH_AFTER();
  step_done(step);
  errno = saved;
  return r;
}

/* ---- calls that are only crash points ---- */
#define STEP_CALL(stepexpr, call)     \
  const unsigned long step = stepexpr; \
  const __typeof__(call) r = call;    \
  const int saved = errno;            \
  step_done(step);                    \
  errno = saved;                      \
  return r

static int open_mode_needed(int flags) { return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE; }

SHIM_EXPORT int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (open_mode_needed(flags)) { va_list ap; va_start(ap, flags); mode = (mode_t)va_arg(ap, int); va_end(ap); }
  STEP_CALL(step_at(AT_FDCWD, path, "open"), REAL(open)(path, flags, mode));
}
SHIM_EXPORT int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (open_mode_needed(flags)) { va_list ap; va_start(ap, flags); mode = (mode_t)va_arg(ap, int); va_end(ap); }
  STEP_CALL(step_at(AT_FDCWD, path, "open64"), REAL(open64)(path, flags, mode));
}
SHIM_EXPORT int openat(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (open_mode_needed(flags)) { va_list ap; va_start(ap, flags); mode = (mode_t)va_arg(ap, int); va_end(ap); }
  STEP_CALL(step_at(dirfd, path, "openat"), REAL(openat)(dirfd, path, flags, mode));
}
SHIM_EXPORT int openat64(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (open_mode_needed(flags)) { va_list ap; va_start(ap, flags); mode = (mode_t)va_arg(ap, int); va_end(ap); }
  STEP_CALL(step_at(dirfd, path, "openat64"), REAL(openat64)(dirfd, path, flags, mode));
}
SHIM_EXPORT int creat(const char* path, mode_t mode) { STEP_CALL(step_at(AT_FDCWD, path, "creat"), REAL(creat)(path, mode)); }
SHIM_EXPORT int close(int fd) { STEP_CALL(step_fd(fd, "close"), REAL(close)(fd)); }
SHIM_EXPORT int ftruncate(int fd, off_t len) { STEP_CALL(step_fd(fd, "ftruncate"), REAL(ftruncate)(fd, len)); }
SHIM_EXPORT int ftruncate64(int fd, off64_t len) { STEP_CALL(step_fd(fd, "ftruncate64"), REAL(ftruncate64)(fd, len)); }
SHIM_EXPORT int fchmod(int fd, mode_t mode) { STEP_CALL(step_fd(fd, "fchmod"), REAL(fchmod)(fd, mode)); }
SHIM_EXPORT int unlink(const char* path) { STEP_CALL(step_at(AT_FDCWD, path, "unlink"), REAL(unlink)(path)); }
SHIM_EXPORT int unlinkat(int dirfd, const char* path, int flags) {
  STEP_CALL(step_at(dirfd, path, "unlinkat"), REAL(unlinkat)(dirfd, path, flags));
}
static unsigned long step_two(int d1, const char* p1, int d2, const char* p2, const char* name) {
  const unsigned long a = step_at(d1, p1, name);
  return a != 0 ? a : step_at(d2, p2, name);
}
SHIM_EXPORT int rename(const char* from, const char* to) {
  STEP_CALL(step_two(AT_FDCWD, from, AT_FDCWD, to, "rename"), REAL(rename)(from, to));
}
SHIM_EXPORT int renameat(int d1, const char* from, int d2, const char* to) {
  STEP_CALL(step_two(d1, from, d2, to, "renameat"), REAL(renameat)(d1, from, d2, to));
}
SHIM_EXPORT int renameat2(int d1, const char* from, int d2, const char* to, unsigned int flags) {
  STEP_CALL(step_two(d1, from, d2, to, "renameat2"), REAL(renameat2)(d1, from, d2, to, flags));
}
SHIM_EXPORT int link(const char* from, const char* to) {
  STEP_CALL(step_two(AT_FDCWD, from, AT_FDCWD, to, "link"), REAL(link)(from, to));
}
SHIM_EXPORT int linkat(int d1, const char* from, int d2, const char* to, int flags) {
  STEP_CALL(step_two(d1, from, d2, to, "linkat"), REAL(linkat)(d1, from, d2, to, flags));
}

static ssize_t (*real_write_fn(void))(int, const void*, size_t) { return REAL(write); }
