/* klms_clock_probe: an LD_PRELOAD library that reports every clock read made directly by chosen
 * objects (by default the klms provider module), for the end-to-end check of docs/state.md §14 ("No
 * clock. Nothing depends on time.") in real openssl processes.
 *
 *   LD_PRELOAD=libklms_clock_probe.so KLMS_CLOCK_PROBE_LOG=/tmp/log openssl pkeyutl -sign ...
 *
 * Intercepted: time, gettimeofday, clock_gettime, clock, ftime, std::chrono::system_clock::now,
 * std::chrono::steady_clock::now, pthread_cond_timedwait and pthread_cond_clockwait. A call is
 * reported (one line, "klms_clock_probe: <function> called from <object>", once per function and
 * object) when the calling code lies in an object whose path contains one of the comma-separated
 * texts of KLMS_CLOCK_PROBE_MATCH (default "klms.so"). The report goes to the file
 * KLMS_CLOCK_PROBE_LOG (appended) or, when unset, to stderr. The intercepted calls then do what
 * the real ones do.
 *
 * Only direct callers are seen: a clock read inside another library on the provider's behalf is
 * that library's (the recipe uses KLMS_CLOCK_PROBE_MATCH=libcrypto to show that the probe works).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timeb.h>
#include <time.h>
#include <unistd.h>

#define PROBE_EXPORT __attribute__((visibility("default")))

/* initial-exec: no allocation on first use (the sanitizers' allocators read the clock themselves). */
static __thread int inside_probe __attribute__((tls_model("initial-exec")));
static pthread_mutex_t report_mutex = PTHREAD_MUTEX_INITIALIZER;
static char reported[64][160];
static int reported_count;

static int matches(const char* path) {
  const char* spec = getenv("KLMS_CLOCK_PROBE_MATCH");
  if (spec == NULL || *spec == '\0') spec = "klms.so";
  char copy[512];
  snprintf(copy, sizeof copy, "%s", spec);
  char* save = NULL;
  for (char* tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
    if (*tok != '\0' && strstr(path, tok) != NULL) return 1;
  }
  return 0;
}

static void check_caller(const char* function, void* caller) {
  if (inside_probe) return;
  inside_probe = 1;
  Dl_info info;
  if (dladdr(caller, &info) != 0 && info.dli_fname != NULL && matches(info.dli_fname)) {
    char line[160];
    snprintf(line, sizeof line, "%s called from %s", function, info.dli_fname);
    pthread_mutex_lock(&report_mutex);
    int seen = 0;
    for (int i = 0; i < reported_count; ++i) seen |= strcmp(reported[i], line) == 0;
    if (!seen) {
      if (reported_count < 64) strcpy(reported[reported_count++], line);
      char out[200];
      const int len = snprintf(out, sizeof out, "klms_clock_probe: %s\n", line);
      const char* log = getenv("KLMS_CLOCK_PROBE_LOG");
      const int fd = log != NULL && *log != '\0' ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : 2;
      if (fd >= 0) {
        if (write(fd, out, (size_t)len) < 0) { /* nothing to do */ }
        if (fd != 2) close(fd);
      }
    }
    pthread_mutex_unlock(&report_mutex);
  }
  inside_probe = 0;
}

#define CALLER __builtin_extract_return_addr(__builtin_return_address(0))

/* The real functions, looked up once before main. Until then (a sanitizer runtime reads the clock
 * while it starts, and dlsym would re-enter its allocator) the clocks are read with raw syscalls. */
static time_t (*real_time)(time_t*);
static int (*real_gettimeofday)(struct timeval*, void*);
static int (*real_clock_gettime)(clockid_t, struct timespec*);
static clock_t (*real_clock)(void);
static int (*real_ftime)(struct timeb*);
static int (*real_timedwait)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*);
static int (*real_clockwait)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*);

