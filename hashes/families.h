// What each primitive family exports to the family rows (family_table.cpp) and the digest table
// (digests.cpp). Each factory is called once, when its table is built; the Backend it returns has its
// implementation already chosen from cpu_features().
#pragma once

#include "hashes/backend.h"
#include "hashes/digests.h"

namespace klms::hashes {

// lsh*.cpp
Backend lsh256_ref_backend() noexcept;   // portable C++
Backend lsh256_simd_backend() noexcept;  // AVX2 when the CPU has it, else SSE2
const DigestAlgorithm& lsh256_256_digest() noexcept;
const DigestAlgorithm& lsh256_224_digest() noexcept;
const DigestAlgorithm& lsh512_512_digest() noexcept;
const DigestAlgorithm& lsh512_384_digest() noexcept;
const DigestAlgorithm& lsh512_256_digest() noexcept;
const DigestAlgorithm& lsh512_224_digest() noexcept;

// sha256*.cpp, shake*.cpp, keccak*.cpp
Backend sha256_portable_backend() noexcept;  // plain C++, the study's software baseline
Backend sha256_hw_backend() noexcept;        // SHA-NI; only valid when sha256_hw_supported()
bool sha256_hw_supported() noexcept;
Backend shake256_backend() noexcept;

// cham*.cpp, lea*.cpp, aria*.cpp, tdm*.cpp
Backend tdm_cham_backend() noexcept;
Backend tdm_lea_backend() noexcept;
Backend tdm_aria_backend() noexcept;
const DigestAlgorithm& tdm_cham_digest() noexcept;
const DigestAlgorithm& tdm_lea_digest() noexcept;
const DigestAlgorithm& tdm_aria_digest() noexcept;

}  // namespace klms::hashes
