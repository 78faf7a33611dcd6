// The SHA-256 interleave widths and the SHAKE256 lane widths against hash_one (and OpenSSL): many
// counts and lengths, separately allocated inputs (so ASan sees any over-read), and in-place outputs.
// The backends' own hash_many: test/unit/hashes/backend_conformance_test.cpp.
#include <memory>

#include "hashes/cpu_features.h"
#include "hashes/sha2/sha256_shani.h"
#include "hashes/keccak/shake256.h"
#include "test/unit/sha/sha_test_helpers.h"

namespace klms::test::sha {
namespace {

enum class ManyKind { kSha256Portable, kSha256Hw, kShake256 };

const Backend& backend_of(ManyKind kind) {
  switch (kind) {
    case ManyKind::kSha256Portable: return sha256_backend(Sha256Kind::kPortable);
    case ManyKind::kSha256Hw: return sha256_backend(Sha256Kind::kHw);
    default: return shake256();
  }
}

Digest reference_hash(ManyKind kind, const Bytes& message) {
  return kind == ManyKind::kShake256 ? openssl_shake256(message) : openssl_sha256(message);
}

const std::size_t kRestLengths[] = {0, 22, 31, 38, 39, 47, 48, 70, 200, 2150, 8486};

std::vector<std::size_t> counts() {
  std::vector<std::size_t> c;
  for (std::size_t i = 1; i <= 20; ++i) c.push_back(i);
  c.push_back(67);
  return c;
}

// `count` messages, each in its own exact-size heap buffer.
std::vector<std::unique_ptr<std::uint8_t[]>> random_messages(std::mt19937_64& rng, std::size_t count, std::size_t len,
                                                              std::size_t capacity) {
  std::vector<std::unique_ptr<std::uint8_t[]>> out;
  for (std::size_t k = 0; k < count; ++k) {
    out.emplace_back(new std::uint8_t[capacity]);
    for (std::size_t i = 0; i < len; ++i) out.back()[i] = static_cast<std::uint8_t>(rng());
  }
  return out;
}

using ManyFunction = void (*)(const hashes::PrefixState&, const std::uint8_t* const*, std::size_t,
                              std::uint8_t* const*, std::size_t);

// Checks hash_many (or another function with its signature) against hash_one and the reference.
void check_many(ManyKind kind, ManyFunction many, std::mt19937_64& rng, bool in_place) {
  const Backend& b = backend_of(kind);
  for (std::size_t len : kRestLengths) {
    for (std::size_t count : counts()) {
      const Bytes identifier = random_bytes(rng, 16);
      hashes::PrefixState prefix;
      b.init_prefix(prefix, identifier.data());
      const std::size_t capacity = std::max<std::size_t>(len, in_place ? 32 : 1);
      auto inputs = random_messages(rng, count, len, capacity);
      std::vector<Digest> expected(count);
      std::vector<const std::uint8_t*> rests(count);
      for (std::size_t k = 0; k < count; ++k) {
        rests[k] = inputs[k].get();
        const Bytes rest(inputs[k].get(), inputs[k].get() + len);
        expected[k] = hash_one_of(b, prefix, rest);
        if (k < 3 || k + 1 == count) {
          ASSERT_EQ(expected[k], reference_hash(kind, concat(identifier, rest))) << len;
        }
      }
      std::vector<Digest> separate(count, Digest(32));
      std::vector<std::uint8_t*> outs(count);
      for (std::size_t k = 0; k < count; ++k) outs[k] = in_place ? inputs[k].get() : separate[k].data();
      many(prefix, rests.data(), len, outs.data(), count);
      for (std::size_t k = 0; k < count; ++k) {
        ASSERT_EQ(Digest(outs[k], outs[k] + 32), expected[k])
            << "rest length " << len << ", count " << count << ", message " << k << (in_place ? ", in place" : "");
      }
    }
  }
}

// Every interleave width the benchmark measures gives the same answers.
template <std::size_t Width>
void interleaved(const hashes::PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                 std::uint8_t* const* outs, std::size_t count) {
  hashes::sha256::shani::hash_many_interleaved(Width, prefix, rests, rest_len, outs, count);
}

TEST(Sha256Interleave, EveryWidthAgrees) {
  if (!hashes::sha256_hw_supported()) GTEST_SKIP() << "no SHA-NI on this CPU";
  std::mt19937_64 rng(22);
  for (ManyFunction f : {&interleaved<1>, &interleaved<2>, &interleaved<3>, &interleaved<4>, &interleaved<8>}) {
    check_many(ManyKind::kSha256Hw, f, rng, false);
    check_many(ManyKind::kSha256Hw, f, rng, true);
  }
}

}  // namespace
}  // namespace klms::test::sha

namespace klms::test::sha {
namespace {

// Both SIMD widths of SHAKE256's hash_many, whichever one the backend table picked on this CPU.
TEST(Shake256Lanes, Avx2FourStatesAgree) {
  if (!hashes::cpu_features().avx2) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(23);
  check_many(ManyKind::kShake256, hashes::shake256::hash_many_x4_avx2, rng, false);
  check_many(ManyKind::kShake256, hashes::shake256::hash_many_x4_avx2, rng, true);
}

TEST(Shake256Lanes, Avx512EightStatesAgree) {
  if (!hashes::cpu_features().avx512f || !hashes::cpu_features().avx512vl) GTEST_SKIP() << "no AVX-512 on this CPU";
  std::mt19937_64 rng(24);
  check_many(ManyKind::kShake256, hashes::shake256::hash_many_x8_avx512, rng, false);
  check_many(ManyKind::kShake256, hashes::shake256::hash_many_x8_avx512, rng, true);
}

}  // namespace
}  // namespace klms::test::sha