__attribute__((constructor)) static void resolve_real_functions(void) {
  real_time = (time_t (*)(time_t*))dlsym(RTLD_NEXT, "time");
  real_gettimeofday = (int (*)(struct timeval*, void*))dlsym(RTLD_NEXT, "gettimeofday");
  real_clock_gettime = (int (*)(clockid_t, struct timespec*))dlsym(RTLD_NEXT, "clock_gettime");
  real_clock = (clock_t (*)(void))dlsym(RTLD_NEXT, "clock");
  real_ftime = (int (*)(struct timeb*))dlsym(RTLD_NEXT, "ftime");
  real_timedwait = (int (*)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*))dlsym(RTLD_NEXT, "pthread_cond_timedwait");
  real_clockwait =
      (int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*))dlsym(RTLD_NEXT, "pthread_cond_clockwait");
}

PROBE_EXPORT time_t time(time_t* t) {
  check_caller("time", CALLER);
  if (real_time != NULL) return real_time(t);
  struct timespec ts;
  if (syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
  if (t != NULL) *t = ts.tv_sec;
  return ts.tv_sec;
}

PROBE_EXPORT int gettimeofday(struct timeval* restrict tv, void* restrict tz) {
  check_caller("gettimeofday", CALLER);
  if (real_gettimeofday != NULL) return real_gettimeofday(tv, tz);
  return (int)syscall(SYS_gettimeofday, tv, tz);
}

PROBE_EXPORT int clock_gettime(clockid_t id, struct timespec* ts) {
  check_caller("clock_gettime", CALLER);
  if (real_clock_gettime != NULL) return real_clock_gettime(id, ts);
  return (int)syscall(SYS_clock_gettime, id, ts);
}

PROBE_EXPORT clock_t clock(void) {
  check_caller("clock", CALLER);
  if (real_clock != NULL) return real_clock();
  struct timespec ts;
  if (syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return (clock_t)-1;
  return (clock_t)(ts.tv_sec * CLOCKS_PER_SEC + ts.tv_nsec / (1000000000 / CLOCKS_PER_SEC));
}

PROBE_EXPORT int ftime(struct timeb* tp) {
  check_caller("ftime", CALLER);
  if (real_ftime == NULL) real_ftime = (int (*)(struct timeb*))dlsym(RTLD_NEXT, "ftime");
  return real_ftime(tp);
}

PROBE_EXPORT int pthread_cond_timedwait(pthread_cond_t* restrict c, pthread_mutex_t* restrict m,
                                        const struct timespec* restrict abstime) {
  check_caller("pthread_cond_timedwait", CALLER);
  if (real_timedwait == NULL) {
    real_timedwait = (int (*)(pthread_cond_t*, pthread_mutex_t*, const struct timespec*))dlsym(RTLD_NEXT, "pthread_cond_timedwait");
  }
  return real_timedwait(c, m, abstime);
}

PROBE_EXPORT int pthread_cond_clockwait(pthread_cond_t* restrict c, pthread_mutex_t* restrict m, clockid_t id,
                                        const struct timespec* restrict abstime) {
  check_caller("pthread_cond_clockwait", CALLER);
  if (real_clockwait == NULL) {
    real_clockwait = (int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const struct timespec*))dlsym(
        RTLD_NEXT, "pthread_cond_clockwait");
  }
  return real_clockwait(c, m, id, abstime);
}

/* std::chrono::_V2::system_clock::now() and steady_clock::now(): a time_point is one 64-bit count.
 * libstdc++ may not be in the global scope (a provider dlopen'ed without RTLD_GLOBAL brings it in),
 * so RTLD_NEXT may not find it: then ask the already loaded libstdc++ itself. */
static void* cxx_symbol(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == NULL) {
    void* lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
    if (lib != NULL) f = dlsym(lib, name);
  }
  if (f == NULL) abort();
  return f;
}

PROBE_EXPORT long long _ZNSt6chrono3_V212system_clock3nowEv(void) {
  check_caller("std::chrono::system_clock::now", CALLER);
  return ((long long (*)(void))cxx_symbol("_ZNSt6chrono3_V212system_clock3nowEv"))();
}

PROBE_EXPORT long long _ZNSt6chrono3_V212steady_clock3nowEv(void) {
  check_caller("std::chrono::steady_clock::now", CALLER);
  return ((long long (*)(void))cxx_symbol("_ZNSt6chrono3_V212steady_clock3nowEv"))();
}
