/* klms-reuse-dup: the process duplication matrix of the reuse search.
 *
 *   klms-reuse-dup --list
 *   klms-reuse-dup --key KEY.pem --out DIR --case NAME
 *
 * Runs one case: an EVP API sequence on the klms provider, duplicated by fork() or by a raw
 * clone (syscall(SYS_clone, SIGCHLD, ...), which runs no atfork handler) at one point of the
 * sequence; then the parent and the child (and a grandchild in the *_twice cases) each try to
 * finish with their own data. Every signature made is written to DIR/<case>-<role>.sig with its
 * message in DIR/<case>-<role>.msg, and every attempt prints one line on stdout:
 *     <role> signed
 *     <role> refused: <OpenSSL error reason>
 *     <role> died: <how>
 * The judging is left to the caller (test/recipes/reuse_dup.t), which feeds DIR to the
 * independent ledger (test/support/Ledger.pm): at most one message per one-time key, and every
 * refusal a clear error. Exit status 0 when the case ran, 2 on a usage or setup error.
 *
 * Plain C on purpose: nothing of the provider or the engine is linked; providers are loaded from
 * $OPENSSL_CONF, else with OSSL_PROVIDER_load from $OPENSSL_MODULES.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/provider.h>

static OSSL_LIB_CTX* libctx;
static EVP_PKEY* pkey;
static const char* out_dir;
static const char* case_name;

/* One write(2) per line: stdio buffers would be duplicated into children. */
static void say(const char* fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
  line[n++] = '\n';
  ssize_t done = 0;
  while (done < n) {
    ssize_t w = write(1, line + done, (size_t)(n - done));
    if (w <= 0) break;
    done += w;
  }
}

static void write_file(const char* role, const char* ext, const unsigned char* data, size_t len) {
  char path[4096], tmp[4200];
  snprintf(path, sizeof path, "%s/%s-%s.%s", out_dir, case_name, role, ext);
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)syscall(SYS_getpid));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(fd, data + done, len - done);
    if (w <= 0) break;
    done += (size_t)w;
  }
  close(fd);
  rename(tmp, path);
}

static void refused(const char* role) {
  unsigned long e = ERR_get_error();
  const char* reason = e != 0 ? ERR_reason_error_string(e) : NULL;
  char buf[256];
  if (reason == NULL && e != 0) {
    ERR_error_string_n(e, buf, sizeof buf);
    reason = buf;
  }
  say("%s refused: %s", role, reason != NULL ? reason : "(no error on the queue)");
  ERR_clear_error();
}

/* A signature made: written out with its message. */
static void signed_it(const char* role, const unsigned char* sig, size_t siglen, const unsigned char* msg, size_t msglen) {
  write_file(role, "msg", msg, msglen);
  write_file(role, "sig", sig, siglen);
  say("%s signed", role);
}

/* ---- building blocks ---- */
static uint64_t g_reserve;  /* 0: the default */

static int sign_init(EVP_MD_CTX* ctx) {
  OSSL_PARAM params[2] = {OSSL_PARAM_END, OSSL_PARAM_END};
  uint64_t reserve = g_reserve;
  if (reserve != 0) params[0] = OSSL_PARAM_construct_uint64("reserve", &reserve);
  return EVP_DigestSignInit_ex(ctx, NULL, NULL, libctx, NULL, pkey, params) == 1;
}

static void message_of(const char* role, const char* prefix, unsigned char* msg, size_t* len) {
  *len = (size_t)snprintf((char*)msg, 512, "%s%s: case %s, pid %ld", prefix, role, case_name, (long)syscall(SYS_getpid));
}

/* One-shot EVP_DigestSign of a message naming the role, on a fresh context. */
static void oneshot(const char* role) {
  unsigned char msg[512];
  size_t msglen;
  message_of(role, "", msg, &msglen);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  size_t siglen = 0;
  unsigned char* sig = NULL;
  if (ctx == NULL || !sign_init(ctx) || EVP_DigestSign(ctx, NULL, &siglen, msg, msglen) != 1 ||
      (sig = OPENSSL_malloc(siglen)) == NULL || EVP_DigestSign(ctx, sig, &siglen, msg, msglen) != 1) {
    refused(role);
  } else {
    signed_it(role, sig, siglen, msg, msglen);
  }
  OPENSSL_free(sig);
  EVP_MD_CTX_free(ctx);
}

