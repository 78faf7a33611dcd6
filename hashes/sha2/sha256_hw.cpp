// "sha256-hw": SHA-256 on the SHA extensions. This file is compiled without special flags: it only
// builds the table; the kernels in sha256_shani.cpp (and sha256_avx512.cpp) run once the CPU check
// said yes.
#include <cstring>

#include "hashes/cpu_features.h"
#include "hashes/cpu_paths.h"
#include "hashes/families.h"
#include "hashes/sha2/sha256_lanes.h"
#include "hashes/sha2/sha256_prefix.h"
#include "hashes/sha2/sha256_shani.h"
#include "hashes/sha2/sha256_stream.h"

namespace klms::hashes {
namespace {

// hash_many: 16 messages in AVX-512 lanes, or SHA-NI with 4 messages interleaved: the path table
// (cpu_paths.cpp) decides per kind of CPU, once.
//
// Measured on a KVM guest (Intel Xeon of the Sapphire Rapids generation, 2 vCPUs at
// ~2.9 GHz, AVX-512 F/VL/BW/DQ + SHA-NI) with
//   klms-sha-bench --benchmark_filter='^sha256-lanes/.*/(55|54|86|2166)B/count:(8|16|67|536)$'
//     --benchmark_repetitions=12 --benchmark_min_time=0.1 --benchmark_enable_random_interleaving=true
// at load average ~3 (other builds; a 9-repetition run at load ~5 agreed within 5 %). Medians of CPU
// time, ns per message (ns per 64-byte block = ns per message / blocks):
//
//   count                    55 B (1 block)          86 B (2 blocks)      2166 B (34 blocks)
//                          8    16    67   536     8    16    67   536     8     16     67
//   SHA-NI x4            35.5  34.0  33.9  34.9   80.1  96.3  80.3  81.1   1201  1200   1193
//   AVX2 x8              53.6  55.3  52.5  53.0  152   148   145   146     2036  2054   1968
//   AVX-512 x16          33.6  21.8  21.2  19.9   80.6  45.8  51.4  50.4   1196   688    756
//
// (AVX-512 rows with the tail policy below, so count 8 is SHA-NI's.) AVX-512 is 1.6-1.7x faster from
// 16 messages on: a zmm round is 6 vprord, 4 vpternlogd and 7 vpaddd for 16 messages, ~55 cycles per
// message with the schedule and transposes, where SHA-NI takes ~100 (sha256rnds2 bound). A padded
// group costs what ~9 SHA-NI messages do, so smaller remainders go to SHA-NI (Ops::kPadFrom*). AVX2
// has no rotation and no three-input logic, needs twice the instructions and loses to SHA-NI: never
// chosen. On AMD Zen 4 (AVX-512 on 256-bit units) the lanes win too: 18.8 against SHA-NI's 26-27 ns
// per 55-byte message (hash_many of 67; cpu_paths.cpp has the row).
bool avx512_lanes_win() noexcept { return chosen_path(PathSlot::kSha256Many) == HashPath::kAvx512; }

}  // namespace

bool sha256_hw_supported() noexcept { return cpu_features().sha_ni; }

Backend sha256_hw_backend() noexcept {
  using Streaming = sha256::Streaming<sha256::shani::compress_blocks>;
  const bool lanes = avx512_lanes_win();
  return Backend{
      .id = BackendId::kSha256Hw,
      .family = HashFamily::kSha256,
      .name = "sha256-hw",
      .implementation = lanes ? "sha-ni+avx512-x16" : "sha-ni",
      .init_prefix = sha256::init_prefix,
      .hash_one = sha256::shani::hash_one,
      .hash_many = lanes ? sha256::lanes::hash_many_avx512 : sha256::shani::hash_many,
      .stream_init = Streaming::init,
      .stream_update = Streaming::update,
      .stream_final = Streaming::final,
      .digest = Streaming::digest,
      .lanes = lanes ? sha256::lanes::kAvx512Lanes : sha256::shani::kInterleave,
      .chain_steps = lanes ? sha256::lanes::chain_steps_avx512 : nullptr,
  };
}

}  // namespace klms::hashes
