// The six LSH DigestAlgorithm entries. Each is built once, on first use, around the fastest
// implementation on this CPU; the context is the trivially copyable Lsh256Context/Lsh512Context.
#include <new>
#include <type_traits>

#include "hashes/families.h"
#include "hashes/lsh/lsh_internal.h"

namespace klms::hashes {
namespace {

static_assert(sizeof(Lsh256Context) <= kMaxDigestContextBytes && alignof(Lsh256Context) <= kDigestContextAlign);
static_assert(sizeof(Lsh512Context) <= kMaxDigestContextBytes && alignof(Lsh512Context) <= kDigestContextAlign);

template <class Context, class Implementation, const Implementation& kImpl, std::size_t kOutputBytes>
struct DigestAdapters {
  static Context& context_of(void* context) noexcept { return *std::launder(static_cast<Context*>(context)); }
  static void init(void* context) noexcept {
    Context* ctx = new (context) Context;
    if constexpr (std::is_same_v<Context, Lsh256Context>) {
      lsh256_init(*ctx, kOutputBytes);
    } else {
      lsh512_init(*ctx, kOutputBytes);
    }
  }
  static void update(void* context, const std::uint8_t* data, std::size_t len) noexcept {
    kImpl.update(context_of(context), data, len);
  }
  static void final(void* context, std::uint8_t* out) noexcept { kImpl.final(context_of(context), out); }

  static DigestAlgorithm make(std::string_view name, std::size_t block_size) noexcept {
    return DigestAlgorithm{name, block_size, kOutputBytes, sizeof(Context), &init, &update, &final};
  }
};

template <std::size_t kOutputBytes>
DigestAlgorithm make_lsh256(std::string_view name) noexcept {
  switch (lsh256_fastest().isa) {
    case LshIsa::kAvx512:
      return DigestAdapters<Lsh256Context, Lsh256Implementation, lsh_detail::kLsh256Avx512, kOutputBytes>::make(
          name, kLsh256BlockBytes);
    case LshIsa::kAvx2:
      return DigestAdapters<Lsh256Context, Lsh256Implementation, lsh_detail::kLsh256Avx2, kOutputBytes>::make(
          name, kLsh256BlockBytes);
    case LshIsa::kAvx2MessageLanes:
      return DigestAdapters<Lsh256Context, Lsh256Implementation, lsh_detail::kLsh256Avx2Msg, kOutputBytes>::make(
          name, kLsh256BlockBytes);
    case LshIsa::kSse2:
      return DigestAdapters<Lsh256Context, Lsh256Implementation, lsh_detail::kLsh256Sse2, kOutputBytes>::make(
          name, kLsh256BlockBytes);
    case LshIsa::kPortable:
      break;
  }
  return DigestAdapters<Lsh256Context, Lsh256Implementation, lsh_detail::kLsh256Portable, kOutputBytes>::make(
      name, kLsh256BlockBytes);
}

template <std::size_t kOutputBytes>
DigestAlgorithm make_lsh512(std::string_view name) noexcept {
  switch (lsh512_fastest().isa) {
    case LshIsa::kAvx512:
      return DigestAdapters<Lsh512Context, Lsh512Implementation, lsh_detail::kLsh512Avx512, kOutputBytes>::make(
          name, kLsh512BlockBytes);
    case LshIsa::kAvx2:
    case LshIsa::kAvx2MessageLanes:
      return DigestAdapters<Lsh512Context, Lsh512Implementation, lsh_detail::kLsh512Avx2, kOutputBytes>::make(
          name, kLsh512BlockBytes);
    case LshIsa::kSse2:
      return DigestAdapters<Lsh512Context, Lsh512Implementation, lsh_detail::kLsh512Sse2, kOutputBytes>::make(
          name, kLsh512BlockBytes);
    case LshIsa::kPortable:
      break;
  }
  return DigestAdapters<Lsh512Context, Lsh512Implementation, lsh_detail::kLsh512Portable, kOutputBytes>::make(
      name, kLsh512BlockBytes);
}

}  // namespace

const DigestAlgorithm& lsh256_256_digest() noexcept {
  static const DigestAlgorithm algorithm = make_lsh256<32>("LSH-256-256");
  return algorithm;
}

const DigestAlgorithm& lsh256_224_digest() noexcept {
  static const DigestAlgorithm algorithm = make_lsh256<28>("LSH-256-224");
  return algorithm;
}

const DigestAlgorithm& lsh512_512_digest() noexcept {
  static const DigestAlgorithm algorithm = make_lsh512<64>("LSH-512-512");
  return algorithm;
}

const DigestAlgorithm& lsh512_384_digest() noexcept {
  static const DigestAlgorithm algorithm = make_lsh512<48>("LSH-512-384");
  return algorithm;
}

const DigestAlgorithm& lsh512_256_digest() noexcept {
  static const DigestAlgorithm algorithm = make_lsh512<32>("LSH-512-256");
  return algorithm;
}

const DigestAlgorithm& lsh512_224_digest() noexcept {
  static const DigestAlgorithm algorithm = make_lsh512<28>("LSH-512-224");
  return algorithm;
}

}  // namespace klms::hashes
