#include "test/unit/hashes/lsh/lsh_test_support.h"

#include <charconv>
#include <map>
#include <sstream>

namespace klms::test::lsh {
namespace {

std::size_t parse_size(std::string_view s) {
  s = trim(s);
  std::size_t value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) throw std::invalid_argument("bad number: " + std::string(s));
  return value;
}

// Crypto++ TestVectors: "Name:", then "Message:" (hex, or "rN hex" = hex repeated N times) and "Digest:".
void load_cryptopp(const std::string& file, std::vector<KnownAnswer>& out) {
  static const std::map<std::string, std::string> kNames = {{"LSH-224", "LSH-256-224"},
                                                            {"LSH-256", "LSH-256-256"},
                                                            {"LSH-384", "LSH-512-384"},
                                                            {"LSH-512", "LSH-512-512"},
                                                            {"LSH-512-256", "LSH-512-256"}};
  std::string variant, key, value;
  Bytes message;
  bool have_message = false;
  int entry = 0;
  for (const std::string& line : read_lines("lsh/" + file)) {
    if (!split_key_value(line, key, value, ':')) continue;
    if (key == "Name") {
      variant = kNames.at(value);
    } else if (key == "Message") {
      message.clear();
      if (!value.empty() && value[0] == 'r') {
        const auto space = value.find(' ');
        const std::size_t repeat = parse_size(std::string_view(value).substr(1, space - 1));
        const Bytes unit = from_hex(value.substr(space + 1));
        for (std::size_t i = 0; i < repeat; ++i) message.insert(message.end(), unit.begin(), unit.end());
      } else {
        message = from_hex(value);
      }
      have_message = true;
    } else if (key == "Digest" && have_message) {
      out.push_back({variant, message, from_hex(value), file + " #" + std::to_string(entry++)});
      have_message = false;
    }
  }
}

// KCMVP .rsp: "Len = bits", "Msg = hex", "MD = hex"; only whole bytes; Len = 0 is the empty message.
void load_kcmvp(const std::string& file, const std::string& variant, std::vector<KnownAnswer>& out) {
  std::string key, value;
  std::size_t bits = 0;
  Bytes message;
  for (const std::string& line : read_lines("lsh/" + file)) {
    if (!split_key_value(line, key, value)) continue;
    if (key == "Len") {
      bits = parse_size(value);
    } else if (key == "Msg") {
      message = from_hex(value);
    } else if (key == "MD" && bits % 8 == 0) {
      message.resize(bits / 8);
      out.push_back({variant, message, from_hex(value), file + " Len=" + std::to_string(bits)});
    }
  }
}

// KISA example_simd.c: "[LSH-256-256]" sections of "Len = bits  MD = hex"; message byte i = i mod 256.
void load_kisa(std::vector<KnownAnswer>& out) {
  const std::string file = "kisa_lsh_example_simd_vectors.txt";
  std::string variant;
  for (const std::string& raw : read_lines("lsh/" + file)) {
    const std::string_view line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      variant = std::string(line.substr(1, line.size() - 2));
      continue;
    }
    const auto len_at = line.find("Len =");
    const auto bits_at = line.find("bits");
    const auto md_at = line.find("MD =");
    if (len_at == std::string_view::npos || bits_at == std::string_view::npos || md_at == std::string_view::npos) {
      throw std::invalid_argument("unexpected line in " + file + ": " + raw);
    }
    const std::size_t bits = parse_size(line.substr(len_at + 5, bits_at - len_at - 5));
    if (bits % 8 != 0) continue;
    Bytes message(bits / 8);
    for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<std::uint8_t>(i % 256);
    out.push_back({variant, message, from_hex(line.substr(md_at + 4)), file + " Len=" + std::to_string(bits)});
  }
}

// "LEN DIGEST" lines for LSH-512-224; message byte i = (7i + 3) mod 256.
void load_lsh512_224(std::vector<KnownAnswer>& out) {
  const std::string file = "lsh512_224_vectors.txt";
  for (const std::string& raw : read_lines("lsh/" + file)) {
    const std::string_view line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.find(' ');
    const std::size_t len = parse_size(line.substr(0, space));
    Bytes message(len);
    for (std::size_t i = 0; i < len; ++i) message[i] = static_cast<std::uint8_t>((i * 7 + 3) % 256);
    out.push_back({"LSH-512-224", message, from_hex(line.substr(space + 1)), file + " len=" + std::to_string(len)});
  }
}

}  // namespace

const std::vector<KnownAnswer>& known_answers() {
  static const std::vector<KnownAnswer> all = [] {
    std::vector<KnownAnswer> v;
    load_cryptopp("lsh256.txt", v);
    load_cryptopp("lsh512.txt", v);
    load_cryptopp("lsh512_256.txt", v);
    load_kcmvp("kcmvp_LSH256-256_ShortMsg_LongMsg-partial.rsp", "LSH-256-256", v);
    load_kcmvp("kcmvp_LSH256-224_ShortMsg_LongMsg-partial.rsp", "LSH-256-224", v);
    load_kisa(v);
    load_lsh512_224(v);
    return v;
  }();
  return all;
}

bool is_lsh256(const std::string& variant) { return variant.rfind("LSH-256-", 0) == 0; }

std::size_t output_bytes(const std::string& variant) {
  return parse_size(std::string_view(variant).substr(variant.rfind('-') + 1)) / 8;
}

Bytes digest256(const hashes::Lsh256Implementation& impl, std::size_t out_bytes, const Bytes& message) {
  Bytes out(out_bytes);
  impl.digest(hashes::lsh256_iv(out_bytes), nullptr, 0, message.data(), message.size(), out.data(), out_bytes);
  return out;
}

Bytes digest512(const hashes::Lsh512Implementation& impl, std::size_t out_bytes, const Bytes& message) {
  Bytes out(out_bytes);
  impl.digest(hashes::lsh512_iv(out_bytes), message.data(), message.size(), out.data(), out_bytes);
  return out;
}

template <class Context, class Impl, class Init>
static Bytes stream_any(const Impl& impl, std::size_t out_bytes, const Bytes& message,
                        const std::vector<std::size_t>& splits, Init init) {
  Context ctx;
  init(ctx, out_bytes);
  std::size_t at = 0;
  for (std::size_t split : splits) {
    impl.update(ctx, message.data() + at, split - at);
    at = split;
  }
  impl.update(ctx, message.data() + at, message.size() - at);
  Bytes out(out_bytes);
  impl.final(ctx, out.data());
  return out;
}

Bytes stream256(const hashes::Lsh256Implementation& impl, std::size_t out_bytes, const Bytes& message,
                const std::vector<std::size_t>& splits) {
  return stream_any<hashes::Lsh256Context>(impl, out_bytes, message, splits, hashes::lsh256_init);
}

Bytes stream512(const hashes::Lsh512Implementation& impl, std::size_t out_bytes, const Bytes& message,
                const std::vector<std::size_t>& splits) {
  return stream_any<hashes::Lsh512Context>(impl, out_bytes, message, splits, hashes::lsh512_init);
}

Bytes pseudo_random_bytes(std::size_t len, std::uint64_t seed) {
  Bytes out(len);
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (std::size_t i = 0; i < len; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    out[i] = static_cast<std::uint8_t>(x >> 24);
  }
  return out;
}

std::string isa_param_name(const ::testing::TestParamInfo<hashes::LshIsa>& info) {
  return std::string(hashes::lsh_isa_name(info.param));
}

}  // namespace klms::test::lsh