/* One-shot EVP_DigestSign on a given (already initialised) context. */
static void oneshot_on(EVP_MD_CTX* ctx, const char* role) {
  unsigned char msg[512];
  size_t msglen;
  message_of(role, "", msg, &msglen);
  size_t siglen = 0;
  unsigned char* sig = NULL;
  if (EVP_DigestSign(ctx, NULL, &siglen, msg, msglen) != 1 || (sig = OPENSSL_malloc(siglen)) == NULL ||
      EVP_DigestSign(ctx, sig, &siglen, msg, msglen) != 1) {
    refused(role);
  } else {
    signed_it(role, sig, siglen, msg, msglen);
  }
  OPENSSL_free(sig);
}

/* Streaming: the context already saw `prefix`; add a part naming the role, then final. */
static const char kPrefix[] = "streamed message, common prefix | ";

static void finish_stream(EVP_MD_CTX* ctx, const char* role) {
  unsigned char msg[512];
  size_t msglen;
  message_of(role, kPrefix, msg, &msglen);
  const size_t plen = sizeof kPrefix - 1;
  size_t siglen = 0;
  unsigned char* sig = NULL;
  if (EVP_DigestSignUpdate(ctx, msg + plen, msglen - plen) != 1 || EVP_DigestSignFinal(ctx, NULL, &siglen) != 1 ||
      (sig = OPENSSL_malloc(siglen)) == NULL || EVP_DigestSignFinal(ctx, sig, &siglen) != 1) {
    refused(role);
  } else {
    signed_it(role, sig, siglen, msg, msglen);
  }
  OPENSSL_free(sig);
}

static int start_stream(EVP_MD_CTX* ctx) {
  return sign_init(ctx) && EVP_DigestSignUpdate(ctx, kPrefix, sizeof kPrefix - 1) == 1;
}

/* EVP_PKEY_sign (the message is the "tbs" input) on a given context. */
static void pkey_sign_on(EVP_PKEY_CTX* pctx, const char* role) {
  unsigned char msg[512];
  size_t msglen;
  message_of(role, "", msg, &msglen);
  size_t siglen = 0;
  unsigned char* sig = NULL;
  if (EVP_PKEY_sign(pctx, NULL, &siglen, msg, msglen) != 1 || (sig = OPENSSL_malloc(siglen)) == NULL ||
      EVP_PKEY_sign(pctx, sig, &siglen, msg, msglen) != 1) {
    refused(role);
  } else {
    signed_it(role, sig, siglen, msg, msglen);
  }
  OPENSSL_free(sig);
}

/* ---- duplication ---- */
static int use_clone;

/* fork() or a raw clone; returns the child's pid in the parent, 0 in the child, -1 on failure. */
static pid_t duplicate(void) {
  if (!use_clone) return fork();
  return (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD, NULL, NULL, NULL, NULL);
}

/* In the child: finish, then leave without running atexit handlers or destructors of the parent's. */
static void child_done(void) { _exit(0); }

static void reap(pid_t pid, const char* role) {
  int status = 0;
  if (pid < 0) {
    say("%s died: could not duplicate: %s", role, strerror(errno));
    return;
  }
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFSIGNALED(status)) say("%s died: signal %d%s", role, WTERMSIG(status), WTERMSIG(status) == SIGALRM ? " (hung)" : "");
  else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) say("%s died: exit %d", role, WEXITSTATUS(status));
}

static void child_alarm(void) { alarm(30); }  /* a hung child dies by SIGALRM: reported as hung */

/* ---- a thread that keeps signing ---- */
static volatile int thread_stop;
static pthread_t signer_thread;
static int thread_count;

