// A scratch file for the fuzz targets that open files (the tree caches): one file in a private
// temporary directory under $TMPDIR (or /tmp), written whole for each input and removed with its
// directory at exit.
#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "test/fuzz/fuzz_util.h"

namespace klms::fuzz {

class ScratchFile {
 public:
  // `prefix` names the directory (prefix.XXXXXX), `name` the file in it.
  ScratchFile(const char* prefix, const char* name) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && *tmp == '/' ? tmp : "/tmp") + "/" + prefix + ".XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) fail(__FILE__, __LINE__, "mkdtemp");
    dir_ = templ;
    path_ = dir_ + "/" + name;
    registry().push_back(this);
    static const bool registered = (std::atexit(remove_all), true);
    (void)registered;
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::string& path() const noexcept { return path_; }

  void write(const klms::Bytes& bytes) const {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) fail(__FILE__, __LINE__, "open");
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (w <= 0) fail(__FILE__, __LINE__, "write");
      done += static_cast<std::size_t>(w);
    }
    ::close(fd);
  }

  klms::Bytes read() const {
    std::ifstream file(path_, std::ios::binary);
    return klms::Bytes(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  }

 private:
  static std::vector<const ScratchFile*>& registry() {
    static auto* files = new std::vector<const ScratchFile*>;
    return *files;
  }
  static void remove_all() {
    for (const ScratchFile* f : registry()) {
      ::unlink(f->path_.c_str());
      ::rmdir(f->dir_.c_str());
    }
  }

  std::string dir_, path_;
};

}  // namespace klms::fuzz
