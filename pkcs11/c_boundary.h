// The C boundary (docs/design.md "The C boundary", for this module): every exported C_ function
// runs its body through guarded(), which turns std::bad_alloc into CKR_HOST_MEMORY and any other
// exception into CKR_GENERAL_ERROR (logged), so no exception crosses into the application.
// with_module() and with_session() add the checks most functions start with, in the
// specification's order: the module initialized in this process, then the session handle.
#pragma once

#include <exception>
#include <mutex>
#include <new>

#include "pkcs11/cryptoki.h"
#include "pkcs11/log.h"
#include "pkcs11/module.h"

#define KLMS_PKCS11_EXPORT extern "C" __attribute__((visibility("default")))

namespace klms::pkcs11 {

template <class Body>
CK_RV guarded(const char* what, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    log_line(LogLevel::kError, "%s: out of memory", what);
    return CKR_HOST_MEMORY;
  } catch (const std::exception& e) {
    log_line(LogLevel::kError, "%s: internal error: %s", what, e.what());
    return CKR_GENERAL_ERROR;
  } catch (...) {
    log_line(LogLevel::kError, "%s: internal error", what);
    return CKR_GENERAL_ERROR;
  }
}

using ModuleLock = std::unique_lock<std::mutex>;

template <class Body>
CK_RV with_module(const char* what, Body&& body) noexcept {
  return guarded(what, [&]() -> CK_RV {
    Module& m = module();
    ModuleLock lock(m.mutex);
    if (!m.initialized) return CKR_CRYPTOKI_NOT_INITIALIZED;
    return body(m, lock);
  });
}

// The body gets the session; after it lets go of the lock it must look the session up again.
template <class Body>
CK_RV with_session(const char* what, CK_SESSION_HANDLE h, Body&& body) noexcept {
  return with_module(what, [&](Module& m, ModuleLock& lock) -> CK_RV {
    Session* s = m.session(h);
    if (s == nullptr) return CKR_SESSION_HANDLE_INVALID;
    return body(m, *s, lock);
  });
}

// Fixed-width, blank-padded text fields of the info structures.
void pad_copy(CK_UTF8CHAR* field, std::size_t width, const char* text) noexcept;

}  // namespace klms::pkcs11