static void* signing_thread(void* arg) {
  (void)arg;
  while (!thread_stop && thread_count < 300) {
    char role[64];
    snprintf(role, sizeof role, "thread%d", ++thread_count);
    oneshot(role);
  }
  return NULL;
}
static void start_thread(void) {
  thread_stop = 0;
  pthread_create(&signer_thread, NULL, signing_thread, NULL);
  while (thread_count < 2) usleep(1000);  /* let it be signing when the process is duplicated */
}
static void stop_thread(void) {
  thread_stop = 1;
  pthread_join(signer_thread, NULL);
}

/* ---- the cases ---- */
typedef void (*case_fn)(void);

/* After DigestSignInit: each process signs one-shot on the inherited context. */
static void case_after_init(void) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!sign_init(ctx)) { refused("setup"); return; }
  pid_t pid = duplicate();
  if (pid == 0) { child_alarm(); oneshot_on(ctx, "child"); child_done(); }
  oneshot_on(ctx, "parent");
  reap(pid, "child");
  EVP_MD_CTX_free(ctx);
}

/* After the first EVP_DigestSignUpdate (the index is taken): both finish the copied operation. */
static void case_after_update(void) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!start_stream(ctx)) { refused("setup"); return; }
  pid_t pid = duplicate();
  if (pid == 0) { child_alarm(); finish_stream(ctx, "child"); child_done(); }
  finish_stream(ctx, "parent");
  reap(pid, "child");
  EVP_MD_CTX_free(ctx);
}

/* After the first update, duplicated twice: parent, child and grandchild finish it. */
static void case_after_update_twice(void) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!start_stream(ctx)) { refused("setup"); return; }
  pid_t pid = duplicate();
  if (pid == 0) {
    child_alarm();
    pid_t grand = duplicate();
    if (grand == 0) { child_alarm(); finish_stream(ctx, "grandchild"); child_done(); }
    finish_stream(ctx, "child");
    reap(grand, "grandchild");
    child_done();
  }
  finish_stream(ctx, "parent");
  reap(pid, "child");
  EVP_MD_CTX_free(ctx);
}

/* After a final: both append data to the finished operation and try to final again. */
static void case_after_final(void) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!start_stream(ctx)) { refused("setup"); return; }
  finish_stream(ctx, "first");
  pid_t pid = duplicate();
  if (pid == 0) { child_alarm(); finish_stream(ctx, "child"); child_done(); }
  finish_stream(ctx, "parent");
  reap(pid, "child");
  EVP_MD_CTX_free(ctx);
}

/* With reserve:8, one signature made (the rest of the batch in memory), then duplicated: each
 * process signs twice, on the inherited context (re-initialised) and on a fresh one. */
static void case_mid_reservation(void) {
  g_reserve = 8;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!sign_init(ctx)) { refused("setup"); return; }
  oneshot_on(ctx, "before");
  pid_t pid = duplicate();
  if (pid == 0) {
    child_alarm();
    if (sign_init(ctx)) oneshot_on(ctx, "child-ctx"); else refused("child-ctx");
    oneshot("child-new");
    child_done();
  }
  if (sign_init(ctx)) oneshot_on(ctx, "parent-ctx"); else refused("parent-ctx");
  oneshot("parent-new");
  reap(pid, "child");
  EVP_MD_CTX_free(ctx);
}

/* reserve:8, and the duplication between DigestSignInit and the first use of the context. */
static void case_reserve_then_use(void) {
  g_reserve = 8;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!sign_init(ctx)) { refused("setup"); return; }
  pid_t pid = duplicate();
  if (pid == 0) { child_alarm(); oneshot_on(ctx, "child"); oneshot("child-new"); child_done(); }
  oneshot_on(ctx, "parent");
  oneshot("parent-new");
  reap(pid, "child");
  EVP_MD_CTX_free(ctx);
}

/* Mid-lease with a copy: update (index taken), EVP_MD_CTX_copy_ex, then duplicated; the parent
 * finishes the original, the child the copy. */
