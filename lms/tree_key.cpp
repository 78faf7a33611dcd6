#include "lms/tree_key.h"

#include <cstring>

#include "base/bytes.h"

namespace klms::lms {

const hashes::Backend& backend_for(HashFamily family, const hashes::Backend* preferred) noexcept {
  if (preferred != nullptr && preferred->family == family) return *preferred;
  return hashes::fastest_backend(family);
}

void TreeKey::prf(std::uint32_t q, std::uint16_t j, std::uint8_t* out32) const noexcept {
  std::uint8_t rest[7 + kMaxHashBytes];
  put_u32(rest, q);
  put_u16(rest + 4, j);
  rest[6] = 0xFF;
  const std::size_t m = params.lms->m;
  std::memcpy(rest + 7, seed.data(), m);
  hasher.one(rest, 7 + m, out32);
  wipe(rest, sizeof rest);
  hashes::wipe_hash_stack(*hasher.backend);  // the backend's copies of SEED (hashes/backend.h)
}

TreeKey TreeKey::child(std::uint32_t q, const LevelParams& child_params,
                       const hashes::Backend* preferred) const noexcept {
  std::uint8_t child_seed[32];
  std::uint8_t child_id[32];
  prf(q, kPrfChildSeed, child_seed);
  prf(q, kPrfChildIdentifier, child_id);
  Identifier id;
  std::memcpy(id.data(), child_id, id.size());
  TreeKey k = make_tree_key(child_params, id, child_seed, preferred);
  wipe(child_seed, sizeof child_seed);
  return k;
}

TreeKey make_tree_key(const LevelParams& params, const Identifier& identifier, const std::uint8_t* seed,
                      const hashes::Backend* preferred) noexcept {
  TreeKey k;
  k.params = params;
  k.hasher = TreeHasher(backend_for(params.lms->hash, preferred), identifier);
  std::memcpy(k.seed.data(), seed, params.lms->m);
  // memcpy leaves SEED in vector registers, which do not stay registers (hashes/backend.h).
  hashes::wipe_vector_registers();
  return k;
}

}  // namespace klms::lms
