// Shared by the LSH unit tests: the known-answer files in test/data/lsh/ parsed into one list, and
// small wrappers that hash through a chosen implementation.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hashes/lsh/lsh256.h"
#include "hashes/lsh/lsh512.h"
#include "test/support/test_data.h"

namespace klms::test::lsh {

struct KnownAnswer {
  std::string variant;  // "LSH-256-256", "LSH-512-224", ...
  Bytes message;
  Bytes digest;
  std::string source;  // file and entry, for failure messages
};

// Every whole-byte known answer from every file in test/data/lsh/.
const std::vector<KnownAnswer>& known_answers();

bool is_lsh256(const std::string& variant);
std::size_t output_bytes(const std::string& variant);

// One-shot and streaming digests through one implementation.
Bytes digest256(const hashes::Lsh256Implementation& impl, std::size_t out_bytes, const Bytes& message);
Bytes digest512(const hashes::Lsh512Implementation& impl, std::size_t out_bytes, const Bytes& message);
Bytes stream256(const hashes::Lsh256Implementation& impl, std::size_t out_bytes, const Bytes& message,
                const std::vector<std::size_t>& splits);
Bytes stream512(const hashes::Lsh512Implementation& impl, std::size_t out_bytes, const Bytes& message,
                const std::vector<std::size_t>& splits);

// Deterministic pseudo-random bytes (xorshift), so failures reproduce.
Bytes pseudo_random_bytes(std::size_t len, std::uint64_t seed);

// Test-name suffix for an ISA parameter.
std::string isa_param_name(const ::testing::TestParamInfo<hashes::LshIsa>& info);

}  // namespace klms::test::lsh
