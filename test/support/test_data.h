// Helpers shared by the unit tests: reading the known-answer files copied into test/data/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace klms::test {

using Bytes = std::vector<std::uint8_t>;

// Absolute path of a file under test/data/ (the directory is fixed at build time).
std::string data_path(std::string_view relative);
// Whole file as text; fails the calling test (ADD_FAILURE) and returns "" when unreadable.
std::string read_text(std::string_view relative);
std::vector<std::string> read_lines(std::string_view relative);

// Hex (upper or lower case; spaces and tabs ignored) to bytes. Throws std::invalid_argument on a
// stray character or an odd number of digits, so a malformed vector file fails loudly.
Bytes from_hex(std::string_view hex);
std::string to_hex(const std::uint8_t* data, std::size_t len);
inline std::string to_hex(const Bytes& b) { return to_hex(b.data(), b.size()); }

// "  key = value  " -> {"key","value"}; false when the line has no '='.
bool split_key_value(std::string_view line, std::string& key, std::string& value, char separator = '=');
std::string_view trim(std::string_view s);

}  // namespace klms::test
