#include "lms/hss.h"

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

Bytes hss_public_key(const HssPrivateKey& key, const std::uint8_t* root) {
  return encode_hss_public_key(static_cast<std::uint32_t>(key.levels.size()), key.levels.front(),
                               key.identifier.data(), root);
}

}  // namespace klms::lms
