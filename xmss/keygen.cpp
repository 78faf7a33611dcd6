#include "xmss/keygen.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "xmss/hasher.h"

namespace klms::xmss {
namespace {

bool fill_random(std::uint8_t* out, std::size_t len) noexcept {
  while (len > 0) {
    const ssize_t got = getrandom(out, len, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out += got;
    len -= static_cast<std::size_t>(got);
  }
  return true;
}

}  // namespace

Result<const hashes::Backend*> backend_for_set(const Params& params, const hashes::Backend* preferred) noexcept {
  if (preferred == nullptr) return &hashes::fastest_backend(params.family);
  if (preferred->family != params.family) return Error::kBackendMismatch;
  return preferred;
}

Result<GeneratedKey> generate_key_from_seeds(const Params& params, ByteView sk_seed, ByteView sk_prf,
                                             ByteView pub_seed, const BuildOptions& options,
                                             const hashes::Backend* backend) {
  const auto b = backend_for_set(params, backend);
  if (!b) return b.error();
  const std::size_t n = params.n;
  if (sk_seed.size() != n || sk_prf.size() != n || pub_seed.size() != n) return Error::kBadSeedLength;
  const Hasher hasher(params, **b, pub_seed.data());
  const TreeAddress top{static_cast<std::uint32_t>(params.d - 1), 0};
  auto tree = LayerTree::build(hasher, sk_seed.data(), top, options);
  if (!tree) return tree.error();
  auto key = KeyMaterial::from_fields(params, sk_seed, sk_prf, pub_seed, ByteView((*tree)->root(), n));
  if (!key) return key.error();
  GeneratedKey out;
  out.public_key = key->public_key();
  out.key = std::move(*key);
  out.top_tree = std::move(*tree);
  return out;
}

Result<GeneratedKey> generate_key(const Params& params, const BuildOptions& options, const hashes::Backend* backend) {
  const std::size_t n = params.n;
  SecretArray<3 * kMaxN> seeds;
  if (!fill_random(seeds.data(), 3 * n)) return Error::kInternal;
  const ByteView all(seeds.data(), 3 * n);
  return generate_key_from_seeds(params, all.first(n), all.subspan(n, n), all.subspan(2 * n, n), options, backend);
}

}  // namespace klms::xmss
