#include "pkcs11/log.h"

#include <fcntl.h>
#include <syslog.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace klms::pkcs11 {
namespace {

enum class Kind { kSyslog, kStderr, kNone, kFile };

// Set while a configuration is read (C_Initialize), read by every line without a lock: a copy of
// the process made while another thread held a lock would never log again. A path, once set, is
// never freed (a line may be reading it); there are as many as configurations read.
std::atomic<Kind> g_kind{Kind::kSyslog};
std::atomic<const char*> g_path{nullptr};

const char* level_name(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::kError: return "error";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kInfo: return "info";
  }
  return "";
}

int syslog_priority(LogLevel level) noexcept {
  switch (level) {
    case LogLevel::kError: return LOG_ERR;
    case LogLevel::kWarning: return LOG_WARNING;
    case LogLevel::kInfo: return LOG_INFO;
  }
  return LOG_INFO;
}

}  // namespace

bool set_log_destination(const std::string& destination) noexcept {
  if (destination.empty() || destination == "syslog") {
    g_kind = Kind::kSyslog;
  } else if (destination == "stderr") {
    g_kind = Kind::kStderr;
  } else if (destination == "none") {
    g_kind = Kind::kNone;
  } else if (destination.front() == '/') {
    const char* current = g_path.load();
    if (current == nullptr || destination != current) {
      char* copy = strdup(destination.c_str());  // never freed: see g_path
      if (copy == nullptr) return false;
      g_path.store(copy);
    }
    g_kind = Kind::kFile;
  } else {
    return false;
  }
  return true;
}

void log_line(LogLevel level, const char* format, ...) noexcept {
  char message[2048];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  // One line each: a message must not forge lines of its own (paths come from the user).
  for (char* p = message; *p != '\0'; ++p) {
    if (*p == '\n' || *p == '\r') *p = ' ';
  }
  switch (g_kind.load()) {
    case Kind::kNone: return;
    case Kind::kSyslog:
      syslog(LOG_USER | syslog_priority(level), "klms-pkcs11[%s]: %s", level_name(level), message);
      return;
    case Kind::kStderr:
      std::fprintf(stderr, "klms-pkcs11: %s: %s\n", level_name(level), message);
      return;
    case Kind::kFile: {
      const char* path = g_path.load();
      if (path == nullptr) return;
      const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (fd < 0) return;
      char line[2300];
      const std::time_t now = std::time(nullptr);
      std::tm tm{};
      gmtime_r(&now, &tm);
      char stamp[32];
      std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
      const int n = std::snprintf(line, sizeof line, "%s pid %d %s: %s\n", stamp, static_cast<int>(getpid()),
                                  level_name(level), message);
      if (n > 0) {
        const ssize_t ignored = write(fd, line, static_cast<std::size_t>(n) < sizeof line ? n : sizeof line - 1);
        (void)ignored;
      }
      close(fd);
      return;
    }
  }
}

}  // namespace klms::pkcs11