static void case_lease_copy(void) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  if (!start_stream(ctx) || EVP_MD_CTX_copy_ex(copy, ctx) != 1) { refused("setup"); return; }
  pid_t pid = duplicate();
  if (pid == 0) { child_alarm(); finish_stream(copy, "child-copy"); child_done(); }
  finish_stream(ctx, "parent");
  reap(pid, "child");
  EVP_MD_CTX_free(copy);
  EVP_MD_CTX_free(ctx);
}

/* Mid-lease, duplicated, and each process makes its own copy and finishes both. */
static void case_lease_copy_after(void) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!start_stream(ctx)) { refused("setup"); return; }
  pid_t pid = duplicate();
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  const char* who = pid == 0 ? "child" : "parent";
  char r1[32], r2[32];
  snprintf(r1, sizeof r1, "%s", who);
  snprintf(r2, sizeof r2, "%s-copy", who);
  if (pid == 0) child_alarm();
  if (EVP_MD_CTX_copy_ex(copy, ctx) != 1) refused(r2); else finish_stream(copy, r2);
  finish_stream(ctx, r1);
  if (pid == 0) child_done();
  reap(pid, "child");
  EVP_MD_CTX_free(copy);
  EVP_MD_CTX_free(ctx);
}

/* No duplication: the copy rule itself (one operation, one index, one signature). */
static void case_copy_no_dup(void) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  if (!start_stream(ctx) || EVP_MD_CTX_copy_ex(copy, ctx) != 1) { refused("setup"); return; }
  finish_stream(ctx, "original");
  finish_stream(copy, "copy");
  EVP_MD_CTX_free(copy);
  EVP_MD_CTX_free(ctx);
}

/* A copy made after init (before any update), then duplicated: four streams. */
static void case_copy_before_update(void) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  if (!sign_init(ctx) || EVP_MD_CTX_copy_ex(copy, ctx) != 1) { refused("setup"); return; }
  pid_t pid = duplicate();
  const char* who = pid == 0 ? "child" : "parent";
  char r1[32], r2[32];
  snprintf(r1, sizeof r1, "%s", who);
  snprintf(r2, sizeof r2, "%s-copy", who);
  if (pid == 0) child_alarm();
  if (EVP_DigestSignUpdate(ctx, kPrefix, sizeof kPrefix - 1) != 1) refused(r1); else finish_stream(ctx, r1);
  if (EVP_DigestSignUpdate(copy, kPrefix, sizeof kPrefix - 1) != 1) refused(r2); else finish_stream(copy, r2);
  if (pid == 0) child_done();
  reap(pid, "child");
  EVP_MD_CTX_free(copy);
  EVP_MD_CTX_free(ctx);
}

/* EVP_PKEY_sign with EVP_PKEY_CTX_dup, duplicated between init and sign. */
static void case_pkey_ctx_dup(void) {
  EVP_PKEY_CTX* pctx = EVP_PKEY_CTX_new_from_pkey(libctx, pkey, NULL);
  if (pctx == NULL || EVP_PKEY_sign_init(pctx) != 1) { refused("setup"); return; }
  EVP_PKEY_CTX* dup = EVP_PKEY_CTX_dup(pctx);
  if (dup == NULL) { refused("setup"); return; }
  pid_t pid = duplicate();
  if (pid == 0) { child_alarm(); pkey_sign_on(dup, "child-dup"); pkey_sign_on(pctx, "child"); child_done(); }
  pkey_sign_on(pctx, "parent");
  pkey_sign_on(dup, "parent-dup");
  reap(pid, "child");
  EVP_PKEY_CTX_free(dup);
  EVP_PKEY_CTX_free(pctx);
}

/* Another thread signing (reserve:4) while the process is duplicated mid-stream: the child
 * finishes the stream and signs one-shot; the parent finishes the stream. */
static void case_thread_mid_stream(void) {
  g_reserve = 4;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!start_stream(ctx)) { refused("setup"); return; }
  start_thread();
  pid_t pid = duplicate();
  if (pid == 0) { child_alarm(); finish_stream(ctx, "child"); oneshot("child-new"); child_done(); }
  finish_stream(ctx, "parent");
  reap(pid, "child");
  stop_thread();
  EVP_MD_CTX_free(ctx);
}

