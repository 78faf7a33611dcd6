#include "xmss/params.h"

#include <strings.h>

#include <array>
#include <deque>
#include <vector>

namespace klms::xmss {
namespace {

// RFC 8391 §3.1.1: len1 = ceil(8n / lg w), len2 = floor(lg(len1 (w - 1)) / lg w) + 1.
void derive_lengths(Params& p) noexcept {
  const unsigned lg = p.log_w;
  p.len1 = static_cast<std::uint16_t>((8u * p.n + lg - 1) / lg);
  const unsigned max_checksum = p.len1 * (p.w() - 1u);
  unsigned bits = 0;  // floor(log2(max_checksum))
  while ((max_checksum >> (bits + 1)) != 0) ++bits;
  p.len2 = static_cast<std::uint16_t>(bits / lg + 1);
  p.len = static_cast<std::uint16_t>(p.len1 + p.len2);
}

bool backend_family(HashFamily f) noexcept {
  switch (f) {
    case HashFamily::kSha256:
    case HashFamily::kShake256:
    case HashFamily::kLsh256:
    case HashFamily::kTdmCham:
    case HashFamily::kTdmLea:
    case HashFamily::kTdmAria:
      return true;
  }
  return false;
}

// K-XMSS hash codes, as K-LMS numbers them (docs/formats.md "Parameter sets").
unsigned kxmss_hash_code(HashFamily f) noexcept {
  switch (f) {
    case HashFamily::kLsh256: return 1;
    case HashFamily::kTdmCham: return 2;
    case HashFamily::kTdmLea: return 3;
    case HashFamily::kTdmAria: return 4;
    default: return 0;
  }
}
const char* kxmss_hash_token(HashFamily f) noexcept {
  switch (f) {
    case HashFamily::kLsh256: return "LSH256";
    case HashFamily::kTdmCham: return "TDMCHAM";
    case HashFamily::kTdmLea: return "TDMLEA";
    case HashFamily::kTdmAria: return "TDMARIA";
    default: return "?";
  }
}

struct Table {
  std::deque<std::string> names;  // stable storage for the string_views
  std::vector<Params> sets;

  void add(std::uint32_t oid, std::string name, HashFamily family, unsigned n, unsigned h, unsigned log_w,
           bool kxmss) {
    names.push_back(std::move(name));
    Params p;
    p.oid = oid;
    p.name = names.back();
    p.family = family;
    p.n = static_cast<std::uint8_t>(n);
    p.h = static_cast<std::uint8_t>(h);
    p.log_w = static_cast<std::uint8_t>(log_w);
    p.pad = n == 32 ? 32 : 4;  // SP 800-208: the n = 24 sets use 4-byte padding
    p.kxmss = kxmss;
    derive_lengths(p);
    sets.push_back(p);
  }

  Table() {
    struct Standard {
      std::uint32_t first_oid;
      const char* token;
      HashFamily family;
      unsigned n;
    };
    // RFC 8391 §5.3 (SHA2_*_256) and SP 800-208 §5 (the others); only hashes this project has.
    const Standard standard[] = {
        {0x01, "SHA2", HashFamily::kSha256, 32},
        {0x0D, "SHA2", HashFamily::kSha256, 24},
        {0x10, "SHAKE256", HashFamily::kShake256, 32},
        {0x13, "SHAKE256", HashFamily::kShake256, 24},
    };
    const unsigned heights[] = {10, 16, 20};
    for (const Standard& s : standard) {
      for (unsigned k = 0; k < 3; ++k) {
        add(s.first_oid + k,
            "XMSS-" + std::string(s.token) + "_" + std::to_string(heights[k]) + "_" + std::to_string(8 * s.n),
            s.family, s.n, heights[k], 4, false);
      }
    }
    // K-XMSS: 0xE0000000 | hash << 16 | log2(w) << 8 | h, n = 32 (docs/xmss.md).
    for (HashFamily f : {HashFamily::kLsh256, HashFamily::kTdmCham, HashFamily::kTdmLea, HashFamily::kTdmAria}) {
      for (unsigned h : {10u, 15u, 16u, 20u}) {
        for (unsigned log_w : {4u, 2u, 8u}) {
          std::string name = std::string("K-XMSS-") + kxmss_hash_token(f) + "_" + std::to_string(h) + "_256";
          if (log_w != 4) name += "_w" + std::to_string(1u << log_w);  // XMSS w, not LMS W bits
          add(0xE0000000u | kxmss_hash_code(f) << 16 | log_w << 8 | h, std::move(name), f, 32, h, log_w, true);
        }
      }
    }
  }
};

const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

std::span<const Params> all_params() noexcept { return table().sets; }

const Params* find_params(std::uint32_t oid) noexcept {
  if (oid == 0) return nullptr;
  for (const Params& p : table().sets) {
    if (p.oid == oid) return &p;
  }
  return nullptr;
}

const Params* find_params(std::string_view name) noexcept {
  for (const Params& p : table().sets) {
    if (p.name.size() == name.size() && strncasecmp(p.name.data(), name.data(), name.size()) == 0) return &p;
  }
  return nullptr;
}

std::optional<Params> params_for(HashFamily family, unsigned n, unsigned h, unsigned log_w) noexcept {
  if (!backend_family(family) || (n != 32 && n != 24) || (log_w != 2 && log_w != 4 && log_w != 8) || h < 2 ||
      h > kMaxHeight) {
    return std::nullopt;
  }
  for (const Params& p : table().sets) {
    if (p.family == family && p.n == n && p.h == h && p.log_w == log_w) return p;
  }
  Params p;
  p.name = "XMSS-study";
  p.family = family;
  p.n = static_cast<std::uint8_t>(n);
  p.h = static_cast<std::uint8_t>(h);
  p.log_w = static_cast<std::uint8_t>(log_w);
  p.pad = n == 32 ? 32 : 4;
  p.kxmss = family != HashFamily::kSha256 && family != HashFamily::kShake256;
  derive_lengths(p);
  return p;
}

}  // namespace klms::xmss
