#include "lms/params.h"

#include <array>
#include <cctype>

#include "hashes/family_table.h"

namespace klms::lms {
namespace {

constexpr std::array<unsigned, 4> kWinternitz = {1, 2, 4, 8};
constexpr std::array<unsigned, 5> kHeights = {5, 10, 15, 20, 25};

// RFC 8554 Appendix B.
void compute_p_ls(unsigned n, unsigned w, std::uint16_t& p, std::uint8_t& ls) {
  const unsigned u = (8 * n + w - 1) / w;
  const unsigned max_sum = ((1u << w) - 1) * u;
  unsigned log2 = 0;
  while ((max_sum >> (log2 + 1)) != 0) ++log2;
  const unsigned v = (log2 + 1 + w - 1) / w;
  ls = static_cast<std::uint8_t>(16 - v * w);
  p = static_cast<std::uint16_t>(u + v);
}

struct Tables {
  std::vector<std::string> names;  // backing store for the string_views; reserved up front
  std::vector<OtsParams> ots;
  std::vector<LmsParams> lms;
};

using hashes::FamilyRow;
using hashes::family_rows;

std::uint32_t standard_ots_code(HashFamily f, unsigned n, unsigned wi) {
  const std::uint32_t base = f == HashFamily::kSha256 ? (n == 32 ? 0x01 : 0x05) : (n == 32 ? 0x09 : 0x0D);
  return base + wi;
}
std::uint32_t standard_lms_code(HashFamily f, unsigned m, unsigned hi) {
  const std::uint32_t base = f == HashFamily::kSha256 ? (m == 32 ? 0x05 : 0x0A) : (m == 32 ? 0x0F : 0x14);
  return base + hi;
}

const Tables& tables() {
  // Never destroyed: lookups may run during process exit.
  static const Tables* t = [] {
    auto* built = new Tables;
    built->names.reserve(family_rows().size() * 2 * (kWinternitz.size() + kHeights.size()));
    // K-LMS codes: 0xE0000000 | hash code << 8 | n code << 4 | W or h index (docs/formats.md).
    for (const FamilyRow& f : family_rows()) {
      for (unsigned n : {32u, 24u}) {
        const unsigned ncode = n == 32 ? 0 : 1;
        for (unsigned wi = 0; wi < kWinternitz.size(); ++wi) {
          const unsigned w = kWinternitz[wi];
          OtsParams o{};
          o.code = f.k_code == 0 ? standard_ots_code(f.family, n, wi)
                                    : (0xE0000000u | unsigned{f.k_code} << 8 | ncode << 4 | wi);
          o.hash = f.family;
          o.n = static_cast<std::uint8_t>(n);
          o.w = static_cast<std::uint8_t>(w);
          compute_p_ls(n, w, o.p, o.ls);
          built->names.push_back("LMOTS_" + std::string(f.lms_token) + "_N" + std::to_string(n) + "_W" +
                                 std::to_string(w));
          o.name = built->names.back();
          built->ots.push_back(o);
        }
        for (unsigned hi = 0; hi < kHeights.size(); ++hi) {
          LmsParams l{};
          l.code = f.k_code == 0 ? standard_lms_code(f.family, n, hi)
                                    : (0xE0000000u | unsigned{f.k_code} << 8 | ncode << 4 | hi);
          l.hash = f.family;
          l.m = static_cast<std::uint8_t>(n);
          l.h = static_cast<std::uint8_t>(kHeights[hi]);
          built->names.push_back("LMS_" + std::string(f.lms_token) + "_M" + std::to_string(n) + "_H" +
                                 std::to_string(kHeights[hi]));
          l.name = built->names.back();
          built->lms.push_back(l);
        }
      }
    }
    return built;
  }();
  return *t;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

}  // namespace

const OtsParams* find_ots(std::uint32_t code) noexcept {
  for (const OtsParams& o : tables().ots) {
    if (o.code == code) return &o;
  }
  return nullptr;
}
const LmsParams* find_lms(std::uint32_t code) noexcept {
  for (const LmsParams& l : tables().lms) {
    if (l.code == code) return &l;
  }
  return nullptr;
}
const OtsParams* find_ots(std::string_view name) noexcept {
  for (const OtsParams& o : tables().ots) {
    if (iequals(o.name, name)) return &o;
  }
  return nullptr;
}
const LmsParams* find_lms(std::string_view name) noexcept {
  for (const LmsParams& l : tables().lms) {
    if (iequals(l.name, name)) return &l;
  }
  return nullptr;
}
std::span<const OtsParams> all_ots() noexcept { return tables().ots; }
std::span<const LmsParams> all_lms() noexcept { return tables().lms; }

std::optional<HashToken> parse_hash_token(std::string_view token) noexcept {
  unsigned n = 32;
  if (token.size() > 4 && token.substr(token.size() - 4) == "/192") {
    n = 24;
    token.remove_suffix(4);
  }
  for (const FamilyRow& f : family_rows()) {
    if (iequals(token, f.lms_token)) return HashToken{f.family, static_cast<std::uint8_t>(n)};
  }
  return std::nullopt;
}

std::string hash_token_name(HashFamily hash, unsigned n) {
  for (const FamilyRow& f : family_rows()) {
    if (f.family == hash) return std::string(f.lms_token) + (n == 24 ? "/192" : "");
  }
  return "?";
}

const LmsParams* lms_for(HashFamily hash, unsigned m, unsigned h) noexcept {
  for (const LmsParams& l : tables().lms) {
    if (l.hash == hash && l.m == m && l.h == h) return &l;
  }
  return nullptr;
}
const OtsParams* ots_for(HashFamily hash, unsigned n, unsigned w) noexcept {
  for (const OtsParams& o : tables().ots) {
    if (o.hash == hash && o.n == n && o.w == w) return &o;
  }
  return nullptr;
}

bool compatible(const LmsParams& lms, const OtsParams& ots) noexcept {
  return lms.hash == ots.hash && lms.m == ots.n;
}

}  // namespace klms::lms
