// The module's log: where a refusal's reason goes, since a CKR alone cannot say which state file
// was copied or which PIN was wrong. KLMS_PKCS11_LOG (or `log` in the configuration) names it:
// "syslog" (the default, facility user, ident klms-pkcs11), "stderr", "none", or an absolute file
// path (created 0600, appended to). Lines never hold a PIN or key material.
#pragma once

#include <string>

namespace klms::pkcs11 {

enum class LogLevel { kError, kWarning, kInfo };

// Sets the destination; "" keeps the default. Returns false for a value that is none of the above.
bool set_log_destination(const std::string& destination) noexcept;
// printf-like; never throws, never fails the caller.
void log_line(LogLevel level, const char* format, ...) noexcept __attribute__((format(printf, 2, 3)));

}  // namespace klms::pkcs11