/* Another thread signing (reserve:4) while the process is duplicated: the child signs one-shot
 * with the shared key (the thread's batch lives in the parent). */
static void case_thread_oneshot(void) {
  g_reserve = 4;
  start_thread();
  pid_t pid = duplicate();
  if (pid == 0) { child_alarm(); oneshot("child-1"); oneshot("child-2"); child_done(); }
  oneshot("parent-1");
  reap(pid, "child");
  stop_thread();
}

struct test_case {
  const char* name;
  case_fn fn;
  int dup;  /* 0: no duplication (a control), 1: fork and clone variants */
};
static const struct test_case cases[] = {
    {"after_init", case_after_init, 1},
    {"after_update", case_after_update, 1},
    {"after_update_twice", case_after_update_twice, 1},
    {"after_final", case_after_final, 1},
    {"mid_reservation", case_mid_reservation, 1},
    {"reserve_then_use", case_reserve_then_use, 1},
    {"lease_copy", case_lease_copy, 1},
    {"lease_copy_after", case_lease_copy_after, 1},
    {"copy_before_update", case_copy_before_update, 1},
    {"pkey_ctx_dup", case_pkey_ctx_dup, 1},
    {"thread_mid_stream", case_thread_mid_stream, 1},
    {"thread_oneshot", case_thread_oneshot, 1},
    {"copy_no_dup", case_copy_no_dup, 0},
};

static int load(const char* key_path) {
  libctx = OSSL_LIB_CTX_new();
  if (libctx == NULL) return 0;
  const char* conf = getenv("OPENSSL_CONF");
  if (conf == NULL || *conf == '\0' || OSSL_LIB_CTX_load_config(libctx, conf) != 1 ||
      OSSL_PROVIDER_available(libctx, "klms") != 1) {
    if (OSSL_PROVIDER_load(libctx, "default") == NULL || OSSL_PROVIDER_load(libctx, "klms") == NULL) return 0;
  }
  BIO* bio = BIO_new_file(key_path, "rb");
  if (bio == NULL) return 0;
  pkey = PEM_read_bio_PrivateKey_ex(bio, NULL, NULL, NULL, libctx, NULL);
  BIO_free(bio);
  return pkey != NULL;
}

int main(int argc, char** argv) {
  const char* key = NULL;
  const char* name = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--list") == 0) {
      for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        if (cases[c].dup) printf("fork_%s\nclone_%s\n", cases[c].name, cases[c].name);
        else printf("%s\n", cases[c].name);
      }
      return 0;
    }
    if (strcmp(argv[i], "--key") == 0 && i + 1 < argc) key = argv[++i];
    else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) out_dir = argv[++i];
    else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) name = argv[++i];
    else { fprintf(stderr, "usage: klms-reuse-dup --list | --key KEY --out DIR --case NAME\n"); return 2; }
  }
  if (key == NULL || out_dir == NULL || name == NULL) { fprintf(stderr, "klms-reuse-dup: --key, --out and --case\n"); return 2; }
  case_name = name;
  const char* base = name;
  use_clone = 0;
  if (strncmp(name, "fork_", 5) == 0) base = name + 5;
  else if (strncmp(name, "clone_", 6) == 0) { base = name + 6; use_clone = 1; }
  const struct test_case* tc = NULL;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
    if (strcmp(cases[c].name, base) == 0 && (cases[c].dup == (base != name))) tc = &cases[c];
  }
  if (tc == NULL) { fprintf(stderr, "klms-reuse-dup: no case %s\n", name); return 2; }
  if (!load(key)) {
    fprintf(stderr, "klms-reuse-dup: cannot load the provider or the key %s\n", key);
    ERR_print_errors_fp(stderr);
    return 2;
  }
  tc->fn();
  EVP_PKEY_free(pkey);
  OSSL_LIB_CTX_free(libctx);
  return 0;
}
