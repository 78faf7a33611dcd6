#include "lms/hss.h"

#include "lms/lms_sign.h"
#include "lms/private_key.h"

namespace klms::lms {

// ---- Levels ----

Error check_generation_levels(const std::vector<LevelParams>& levels) noexcept {
  if (levels.empty() || levels.size() > kMaxLevels) return Error::kBadLevels;
  for (const LevelParams& l : levels) {
    if (l.lms == nullptr) return Error::kUnknownLmsType;
    if (l.ots == nullptr) return Error::kUnknownOtsType;
    if (!compatible(*l.lms, *l.ots)) return Error::kParameterMismatch;
    if (l.lms->hash != levels.front().lms->hash || l.lms->m != levels.front().lms->m) {
      return Error::kParameterMismatch;
    }
  }
  return Error::kOk;
}

std::uint64_t max_signatures(std::span<const LevelParams> levels) noexcept {
  unsigned total = 0;
  for (const LevelParams& l : levels) total += l.lms->h;
  return total <= 63 ? (std::uint64_t{1} << total) : ~std::uint64_t{0};
}

HssPosition hss_position(const std::vector<LevelParams>& levels, std::uint64_t q) noexcept {
  HssPosition pos;
  unsigned __int128 rest = q;
  // Walk up from the bottom level: its leaf is the low h bits.
  for (std::size_t i = levels.size(); i-- > 0;) {
    const unsigned h = levels[i].lms->h;
    pos.leaf[i] = static_cast<std::uint32_t>(rest & ((std::uint64_t{1} << h) - 1));
    rest >>= h;
    pos.tree[i] = static_cast<std::uint64_t>(rest);
  }
  return pos;
}

// ---- Public key ----

std::size_t hss_public_key_bytes(const LevelParams& top) noexcept { return 4 + top.public_key_bytes(); }

Bytes hss_public_key(const HssPrivateKey& key, const std::uint8_t* root) {
  Bytes out;
  append_u32(out, static_cast<std::uint32_t>(key.levels.size()));
  append(out, lms_public_key(top_tree_key(key), root));
  return out;
}

Result<HssPublicKeyView> parse_hss_public_key(ByteView in) noexcept {
  Reader r(in);
  std::uint32_t levels = 0;
  if (!r.take_u32(levels)) return Error::kMalformedPublicKey;
  if (levels < 1 || levels > kMaxLevels) return Error::kBadLevels;
  auto top = parse_lms_public_key(r.rest());
  if (!top) return top.error();
  return HssPublicKeyView{levels, *top};
}

// ---- Signature ----

std::size_t hss_signature_bytes(std::span<const LevelParams> levels) noexcept {
  std::size_t total = 4;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    total += levels[i].signature_bytes();
    if (i + 1 < levels.size()) total += levels[i + 1].public_key_bytes();
  }
  return total;
}

Error parse_hss_signature(ByteView public_key, ByteView signature, HssSignatureParts& out) noexcept {
  auto key = parse_hss_public_key(public_key);
  if (!key) return key.error();
  Reader r(signature);
  std::uint32_t signed_keys = 0;
  if (!r.take_u32(signed_keys)) return Error::kMalformedSignature;
  if (signed_keys + std::uint64_t{1} != key->levels) return Error::kMalformedSignature;

  // Parse everything first, so a malformed signature is reported as such whatever it holds.
  out.levels = key->levels;
  out.keys[0] = key->top;
  ByteView rest = r.rest();
  for (std::uint32_t level = 0; level < key->levels; ++level) {
    std::size_t used = 0;
    auto sig = parse_lms_signature_prefix(rest, used);
    if (!sig) return sig.error();
    out.sigs[level] = *sig;
    rest = rest.subspan(used);
    if (level + 1 < key->levels) {
      auto child = parse_lms_public_key_prefix(rest, used);
      if (!child) return child.error() == Error::kMalformedPublicKey ? Error::kMalformedSignature : child.error();
      out.keys[level + 1] = *child;
      rest = rest.subspan(used);
    }
  }
  if (!rest.empty()) return Error::kMalformedSignature;
  return Error::kOk;
}

}  // namespace klms::lms
