#include "test/support/json.h"

#include <stdexcept>

namespace klms::test {

class JsonParser {
 public:
  explicit JsonParser(std::string_view s) : s_(s) {}

  Json value() {
    skip_space();
    if (pos_ >= s_.size()) fail("unexpected end");
    const char c = s_[pos_];
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') {
      Json j;
      j.kind_ = Json::Kind::kString;
      j.text_ = string();
      return j;
    }
    Json j;
    j.kind_ = Json::Kind::kLiteral;
    const std::size_t start = pos_;
    while (pos_ < s_.size() && std::string_view(",]} \t\r\n").find(s_[pos_]) == std::string_view::npos) ++pos_;
    if (pos_ == start) fail("empty literal");
    j.text_ = std::string(s_.substr(start, pos_ - start));
    return j;
  }

  void finish() {
    skip_space();
    if (pos_ != s_.size()) fail("trailing characters");
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(std::string("JSON: ") + what + " at offset " + std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  void expect(char c) {
    skip_space();
    if (pos_ >= s_.size() || s_[pos_] != c) fail("unexpected character");
    ++pos_;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c == '\\') {
        if (pos_ >= s_.size()) fail("bad escape");
        const char e = s_[pos_++];
        switch (e) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case 'r': c = '\r'; break;
          case '"': case '\\': case '/': c = e; break;
          default: fail("unsupported escape");
        }
      }
      out.push_back(c);
    }
    expect('"');
    return out;
  }
  Json object() {
    expect('{');
    Json j;
    j.kind_ = Json::Kind::kObject;
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return j;
    }
    for (;;) {
      skip_space();
      std::string key = string();
      expect(':');
      j.members_.emplace_back(std::move(key), value());
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      expect('}');
      return j;
    }
  }
  Json array() {
    expect('[');
    Json j;
    j.kind_ = Json::Kind::kArray;
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return j;
    }
    for (;;) {
      j.items_.push_back(value());
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      expect(']');
      return j;
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

Json Json::parse(std::string_view text) {
  JsonParser p(text);
  Json j = p.value();
  p.finish();
  return j;
}

const std::string& Json::text() const {
  if (kind_ != Kind::kString && kind_ != Kind::kLiteral) throw std::runtime_error("JSON: not a scalar");
  return text_;
}

const std::vector<Json>& Json::items() const {
  if (kind_ != Kind::kArray) throw std::runtime_error("JSON: not an array");
  return items_;
}

bool Json::has(const std::string& key) const {
  for (const auto& [k, v] : members_) {
    if (k == key) return true;
  }
  return false;
}

const Json& Json::operator[](const std::string& key) const {
  for (const auto& [k, v] : members_) {
    if (k == key) return v;
  }
  throw std::runtime_error("JSON: no member " + key);
}

}  // namespace klms::test
