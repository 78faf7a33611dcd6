#include "xmss/params.h"

#include <strings.h>

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

bool same_name(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// The XMSS^MT shapes of RFC 8391 §5.4 and SP 800-208 §5, in code order within each hash block.
struct Shape {
  unsigned h, d;
};
constexpr Shape kMtShapes[] = {{20, 2}, {20, 4}, {40, 2}, {40, 4}, {40, 8}, {60, 3}, {60, 6}, {60, 12}};
constexpr unsigned kXmssHeights[] = {10, 16, 20};

struct Table {
  std::deque<std::string> names;  // stable storage for the string_views
  std::vector<Params> sets;
  std::vector<RefusedSet> refused;

  std::string_view keep(std::string name) {
    names.push_back(std::move(name));
    return names.back();
  }

  void add(Scheme scheme, std::uint32_t oid, std::string name, HashFamily family, unsigned n, unsigned h,
           unsigned d, unsigned log_w, bool kxmss) {
    Params p;
    p.scheme = scheme;
    p.oid = oid;
    p.name = keep(std::move(name));
    p.family = family;
    p.n = static_cast<std::uint8_t>(n);
    p.h = static_cast<std::uint8_t>(h);
    p.d = static_cast<std::uint8_t>(d);
    p.log_w = static_cast<std::uint8_t>(log_w);
    p.pad = n == 32 ? 32 : 4;  // SP 800-208 §5: the n = 24 sets use 4-byte padding
    p.kxmss = kxmss;
    derive_lengths(p);
    sets.push_back(p);
  }

  static std::string xmss_name(std::string_view token, unsigned h, unsigned bits) {
    return "XMSS-" + std::string(token) + "_" + std::to_string(h) + "_" + std::to_string(bits);
  }
  static std::string mt_name(std::string_view token, const Shape& s, unsigned bits) {
    return "XMSSMT-" + std::string(token) + "_" + std::to_string(s.h) + "/" + std::to_string(s.d) + "_" +
           std::to_string(bits);
  }

  Table() {
    // Registry blocks: (first XMSS code, first XMSS^MT code, hash token, n in bits, family or none).
    struct Block {
      std::uint32_t xmss_first, mt_first;
      std::string_view token;
      unsigned bits;
      bool approved;
      HashFamily family;
      std::string_view reason;
    };
    const Block blocks[] = {
        {0x01, 0x01, "SHA2", 256, true, HashFamily::kSha256, {}},              // RFC 8391
        {0x04, 0x09, "SHA2", 512, false, HashFamily::kSha256, "SHA-512 (n = 64)"},
        {0x07, 0x11, "SHAKE", 256, false, HashFamily::kShake256, "SHAKE128"},
        {0x0A, 0x19, "SHAKE", 512, false, HashFamily::kShake256, "SHAKE256 with n = 64"},
        {0x0D, 0x21, "SHA2", 192, true, HashFamily::kSha256, {}},              // SP 800-208 §5
        {0x10, 0x29, "SHAKE256", 256, true, HashFamily::kShake256, {}},
        {0x13, 0x31, "SHAKE256", 192, true, HashFamily::kShake256, {}},
    };
    for (const Block& b : blocks) {
      for (unsigned k = 0; k < 3; ++k) {
        const unsigned h = kXmssHeights[k];
        if (b.approved) {
          add(Scheme::kXmss, b.xmss_first + k, xmss_name(b.token, h, b.bits), b.family, b.bits / 8, h, 1, 4, false);
        } else {
          refused.push_back({Scheme::kXmss, b.xmss_first + k, keep(xmss_name(b.token, h, b.bits)), b.reason});
        }
      }
    }
    for (const Block& b : blocks) {
      for (unsigned k = 0; k < std::size(kMtShapes); ++k) {
        const Shape& s = kMtShapes[k];
        if (b.approved) {
          add(Scheme::kXmssMt, b.mt_first + k, mt_name(b.token, s, b.bits), b.family, b.bits / 8, s.h, s.d, 4,
              false);
        } else {
          refused.push_back({Scheme::kXmssMt, b.mt_first + k, keep(mt_name(b.token, s, b.bits)), b.reason});
        }
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
          add(Scheme::kXmss, 0xE0000000u | unsigned{f.k_code} << 16 | log_w << 8 | h, std::move(name), f.family, 32,
              h, 1, log_w, true);
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

const Params* find_params(Scheme scheme, std::uint32_t oid) noexcept {
  if (oid == 0) return nullptr;
  for (const Params& p : table().sets) {
    if (p.scheme == scheme && p.oid == oid) return &p;
  }
  return nullptr;
}

const Params* find_params(std::string_view name) noexcept {
  for (const Params& p : table().sets) {
    if (same_name(p.name, name)) return &p;
  }
  return nullptr;
}

std::span<const RefusedSet> refused_sets() noexcept { return table().refused; }

const RefusedSet* find_refused(Scheme scheme, std::uint32_t oid) noexcept {
  for (const RefusedSet& r : table().refused) {
    if (r.scheme == scheme && r.oid == oid) return &r;
  }
  return nullptr;
}

const RefusedSet* find_refused(std::string_view name) noexcept {
  for (const RefusedSet& r : table().refused) {
    if (same_name(r.name, name)) return &r;
  }
  return nullptr;
}

Result<Params> params_for(HashFamily family, unsigned n, unsigned h, unsigned log_w) noexcept {
  if (!known_family(family) || (n != 32 && n != 24) || (log_w != 2 && log_w != 4 && log_w != 8) || h < 2 ||
      h > kMaxTreeHeight) {
    return Error::kUnknownXmssType;
  }
  for (const Params& p : table().sets) {
    if (p.scheme == Scheme::kXmss && p.family == family && p.n == n && p.h == h && p.log_w == log_w) return p;
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
