/* klms-load-time: what loading the provider costs one process, with libcrypto already loaded and
 * initialised (docs/install.md "Load cost and self-tests"): the milliseconds of one
 * dlopen(RTLD_NOW) of MODULE, or with --provider of OSSL_PROVIDER_load(NULL, "klms") (dlopen,
 * OSSL_provider_init and OpenSSL's own bookkeeping; the module from $OPENSSL_MODULES). One figure
 * per process: a module is loaded once. bench/load/compare-load.sh runs it interleaved. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/provider.h>

static double ms_since(const struct timespec *a) {
  struct timespec b;
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: klms-load-time MODULE.so | --provider\n");
    return 2;
  }
  OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  if (strcmp(argv[1], "--provider") == 0) {
    OSSL_PROVIDER *p = OSSL_PROVIDER_load(NULL, "klms");
    const double ms = ms_since(&start);
    if (p == NULL) {
      fprintf(stderr, "klms-load-time: OSSL_PROVIDER_load(klms) failed\n");
      return 1;
    }
    printf("%.3f\n", ms);
    return 0;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  const double ms = ms_since(&start);
  if (h == NULL) {
    fprintf(stderr, "klms-load-time: %s\n", dlerror());
    return 1;
  }
  printf("%.3f\n", ms);
  return 0;
}
