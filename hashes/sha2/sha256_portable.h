// The portable SHA-256 compression function, also used by tests and benchmarks as a reference
// point for the SHA-NI one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace klms::hashes::sha256 {

// Compresses `count` consecutive 64-byte blocks into the chaining value h (a..h, native words).
void compress_blocks(std::uint32_t* h, const std::uint8_t* blocks, std::size_t count) noexcept;

}  // namespace klms::hashes::sha256
