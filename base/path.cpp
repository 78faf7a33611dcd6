#include "base/path.h"

#include <unistd.h>

#include <cstdlib>
#include <memory>

namespace klms {

Result<std::string> absolute_path(std::string_view path) {
  if (path.empty()) return Error::kStatePathInvalid;
  if (path.front() == '/') return std::string(path);
  // getcwd(nullptr, 0) allocates as much as the name needs (no PATH_MAX buffer to outgrow).
  const std::unique_ptr<char, decltype(&std::free)> cwd(::getcwd(nullptr, 0), &std::free);
  if (cwd == nullptr || cwd.get()[0] != '/') return Error::kStatePathInvalid;  // Linux: "(unreachable)/…"
  std::string out(cwd.get());
  if (out.back() != '/') out += '/';  // the root is "/": no "//name", which POSIX leaves to the system
  out += path;
  return out;
}

}  // namespace klms
