// The C boundary: every function OpenSSL calls (docs/design.md "Provider surface").
//
// Two tools, used by every entry point and every dispatch table of the provider:
//
// - guarded(ctx, what, fallback, body): runs body() and returns its value; an exception never
//   leaves it. std::bad_alloc (and std::length_error, which the standard containers throw for a
//   size they cannot represent: the same condition) becomes the provider's "out of memory" reason
//   on OpenSSL's error queue, any other exception "internal error", and the function returns
//   `fallback` — what OpenSSL's contract for that entry calls failure (0, nullptr, -1). With a null
//   context nothing can be raised (the core's error functions live in the context); the fallback
//   is still returned. Entries are declared noexcept; the guard is what makes that true, and
//   clang-tidy's bugprone-exception-escape checks it (scripts/clang-tidy.sh).
//
// - KLMS_DISPATCH(ID, name, fn): one OSSL_DISPATCH entry {OSSL_FUNC_<ID>, fn}. `fn` is converted
//   to OpenSSL's own pointer type OSSL_FUNC_<name>_fn* (openssl/core_dispatch.h) before the one
//   cast to void (*)() that OSSL_DISPATCH stores, so a function whose signature differs from the
//   one OpenSSL calls it with does not compile. static_cast allows exactly the implicit function
//   pointer conversions: a noexcept function converts to the non-noexcept type, nothing else.
//   Keep ID and name the same operation in two spellings: KLMS_DISPATCH(DIGEST_NEWCTX,
//   digest_newctx, &f).
#pragma once

#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "provider/errors.h"
#include "provider/provider_context.h"

namespace klms::provider {

template <typename R, typename Body>
R guarded(const ProviderContext* ctx, const char* what, R fallback, Body&& body) noexcept {
  static_assert(std::is_convertible_v<std::invoke_result_t<Body&>, R>, "the body must return the entry's type");
  try {
    return std::forward<Body>(body)();
  } catch (const std::bad_alloc&) {
    KLMS_RAISE(ctx, kReasonOutOfMemory, "%s: out of memory", what);
  } catch (const std::length_error&) {
    KLMS_RAISE(ctx, kReasonOutOfMemory, "%s: a size beyond what can be allocated", what);
  } catch (...) {
    KLMS_RAISE(ctx, kReasonInternal, "%s: unexpected failure", what);
  }
  return fallback;
}

// For entries that return nothing (the free functions): the exception is reported and dropped.
template <typename Body>
void guarded_void(const ProviderContext* ctx, const char* what, Body&& body) noexcept {
  try {
    std::forward<Body>(body)();
  } catch (const std::bad_alloc&) {
    KLMS_RAISE(ctx, kReasonOutOfMemory, "%s: out of memory", what);
  } catch (...) {
    KLMS_RAISE(ctx, kReasonInternal, "%s: unexpected failure", what);
  }
}

}  // namespace klms::provider

// NOLINTNEXTLINE(bugprone-macro-parentheses): ID and name are pasted into identifiers
#define KLMS_DISPATCH(ID, name, fn) \
  OSSL_DISPATCH { OSSL_FUNC_##ID, reinterpret_cast<void (*)()>(static_cast<OSSL_FUNC_##name##_fn*>(fn)) }
#define KLMS_DISPATCH_END \
  OSSL_DISPATCH { 0, nullptr }
