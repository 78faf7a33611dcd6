/* malloc replaced in the executable (glibc supports it), for test/evp/evp_oom_test.cpp: each call
 * goes on to glibc's own __libc_* function, except that after klms_fail_next_allocation() the next
 * allocation on the calling thread fails, once. The provider's operator new takes its memory from
 * malloc, so that allocation throws std::bad_alloc inside the provider as real exhaustion would. */
#include <errno.h>
#include <stddef.h>

void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void* __libc_valloc(size_t);
void* __libc_pvalloc(size_t);
void __libc_free(void*);

/* The project builds with hidden visibility; these must be in the dynamic symbol table for the
 * provider module's calls to bind to them. */
#define EXPORTED __attribute__((visibility("default")))

static _Thread_local int fail_next;
static _Thread_local int failures;

EXPORTED void klms_fail_next_allocation(int on) { fail_next = on; }
EXPORTED int klms_failed_allocations(void) { return failures; }

static int fail_now(void) {
  if (!fail_next) return 0;
  fail_next = 0;
  ++failures;
  return 1;
}

EXPORTED void* malloc(size_t n) { return fail_now() ? NULL : __libc_malloc(n); }
EXPORTED void* calloc(size_t n, size_t size) { return fail_now() ? NULL : __libc_calloc(n, size); }
EXPORTED void* realloc(void* p, size_t n) { return fail_now() ? NULL : __libc_realloc(p, n); }
EXPORTED void free(void* p) { __libc_free(p); }
EXPORTED void* memalign(size_t align, size_t n) { return fail_now() ? NULL : __libc_memalign(align, n); }
EXPORTED void* aligned_alloc(size_t align, size_t n) { return fail_now() ? NULL : __libc_memalign(align, n); }
EXPORTED void* valloc(size_t n) { return fail_now() ? NULL : __libc_valloc(n); }
EXPORTED void* pvalloc(size_t n) { return fail_now() ? NULL : __libc_pvalloc(n); }
EXPORTED int posix_memalign(void** out, size_t align, size_t n) {
  void* p;
  if (fail_now()) return ENOMEM;
  p = __libc_memalign(align, n);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}
