// Shared by the SHA-256 and SHAKE256 tests (test/unit/hashes/sha2, test/unit/hashes/keccak): random
// inputs, one backend's entry points as byte vectors, and hash_many (or a kernel of its signature)
// checked against hash_one and an independent reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "test/support/test_data.h"

namespace klms::test {

using Digest = std::vector<std::uint8_t>;

inline Bytes random_bytes(std::mt19937_64& rng, std::size_t len) {
  Bytes out(len);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

// (Sized first: GCC 12 sees a false -Warray-bounds in vector::insert when inlined here.)
inline Bytes concat(const Bytes& a, const Bytes& b) {
  Bytes out(a.size() + b.size());
  std::copy(a.begin(), a.end(), out.begin());
  std::copy(b.begin(), b.end(), out.begin() + static_cast<std::ptrdiff_t>(a.size()));
  return out;
}

inline Digest digest_of(const hashes::Backend& b, const Bytes& in) {
  Digest out(hashes::kOutputBytes);
  b.digest(in.data(), in.size(), out.data());
  return out;
}

inline Digest hash_one_of(const hashes::Backend& b, const hashes::PrefixState& prefix, const Bytes& rest) {
  Digest out(hashes::kOutputBytes);
  b.hash_one(prefix, rest.data(), rest.size(), out.data());
  return out;
}

// Streams I || data in pieces of the given sizes (which add up to data.size()).
inline Digest stream_of(const hashes::Backend& b, const hashes::PrefixState& prefix, const Bytes& data,
                        const std::vector<std::size_t>& pieces) {
  hashes::StreamState state;
  b.stream_init(state, prefix);
  std::size_t at = 0;
  for (std::size_t len : pieces) {
    b.stream_update(state, data.data() + at, len);
    at += len;
  }
  Digest out(hashes::kOutputBytes);
  b.stream_final(state, out.data());
  return out;
}

inline std::string hex(const Digest& d) { return to_hex(d.data(), d.size()); }

using ManyFunction = void (*)(const hashes::PrefixState&, const std::uint8_t* const*, std::size_t,
                              std::uint8_t* const*, std::size_t);
using ReferenceHash = Digest (*)(const Bytes& message);

// `many` (a hash_many kernel) against b.hash_one and `reference` (of I || rest): counts 1..20 and 67,
// one- and multi-block rest lengths, each input in its own exact-size heap buffer (ASan sees any
// over-read), outputs separate or over their own inputs.
inline void check_many(const hashes::Backend& b, ManyFunction many, ReferenceHash reference, std::mt19937_64& rng,
                       bool in_place) {
  std::vector<std::size_t> counts;
  for (std::size_t i = 1; i <= 20; ++i) counts.push_back(i);
  counts.push_back(67);
  for (std::size_t len : {0u, 22u, 31u, 38u, 39u, 47u, 48u, 70u, 200u, 2150u, 8486u}) {
    for (std::size_t count : counts) {
      const Bytes identifier = random_bytes(rng, 16);
      hashes::PrefixState prefix;
      b.init_prefix(prefix, identifier.data());
      const std::size_t capacity = std::max<std::size_t>(len, in_place ? 32 : 1);
      std::vector<std::unique_ptr<std::uint8_t[]>> inputs;
      std::vector<Digest> expected(count);
      std::vector<const std::uint8_t*> rests(count);
      for (std::size_t k = 0; k < count; ++k) {
        const Bytes rest = random_bytes(rng, len);
        inputs.emplace_back(new std::uint8_t[capacity]);
        std::copy(rest.begin(), rest.end(), inputs.back().get());
        rests[k] = inputs[k].get();
        expected[k] = hash_one_of(b, prefix, rest);
        if (k < 3 || k + 1 == count) {
          ASSERT_EQ(expected[k], reference(concat(identifier, rest))) << len;
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

}  // namespace klms::test
