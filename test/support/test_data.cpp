#include "test/support/test_data.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#ifndef KLMS_TEST_DATA_DIR
#error "KLMS_TEST_DATA_DIR must be defined by the build"
#endif

namespace klms::test {

std::string data_path(std::string_view relative) {
  return std::string(KLMS_TEST_DATA_DIR) + "/" + std::string(relative);
}

std::string read_text(std::string_view relative) {
  std::ifstream in(data_path(relative), std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read test data " << data_path(relative);
    return {};
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> read_lines(std::string_view relative) {
  std::vector<std::string> lines;
  std::istringstream in(read_text(relative));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Bytes from_hex(std::string_view hex) {
  Bytes out;
  int high = -1;
  for (char c : hex) {
    if (c == ' ' || c == '\t') continue;
    const int d = hex_digit(c);
    if (d < 0) throw std::invalid_argument("bad hex character in test data: " + std::string(hex));
    if (high < 0) {
      high = d;
    } else {
      out.push_back(static_cast<std::uint8_t>(high << 4 | d));
      high = -1;
    }
  }
  if (high >= 0) throw std::invalid_argument("odd number of hex digits in test data");
  return out;
}

std::string to_hex(const std::uint8_t* data, std::size_t len) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * len);
  for (std::size_t i = 0; i < len; ++i) {
    s.push_back(digits[data[i] >> 4]);
    s.push_back(digits[data[i] & 15]);
  }
  return s;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool split_key_value(std::string_view line, std::string& key, std::string& value, char separator) {
  const auto pos = line.find(separator);
  if (pos == std::string_view::npos) return false;
  key = std::string(trim(line.substr(0, pos)));
  value = std::string(trim(line.substr(pos + 1)));
  return true;
}

}  // namespace klms::test
