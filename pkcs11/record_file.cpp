#include "pkcs11/record_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>

namespace klms::pkcs11 {
namespace {

constexpr char kHex[] = "0123456789abcdef";

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

bool valid_value(std::string_view value) {
  for (char c : value) {
    if (!((c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

int nibble(char c) { return c <= '9' ? c - '0' : c - 'a' + 10; }

// Writes all of `data`, retrying short writes and EINTR.
bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

void Records::set_bytes(const std::string& name, ByteView value) {
  std::string hex;
  hex.reserve(value.size() * 2);
  for (std::uint8_t b : value) {
    hex.push_back(kHex[b >> 4]);
    hex.push_back(kHex[b & 15]);
  }
  values_[name] = std::move(hex);
}

void Records::set_number(const std::string& name, std::uint64_t value) { values_[name] = std::to_string(value); }

std::optional<Bytes> Records::bytes(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.size() % 2 != 0) return std::nullopt;
  Bytes out(it->second.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<std::uint8_t>(nibble(it->second[2 * i]) << 4 | nibble(it->second[2 * i + 1]));
  }
  return out;
}

std::optional<std::uint64_t> Records::number(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty() || it->second.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  const char* end = it->second.data() + it->second.size();
  auto [ptr, ec] = std::from_chars(it->second.data(), end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  if (it->second.size() > 1 && it->second.front() == '0') return std::nullopt;  // one spelling per number
  return v;
}

std::string Records::serialize(std::string_view kind) const {
  std::string out = "klms-pkcs11-" + std::string(kind) + " 1\n";
  for (const auto& [name, value] : values_) {
    out += name;
    out += ' ';
    out += value;
    out += '\n';
  }
  return out;
}

std::optional<Records> Records::parse(std::string_view text, std::string_view kind) {
  if (text.size() > kMaxRecordFileBytes) return std::nullopt;
  const std::string header = "klms-pkcs11-" + std::string(kind) + " 1\n";
  if (text.substr(0, header.size()) != header) return std::nullopt;
  text.remove_prefix(header.size());
  Records r;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    if (eol == std::string_view::npos) return std::nullopt;  // a last line without its newline: cut short
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol + 1);
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const std::string_view name = line.substr(0, space);
    const std::string_view value = line.substr(space + 1);
    if (!valid_name(name) || !valid_value(value)) return std::nullopt;
    if (!r.values_.emplace(std::string(name), std::string(value)).second) return std::nullopt;
  }
  return r;
}

std::optional<std::string> read_small_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[8192];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      close(fd);
      errno = saved;
      return std::nullopt;
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > kMaxRecordFileBytes) {
      close(fd);
      errno = EFBIG;
      return std::nullopt;
    }
  }
  close(fd);
  return out;
}

bool write_file_atomically(const std::string& path, std::string_view content) {
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  bool ok = fchmod(fd, 0600) == 0 && write_all(fd, content) && fsync(fd) == 0;
  int saved = errno;
  if (close(fd) != 0 && ok) {
    ok = false;
    saved = errno;
  }
  if (ok && rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    saved = errno;
  }
  if (!ok) {
    unlink(tmp.c_str());
    errno = saved;
    return false;
  }
  const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return false;
  ok = fsync(dfd) == 0;
  saved = errno;
  close(dfd);
  errno = saved;
  return ok;
}

}  // namespace klms::pkcs11
