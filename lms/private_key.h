// The HSS private key: parameter sets, the top level's SEED and I, whether it came from a supplied
// seed, and the state file it belongs to — never the index (docs/state.md "Where the state lives": copying a key file must not
// copy the state).
//
// Encoding (the octets inside PKCS#8; docs/design.md "Private key"), all integers big-endian:
//   "KLMS" | version 0x01 | u8 L | (u32 lms type, u32 ots type) x L | SEED (m of the top level)
//   | I (16) | u8 flags (bit 0: seeded) | u16 path length | state-file path (UTF-8, absolute)
// Anything else — other versions, unknown flags, trailing bytes — is refused.
#pragma once

#include <string>
#include <vector>

#include "base/bytes.h"
#include "base/error.h"
#include "lms/hss.h"
#include "lms/params.h"
#include "base/secret.h"
#include "lms/tree_key.h"
#include "stateful/scheme.h"

namespace klms::lms {

inline constexpr std::uint8_t kPrivateKeyVersion = 1;
inline constexpr std::size_t kMaxStatePathBytes = 4096;

// The wiping containers are base/secret.h's; the engine's names for them.
using klms::SecretBytes;
using klms::WipingAllocator;

// The stateful layer's PrivateKey (stateful/scheme.h): `state_file` and `seeded` are its members.
struct HssPrivateKey final : stateful::PrivateKey {
  std::vector<LevelParams> levels;
  SecretArray<kMaxHashBytes> seed;  // the top level's m bytes
  Identifier identifier{};

  std::size_t seed_bytes() const noexcept { return levels.empty() ? 0 : levels.front().lms->m; }

  // stateful::PrivateKey (lms/hss_scheme.cpp).
  std::size_t signature_bytes() const noexcept override;
  stateful::TreeShape top_tree() const override;
  std::string tree_cache_file(const std::string& state_path, std::size_t layer) const override;
  Result<std::shared_ptr<stateful::Signer>> make_signer(ByteView public_key, const std::string& state_path,
                                                        const stateful::BuildOptions& build) const override;
};

SecretBytes encode_private_key(const HssPrivateKey& key);
Result<HssPrivateKey> decode_private_key(ByteView encoded);

// The top level's tree key.
TreeKey top_tree_key(const HssPrivateKey& key, const hashes::Backend* preferred = nullptr) noexcept;

}  // namespace klms::lms
