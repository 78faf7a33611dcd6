// "sha256-hw": SHA-256 on the SHA extensions. This file is compiled without special flags: it only
// builds the table; the kernels in sha256_shani.cpp run once sha256_hw_supported() said yes.
#include "hashes/cpu_features.h"
#include "hashes/families.h"
#include "hashes/sha256_prefix.h"
#include "hashes/sha256_shani.h"
#include "hashes/sha256_stream.h"

namespace klms::hashes {

bool sha256_hw_supported() noexcept { return cpu_features().sha_ni; }

Backend sha256_hw_backend() noexcept {
  using Streaming = sha256::Streaming<sha256::shani::compress_blocks>;
  return Backend{
      .id = BackendId::kSha256Hw,
      .family = HashFamily::kSha256,
      .name = "sha256-hw",
      .implementation = "sha-ni",
      .init_prefix = sha256::init_prefix,
      .hash_one = sha256::shani::hash_one,
      .hash_many = sha256::shani::hash_many,
      .stream_init = Streaming::init,
      .stream_update = Streaming::update,
      .stream_final = Streaming::final,
      .digest = Streaming::digest,
      .lanes = sha256::shani::kInterleave,
  };
}

}  // namespace klms::hashes
