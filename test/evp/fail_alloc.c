/* malloc replaced in the executable (glibc supports it), for test/evp/evp_oom_test.cpp: each call
 * goes on to glibc's own __libc_* function, except that after klms_fail_next_allocation() the next
 * allocation on the calling thread *made from the provider module klms.so* fails, once. The
 * provider's operator new (libstdc++ is linked into klms.so) takes its memory from malloc, so that
 * allocation throws std::bad_alloc inside the provider as real exhaustion would. Allocations of
 * libcrypto itself are left alone: which of them an EVP call makes first differs between OpenSSL
 * versions (3.5's EVP_PKEY_CTX_set_params allocates before it reaches the provider, and copes). */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
/* The provider module's mapped range, found when a failure is armed (never inside malloc). */
static uintptr_t module_start, module_end;

static int find_module(struct dl_phdr_info* info, size_t size, void* unused) {
  size_t len = strlen(info->dlpi_name);
  (void)size;
  (void)unused;
  if (len < 8 || strcmp(info->dlpi_name + len - 8, "/klms.so") != 0) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
    if (module_start == 0 || start < module_start) module_start = start;
    if (end > module_end) module_end = end;
  }
  return 1;
}

/* Arms (on != 0) or disarms the failure; returns 0 if klms.so is not loaded. */
EXPORTED int klms_fail_next_allocation(int on) {
  if (on && module_start == 0) dl_iterate_phdr(find_module, NULL);
  fail_next = on && module_start != 0;
  return module_start != 0;
}
EXPORTED int klms_failed_allocations(void) { return failures; }

static int fail_now(const void* caller) {
  uintptr_t at = (uintptr_t)caller;
  if (!fail_next || at < module_start || at >= module_end) return 0;
  fail_next = 0;
  ++failures;
  return 1;
}

#define CALLER __builtin_return_address(0)
EXPORTED void* malloc(size_t n) { return fail_now(CALLER) ? NULL : __libc_malloc(n); }
EXPORTED void* calloc(size_t n, size_t size) { return fail_now(CALLER) ? NULL : __libc_calloc(n, size); }
EXPORTED void* realloc(void* p, size_t n) { return fail_now(CALLER) ? NULL : __libc_realloc(p, n); }
EXPORTED void free(void* p) { __libc_free(p); }
EXPORTED void* memalign(size_t align, size_t n) { return fail_now(CALLER) ? NULL : __libc_memalign(align, n); }
EXPORTED void* aligned_alloc(size_t align, size_t n) { return fail_now(CALLER) ? NULL : __libc_memalign(align, n); }
EXPORTED void* valloc(size_t n) { return fail_now(CALLER) ? NULL : __libc_valloc(n); }
EXPORTED void* pvalloc(size_t n) { return fail_now(CALLER) ? NULL : __libc_pvalloc(n); }
EXPORTED int posix_memalign(void** out, size_t align, size_t n) {
  void* p;
  if (fail_now(CALLER)) return ENOMEM;
  p = __libc_memalign(align, n);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}
