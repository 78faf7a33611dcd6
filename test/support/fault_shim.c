/* klms_fault_shim: an LD_PRELOAD library that makes writes and fsyncs of state files fail, to test
 * STATE.md invariant 2 (durable before release; a failed write or fsync poisons the handle) in real
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
 * With AddressSanitizer builds, preloading an uninstrumented library before the ASan runtime needs
 * ASAN_OPTIONS=verify_asan_link_order=0.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
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

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static void crash(void) {
  raise(SIGKILL);
  _exit(137); /* not reached */
}

/* A failure returns -1 with errno; KILL crashes before the call; KILLAFTER and TORN are left to
 * the caller (CALL_THEN_CRASH). */
#define FAIL_IF_INJECTED(fd, call, name)                  \
  const int injected = injected_error(fd, call, name);    \
  do {                                                    \
    if (injected == ACT_KILL) crash();                    \
    if (injected > 0) {                                   \
      errno = injected;                                   \
      return -1;                                          \
    }                                                     \
  } while (0)

/* The real call, then the crash KILLAFTER asks for. */
#define CALL_THEN_CRASH(type, expr)                       \
  do {                                                    \
    type result_ = (expr);                                \
    if (injected == ACT_KILL_AFTER) crash();              \
    return result_;                                       \
  } while (0)

/* TORN: the first half of the bytes of a write (at most 100) reach the file, then the crash. */
#define TORN_COUNT(count) (injected == ACT_TORN ? ((count) / 2 < 100 ? (count) / 2 : 100) : (count))
#define CRASH_IF_TORN() \
  do {                  \
    if (injected == ACT_TORN) crash(); \
  } while (0)

SHIM_EXPORT ssize_t write(int fd, const void* buf, size_t count) {
  FAIL_IF_INJECTED(fd, CALL_WRITE, "write");
  if (injected == ACT_TORN) {
    REAL(write)(fd, buf, TORN_COUNT(count));
    CRASH_IF_TORN();
  }
  CALL_THEN_CRASH(ssize_t, REAL(write)(fd, buf, count));
}

SHIM_EXPORT ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  FAIL_IF_INJECTED(fd, CALL_WRITE, "writev");
  if (injected == ACT_TORN && iovcnt > 0) {
    REAL(write)(fd, iov[0].iov_base, TORN_COUNT(iov[0].iov_len));
    CRASH_IF_TORN();
  }
  CALL_THEN_CRASH(ssize_t, REAL(writev)(fd, iov, iovcnt));
}

SHIM_EXPORT ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  FAIL_IF_INJECTED(fd, CALL_PWRITE, "pwrite");
  if (injected == ACT_TORN) {
    REAL(pwrite)(fd, buf, TORN_COUNT(count), offset);
    CRASH_IF_TORN();
  }
  CALL_THEN_CRASH(ssize_t, REAL(pwrite)(fd, buf, count, offset));
}

SHIM_EXPORT ssize_t pwrite64(int fd, const void* buf, size_t count, off64_t offset) {
  FAIL_IF_INJECTED(fd, CALL_PWRITE, "pwrite64");
  if (injected == ACT_TORN) {
    REAL(pwrite64)(fd, buf, TORN_COUNT(count), offset);
    CRASH_IF_TORN();
  }
  CALL_THEN_CRASH(ssize_t, REAL(pwrite64)(fd, buf, count, offset));
}

SHIM_EXPORT ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  FAIL_IF_INJECTED(fd, CALL_PWRITE, "pwritev");
  if (injected == ACT_TORN && iovcnt > 0) {
    REAL(pwrite)(fd, iov[0].iov_base, TORN_COUNT(iov[0].iov_len), offset);
    CRASH_IF_TORN();
  }
  CALL_THEN_CRASH(ssize_t, REAL(pwritev)(fd, iov, iovcnt, offset));
}

SHIM_EXPORT int fsync(int fd) {
  FAIL_IF_INJECTED(fd, CALL_FSYNC, "fsync");
  CRASH_IF_TORN();
  CALL_THEN_CRASH(int, REAL(fsync)(fd));
}

SHIM_EXPORT int fdatasync(int fd) {
  FAIL_IF_INJECTED(fd, CALL_FDATASYNC, "fdatasync");
  CRASH_IF_TORN();
  CALL_THEN_CRASH(int, REAL(fdatasync)(fd));
}
