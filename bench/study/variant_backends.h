// Backends that exist only to measure pitfalls inside LMS signing, on the same engine:
//
//   lsh256-naive-dispatch  every hash goes through lsh256_digest_naive_dispatch, the wrapper that
//                          runs CPUID before each digest and hashes one message at a time (what a
//                          generic "vector dispatch" hash API does)
//   lsh256-serial          the dispatch-once LSH-256 of lsh256-simd, also one message at a time
//   sha256-shani           sha256-hw with SHA-NI alone (4 messages interleaved) for hash_many, where
//                          the table picks AVX-512 lanes instead (Intel): the "SHA-NI" of the paper
//
// lsh256-serial separates the two effects: naive vs serial is the per-digest dispatch alone,
// serial vs lsh256-simd is what the 8-lane many-message hashing adds.
#pragma once

#include <string_view>

#include "hashes/backend.h"

namespace klms::bench {

// Null when the name is not a variant (or lsh256-simd is not available).
const hashes::Backend* find_variant_backend(std::string_view name) noexcept;

// True for the variants (and for a counting wrapper around one: it carries the same name). Keys for
// them are generated with the family's real backend: the pitfall is measured on signing and
// verification, and a naive-dispatch key generation would take minutes for nothing.
bool is_study_variant(const hashes::Backend& backend) noexcept;

}  // namespace klms::bench
