// A small JSON reader for the ACVP test-vector files: objects, arrays, strings; numbers, true,
// false and null are kept as their text. Throws std::runtime_error on malformed input, so a broken
// vector file fails the test that reads it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace klms::test {

class Json {
 public:
  enum class Kind { kObject, kArray, kString, kLiteral };

  static Json parse(std::string_view text);

  Kind kind() const noexcept { return kind_; }
  const std::string& text() const;  // string content or literal text
  const std::vector<Json>& items() const;
  bool has(const std::string& key) const;
  const Json& operator[](const std::string& key) const;
  const Json& operator[](std::size_t index) const { return items().at(index); }

 private:
  Kind kind_ = Kind::kLiteral;
  std::string text_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
  friend class JsonParser;
};

}  // namespace klms::test
