// A private (0700) temporary directory for key, state and cache files, removed with its contents
// when it goes away. The state store refuses directories others can write to, so it must be private.
#pragma once

#include <string>

namespace klms::bench {

class PrivateTempDir {
 public:
  // Under $TMPDIR (or /tmp). `ok()` is false when it could not be made.
  explicit PrivateTempDir(const std::string& tag = "klms-bench");
  ~PrivateTempDir();
  PrivateTempDir(const PrivateTempDir&) = delete;
  PrivateTempDir& operator=(const PrivateTempDir&) = delete;

  bool ok() const noexcept { return !path_.empty(); }
  const std::string& path() const noexcept { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Removes a directory tree (best effort; for temporary files only).
void remove_tree(const std::string& path) noexcept;

}  // namespace klms::bench
