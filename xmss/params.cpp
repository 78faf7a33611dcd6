#include "xmss/params.h"

#include <strings.h>

#include <array>
#include <deque>
#include <vector>

#include "hashes/family_table.h"

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

bool known_family(HashFamily f) noexcept {
  for (const hashes::FamilyRow& row : hashes::family_rows()) {
    if (row.family == f) return true;
  }
  return false;
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
    // RFC 8391 §5.3 (SHA2_*_256) and SP 800-208 §5 (the others); only hashes this project has.
    struct Standard {
      std::uint32_t first_oid;
      HashFamily family;
      unsigned n;
    };
    const Standard standard[] = {
        {0x01, HashFamily::kSha256, 32},
        {0x0D, HashFamily::kSha256, 24},
        {0x10, HashFamily::kShake256, 32},
        {0x13, HashFamily::kShake256, 24},
    };
    const unsigned heights[] = {10, 16, 20};
    for (const Standard& s : standard) {
      const std::string token(hashes::family_row(s.family).xmss_token);
      for (unsigned k = 0; k < 3; ++k) {
        add(s.first_oid + k, "XMSS-" + token + "_" + std::to_string(heights[k]) + "_" + std::to_string(8 * s.n),
            s.family, s.n, heights[k], 4, false);
      }
    }
    // K-XMSS: 0xE0000000 | hash code << 16 | log2(w) << 8 | h, n = 32 (docs/xmss.md), for every
    // family with a K- hash code (hashes/family_table.h: the codes K-LMS uses).
    for (const hashes::FamilyRow& f : hashes::family_rows()) {
      if (f.k_code == 0) continue;
      for (unsigned h : {10u, 15u, 16u, 20u}) {
        for (unsigned log_w : {4u, 2u, 8u}) {
          std::string name = "K-XMSS-" + std::string(f.xmss_token) + "_" + std::to_string(h) + "_256";
          if (log_w != 4) name += "_w" + std::to_string(1u << log_w);  // XMSS w, not LMS W bits
          add(0xE0000000u | unsigned{f.k_code} << 16 | log_w << 8 | h, std::move(name), f.family, 32, h, log_w, true);
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

Result<Params> params_for(HashFamily family, unsigned n, unsigned h, unsigned log_w) noexcept {
  if (!known_family(family) || (n != 32 && n != 24) || (log_w != 2 && log_w != 4 && log_w != 8) || h < 2 ||
      h > kMaxHeight) {
    return Error::kUnknownXmssType;
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
  p.kxmss = hashes::family_row(family).k_code != 0;
  derive_lengths(p);
  return p;
}

}  // namespace klms::xmss
