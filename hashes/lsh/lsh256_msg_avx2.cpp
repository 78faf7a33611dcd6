// LSH-256 with AVX2, hash_many on message lanes: one message per 128-bit lane, two streams of
// 256-bit registers (4 messages per batch; lsh256_simd_msg_lanes.h). Every other entry is the AVX2
// one-message code, the same as lsh256_avx2.cpp's. Called only when cpu_features().avx2.
#include "hashes/lsh/lsh256_simd_msg_lanes.h"
#include "hashes/lsh/lsh256_simd_one.h"
#include "hashes/lsh/lsh_internal.h"

namespace klms::hashes {
namespace {

using Batch4 = lsh256_simd::MessageLaneHasher<lsh256_simd::Ymm2Messages, 2>;
using Batch2 = lsh256_simd::MessageLaneHasher<lsh256_simd::Ymm2Messages, 1>;

// Full batches of 4; then 3 left: one padded batch of 4; 2 left: one batch of 2 (one stream); 1 left:
// the one-message code. Measured on Zen 4 (ns per call, 55-byte messages, best of 31): a batch of 4
// ~170, of 2 ~109, the one-message code ~110 — one stream is latency-bound and costs what one
// message does, so 3 go into a padded 4 (170 against 2 + 1 = 220).
void hash_many(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept {
  std::size_t k = 0;
  for (; count - k >= Batch4::kMessages; k += Batch4::kMessages) {
    Batch4::hash_batch(prefix, rests + k, rest_len, outs + k, Batch4::kMessages);
  }
  switch (count - k) {
    case 3:
      Batch4::hash_batch(prefix, rests + k, rest_len, outs + k, 3);
      break;
    case 2:
      Batch2::hash_batch(prefix, rests + k, rest_len, outs + k, 2);
      break;
    case 1:
      lsh256_simd::digest_prefixed(prefix, rests[k], rest_len, outs[k]);
      break;
    default:
      break;
  }
}

}  // namespace

namespace lsh_detail {
constexpr Lsh256Implementation kLsh256Avx2Msg =
    lsh256_simd::implementation(LshIsa::kAvx2MessageLanes, "avx2msg", Batch4::kMessages, &hash_many);
}  // namespace lsh_detail

const Lsh256Implementation& lsh256_avx2_msg() noexcept { return lsh_detail::kLsh256Avx2Msg; }

}  // namespace klms::hashes
