// XMSS and XMSS^MT parameter sets: every set SP 800-208 §5 approves (SHA-256 and SHAKE256, n = 32
// and n = 24, XMSS heights 10/16/20, XMSS^MT 20/2 .. 60/12), and K-XMSS (RFC 8391 with only the hash
// replaced by LSH-256 or a Tandem-DM hash, private-use type codes; docs/xmss.md). The other sets of
// RFC 8391 §5.3/§5.4 (SHA-512 and SHAKE128 ones) are known by name and code, and refused.
//
// Type codes are per scheme: XMSS and XMSS^MT each have their own registry (RFC 8391 §5.3, §5.4, the
// IANA "XMSS: Extended Hash-Based Signatures" registries), so 0x00000001 is XMSS-SHA2_10_256 for
// XMSS and XMSSMT-SHA2_20/2_256 for XMSS^MT: a public key's bytes do not say which, its algorithm does.
//
// Every hash XMSS computes is H(toByte(x, pad) || KEY || M). With pad = 32 (every n = 32 set) the
// first 16 bytes are zero for every x, so they are the backend's fixed 16-byte prefix and the
// hashes run through hash_one / hash_many exactly like LMS hashes with I. The n = 24 sets of SP
// 800-208 have pad = 4 and run message by message through the backend's digest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "base/error.h"
#include "hashes/backend.h"

namespace klms::xmss {

using hashes::HashFamily;

inline constexpr std::size_t kMaxN = 32;
inline constexpr unsigned kMaxTreeHeight = 20;  // one XMSS tree (or one XMSS^MT layer's tree)
inline constexpr unsigned kMaxLayers = 12;
inline constexpr unsigned kMaxHeight = 60;      // the whole hypertree
inline constexpr std::size_t kMaxLen = 133;     // WOTS+ chains at w = 4, n = 32

enum class Scheme : std::uint8_t { kXmss, kXmssMt };

struct Params {
  Scheme scheme = Scheme::kXmss;
  std::uint32_t oid = 0;      // type code in the scheme's registry; 0 for a study-only combination
  std::string_view name;      // "XMSS-SHA2_10_256", "XMSSMT-SHA2_40/4_256", "K-XMSS-LSH256_10_256", ...
  HashFamily family = HashFamily::kSha256;
  std::uint8_t n = 32;        // hash output and node bytes
  std::uint8_t log_w = 4;     // w = 2^log_w: 4, 16 or 256
  std::uint8_t h = 10;        // total height (the hypertree's for XMSS^MT)
  std::uint8_t d = 1;         // layers (1 for XMSS)
  std::uint8_t pad = 32;      // bytes of toByte(x, pad) in front of every hash input
  std::uint16_t len1 = 0, len2 = 0, len = 0;  // WOTS+ chains (RFC 8391 §3.1.1)
  bool kxmss = false;         // a private-use K-XMSS set

  unsigned w() const noexcept { return 1u << log_w; }
  // Height of each layer's trees: h for XMSS, h / d for XMSS^MT.
  unsigned tree_height() const noexcept { return h / d; }
  std::uint64_t leaves() const noexcept { return std::uint64_t{1} << h; }
  std::uint64_t tree_leaves() const noexcept { return std::uint64_t{1} << tree_height(); }
  // The index field of a signature: 4 bytes for XMSS (RFC 8391 §4.1.8), ceil(h / 8) for XMSS^MT (§4.2.3).
  std::size_t index_bytes() const noexcept { return scheme == Scheme::kXmss ? 4 : (h + 7u) / 8u; }
  std::size_t public_key_bytes() const noexcept { return 4 + 2 * std::size_t{n}; }
  // One layer's part of a signature: WOTS+ signature || authentication path.
  std::size_t layer_signature_bytes() const noexcept { return (std::size_t{len} + tree_height()) * n; }
  // idx || r || one layer part per layer (RFC 8391 §4.1.8, §4.2.3)
  std::size_t signature_bytes() const noexcept { return index_bytes() + n + d * layer_signature_bytes(); }
};

// The sets this library signs and verifies (standard first). Lookups by scheme and code, or by name
// (case-insensitive; the "XMSS-", "XMSSMT-" or "K-XMSS-" prefix says the scheme).
std::span<const Params> all_params() noexcept;
const Params* find_params(Scheme scheme, std::uint32_t oid) noexcept;
const Params* find_params(std::string_view name) noexcept;

// The sets of RFC 8391 that SP 800-208 does not approve and this library refuses: XMSS-SHA2_*_512,
// XMSS-SHAKE_*_256/512, and their XMSS^MT counterparts. Known so that a refusal can name them.
struct RefusedSet {
  Scheme scheme = Scheme::kXmss;
  std::uint32_t oid = 0;
  std::string_view name;
  std::string_view reason;  // "SHA-512 (n = 64)" or "SHAKE128": what SP 800-208 does not approve
};
std::span<const RefusedSet> refused_sets() noexcept;
const RefusedSet* find_refused(Scheme scheme, std::uint32_t oid) noexcept;
const RefusedSet* find_refused(std::string_view name) noexcept;

// The set for a family, n, h and log2(w), single tree: the named one when it exists, else (for the
// study's heights that no code names) one derived by the same rules with oid 0. kUnknownXmssType
// when the combination is impossible (n not 24/32, log_w not 2/4/8, h not 2..20, no backend family).
Result<Params> params_for(HashFamily family, unsigned n, unsigned h, unsigned log_w) noexcept;

}  // namespace klms::xmss
