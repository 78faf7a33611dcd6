#include "lms/private_key.h"

#include <cstring>

#include "state/store.h"

namespace klms::lms {
namespace {

constexpr std::uint8_t kMagic[4] = {'K', 'L', 'M', 'S'};
constexpr std::uint8_t kFlagSeeded = 0x01;

}  // namespace

SecretBytes encode_private_key(const HssPrivateKey& key) {
  SecretBytes out;
  out.reserve(4 + 2 + 8 * key.levels.size() + 32 + 16 + 3 + key.state_file.size());
  append_bytes(out, kMagic, 4);
  const std::uint8_t header[2] = {kPrivateKeyVersion, static_cast<std::uint8_t>(key.levels.size())};
  append_bytes(out, header, 2);
  for (const LevelParams& l : key.levels) {
    append_u32(out, l.lms->code);
    append_u32(out, l.ots->code);
  }
  append_bytes(out, key.seed.data(), key.seed_bytes());
  append_bytes(out, key.identifier.data(), key.identifier.size());
  const std::uint8_t trailer[3] = {static_cast<std::uint8_t>(key.seeded ? kFlagSeeded : 0),
                                   static_cast<std::uint8_t>(key.state_file.size() >> 8),
                                   static_cast<std::uint8_t>(key.state_file.size())};
  append_bytes(out, trailer, 3);
  append_bytes(out, reinterpret_cast<const std::uint8_t*>(key.state_file.data()), key.state_file.size());
  return out;
}

Result<HssPrivateKey> decode_private_key(ByteView encoded) {
  Reader r(encoded);
  ByteView field;
  if (!r.take(4, field) || std::memcmp(field.data(), kMagic, 4) != 0) return Error::kMalformedPrivateKey;
  if (!r.take(2, field) || field[0] != kPrivateKeyVersion) return Error::kMalformedPrivateKey;
  const unsigned levels = field[1];
  HssPrivateKey key;
  if (levels < 1 || levels > kMaxLevels) return Error::kMalformedPrivateKey;
  for (unsigned i = 0; i < levels; ++i) {
    std::uint32_t lms_code = 0, ots_code = 0;
    if (!r.take_u32(lms_code) || !r.take_u32(ots_code)) return Error::kMalformedPrivateKey;
    LevelParams l{find_lms(lms_code), find_ots(ots_code)};
    if (l.lms == nullptr) return Error::kUnknownLmsType;
    if (l.ots == nullptr) return Error::kUnknownOtsType;
    key.levels.push_back(l);
  }
  if (const Error e = check_generation_levels(key.levels); e != Error::kOk) return e;
  if (!r.take(key.seed_bytes(), field)) return Error::kMalformedPrivateKey;
  std::memcpy(key.seed.data(), field.data(), field.size());
  if (!r.take(kIdentifierBytes, field)) return Error::kMalformedPrivateKey;
  std::memcpy(key.identifier.data(), field.data(), kIdentifierBytes);
  if (!r.take(3, field) || (field[0] & ~kFlagSeeded) != 0) return Error::kMalformedPrivateKey;
  key.seeded = (field[0] & kFlagSeeded) != 0;
  const std::size_t path_len = std::size_t{field[1]} << 8 | field[2];
  if (path_len == 0 || path_len > kMaxStatePathBytes || !r.take(path_len, field)) return Error::kMalformedPrivateKey;
  key.state_file.assign(field.begin(), field.end());
  if (key.state_file.front() != '/' || key.state_file.find('\0') != std::string::npos) {
    return Error::kMalformedPrivateKey;
  }
  // A path that `pkey -text` would print as several lines could lie about the state.
  if (state::check_state_path(key.state_file) == Error::kStatePathInvalid) return Error::kStatePathInvalid;
  if (r.remaining() != 0) return Error::kMalformedPrivateKey;
  return key;
}

TreeKey top_tree_key(const HssPrivateKey& key, const hashes::Backend* preferred) noexcept {
  return make_tree_key(key.levels.front(), key.identifier, key.seed.data(), preferred);
}

}  // namespace klms::lms
