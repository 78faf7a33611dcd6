// The token's own small files (docs/pkcs11.md "Storage"): text, one record a line,
//   klms-pkcs11-<kind> 1
//   <name> <value>
// with names of [a-z0-9_] and values of lowercase hex (octets) or decimal (numbers). The parser
// is strict (the header, each name once, nothing else, a bounded size) because a token directory
// is outside the module's control; a file is written whole to a temporary name, fsync'd, renamed
// over the old one and the directory fsync'd, so a crash leaves the old file or the new one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/bytes.h"
#include "base/secret.h"

namespace klms::pkcs11 {

inline constexpr std::size_t kMaxRecordFileBytes = 1 << 20;

class Records {
 public:
  void set_bytes(const std::string& name, ByteView value);
  void set_number(const std::string& name, std::uint64_t value);
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  // nullopt when absent or not of the form asked for.
  std::optional<Bytes> bytes(const std::string& name) const;
  std::optional<std::uint64_t> number(const std::string& name) const;
  const std::map<std::string, std::string>& all() const noexcept { return values_; }

  std::string serialize(std::string_view kind) const;
  // nullopt for anything but a well-formed file of `kind`.
  static std::optional<Records> parse(std::string_view text, std::string_view kind);

 private:
  std::map<std::string, std::string> values_;
};

// Reads a whole file (at most kMaxRecordFileBytes); nullopt with errno set when it cannot.
std::optional<std::string> read_small_file(const std::string& path);
// The atomic replacement described above, mode 0600; false with errno set.
bool write_file_atomically(const std::string& path, std::string_view content);

}  // namespace klms::pkcs11
