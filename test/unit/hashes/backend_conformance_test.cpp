// One conformance suite for every hash backend the table lists on this CPU (hashes/family_table.h,
// hashes/backend.h): the family's published known answers from test/data through every entry point,
// hash_one against the family's portable digest of I || rest, hash_many against hash_one (the LMS
// one-block lengths 55 and 47 = 16 + 39 and 16 + 31, docs/params.md "Hash families", and others),
// chain_steps against the chain definition stepped with hash_one, streaming against one-shot at
// every split, and the stack-wipe entry. A new backend needs no line here; a new family needs its
// vector file in kVectorFiles. The stack depth each backend reaches is measured against its entry by
// test/unit/hashes/stack_wipe_test.cpp, over the same available_backends().
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "hashes/family_table.h"
#include "test/support/test_data.h"

namespace klms::hashes {
namespace {

using test::Bytes;
using test::to_hex;

struct KnownAnswer {
  Bytes message;
  std::string digest;  // lower-case hex, 32 bytes
  std::string source;  // file and entry, for failure messages
};

// "Len = bits", "Msg = hex", "MD = hex" records (KCMVP .rsp layout); whole bytes only.
void load_rsp(const std::string& file, std::vector<KnownAnswer>& out) {
  std::string key, value;
  std::size_t bits = 0;
  Bytes message;
  for (const std::string& line : test::read_lines(file)) {
    if (!test::split_key_value(line, key, value)) continue;
    if (key == "Len") {
      bits = std::stoul(value);
    } else if (key == "Msg") {
      message = test::from_hex(value);
    } else if (key == "MD" && bits % 8 == 0) {
      message.resize(bits / 8);
      out.push_back({message, to_hex(test::from_hex(value)), file + " Len=" + std::to_string(bits)});
    }
  }
}

// "TDM-CHAM <len> <hex>" lines: the message of length len is the bytes i mod 256.
void load_tdm_lengths(const std::string& hash_name, std::vector<KnownAnswer>& out) {
  const std::string file = "tdm/tdm_lengths.txt";
  for (const std::string& line : test::read_lines(file)) {
    if (line.empty() || line[0] == '#' || line.rfind(hash_name + " ", 0) != 0) continue;
    const auto a = line.find(' '), b = line.find(' ', a + 1);
    const std::size_t len = std::stoul(line.substr(a + 1, b - a - 1));
    Bytes message(len);
    for (std::size_t i = 0; i < len; ++i) message[i] = static_cast<std::uint8_t>(i);
    out.push_back({message, to_hex(test::from_hex(line.substr(b + 1))), file + " " + hash_name + " " + std::to_string(len)});
  }
}

// tdm_vectors.txt's H("abc") of one hash: the self-test's answer (tdm_lengths.txt has no "abc").
void load_tdm_abc(const std::string& hash_name, std::vector<KnownAnswer>& out) {
  const std::string file = "tdm/tdm_vectors.txt";
  bool in_hash = false;
  for (const std::string& raw : test::read_lines(file)) {
    const std::string line(test::trim(raw));
    if (line.rfind("TDM-", 0) == 0) in_hash = line.rfind(hash_name + "-", 0) == 0;
    if (in_hash && line.rfind("H(\"abc\")", 0) == 0) {
      const std::string hex(test::trim(line.substr(line.find('=') + 1)));
      out.push_back({Bytes{'a', 'b', 'c'}, to_hex(test::from_hex(hex)), file + " " + hash_name + " H(\"abc\")"});
    }
  }
}

// The published vectors of each family (test/data/SOURCES.md), the same files its own tests read.
std::vector<KnownAnswer> vectors_of(HashFamily family) {
  std::vector<KnownAnswer> v;
  switch (family) {
    case HashFamily::kSha256: load_rsp("sha2/sha256_fips180_examples.rsp", v); break;
    case HashFamily::kShake256: load_rsp("keccak/shake256_fips202_examples.rsp", v); break;
    case HashFamily::kLsh256: load_rsp("lsh/kcmvp_LSH256-256_ShortMsg_LongMsg-partial.rsp", v); break;
    case HashFamily::kTdmCham: load_tdm_lengths("TDM-CHAM", v); load_tdm_abc("TDM-CHAM", v); break;
    case HashFamily::kTdmLea: load_tdm_lengths("TDM-LEA", v); load_tdm_abc("TDM-LEA", v); break;
    case HashFamily::kTdmAria: load_tdm_lengths("TDM-ARIA", v); load_tdm_abc("TDM-ARIA", v); break;
  }
  return v;
}

Bytes random_bytes(std::mt19937_64& rng, std::size_t len) {
  Bytes out(len);
  for (auto& x : out) x = static_cast<std::uint8_t>(rng());
  return out;
}

std::string digest_hex(const Backend& b, const Bytes& m) {
  std::uint8_t out[kOutputBytes];
  b.digest(m.data(), m.size(), out);
  return to_hex(out, kOutputBytes);
}

std::string hash_one_hex(const Backend& b, const PrefixState& prefix, const std::uint8_t* rest, std::size_t len) {
  std::uint8_t out[kOutputBytes];
  b.hash_one(prefix, rest, len, out);
  return to_hex(out, kOutputBytes);
}

// I || rest streamed in pieces of the given sizes (which add up to len).
std::string stream_hex(const Backend& b, const PrefixState& prefix, const std::uint8_t* rest,
                       const std::vector<std::size_t>& pieces) {
  StreamState state;
  b.stream_init(state, prefix);
  std::size_t at = 0;
  for (std::size_t piece : pieces) {
    b.stream_update(state, rest + at, piece);
    at += piece;
  }
  std::uint8_t out[kOutputBytes];
  b.stream_final(state, out);
  return to_hex(out, kOutputBytes);
}

// The reference for H(I || rest): the family's portable backend's plain digest, itself held to the
// family's known answers by KnownAnswers below.
std::string reference_hex(const Backend& b, const Bytes& identifier, const Bytes& rest) {
  const Backend& portable = *backend(family_row(b.family).portable.id);
  Bytes m = identifier;
  m.insert(m.end(), rest.begin(), rest.end());
  return digest_hex(portable, m);
}

class BackendConformance : public ::testing::TestWithParam<const Backend*> {
 protected:
  const Backend& b() const { return *GetParam(); }
};

// Every known answer through digest, and (the first 16 bytes as I) hash_one, hash_many and the
// stream, split at every point for messages up to 300 bytes and at a few beyond.
TEST_P(BackendConformance, KnownAnswers) {
  const std::vector<KnownAnswer> vectors = vectors_of(b().family);
  ASSERT_GE(vectors.size(), 3u) << family_row(b().family).name
                                << ": no known answers; add its test/data file to vectors_of";
  for (const KnownAnswer& ka : vectors) {
    SCOPED_TRACE(ka.source);
    EXPECT_EQ(digest_hex(b(), ka.message), ka.digest);
    if (ka.message.size() < kIdentifierBytes) continue;
    PrefixState prefix;
    b().init_prefix(prefix, ka.message.data());
    const std::uint8_t* rest = ka.message.data() + kIdentifierBytes;
    const std::size_t len = ka.message.size() - kIdentifierBytes;
    EXPECT_EQ(hash_one_hex(b(), prefix, rest, len), ka.digest);
    std::uint8_t outs[3][kOutputBytes];
    const std::uint8_t* rests[3] = {rest, rest, rest};
    std::uint8_t* out_ptrs[3] = {outs[0], outs[1], outs[2]};
    b().hash_many(prefix, rests, len, out_ptrs, 3);
    for (const auto& o : outs) EXPECT_EQ(to_hex(o, kOutputBytes), ka.digest) << "hash_many";
    const std::size_t step = len <= 300 ? 1 : len / 7;
    for (std::size_t split = 0; split <= len; split += step) {
      ASSERT_EQ(stream_hex(b(), prefix, rest, {split, len - split}), ka.digest) << "stream split at " << split;
    }
  }
}

// The table's self-test answer (the provider checks its digest of "abc" against it) is the family's
// answer from test/data, and this backend's.
TEST_P(BackendConformance, SelfTestAnswerIsThePublishedOne) {
  const FamilyRow& row = family_row(b().family);
  if (row.self_test_digest.empty()) GTEST_SKIP() << row.name << " has no provider digest to self-test";
  const std::string table_answer = to_hex(row.abc_answer.data(), row.abc_answer.size());
  EXPECT_EQ(digest_hex(b(), Bytes{'a', 'b', 'c'}), table_answer);
  bool found = false;
  for (const KnownAnswer& ka : vectors_of(b().family)) {
    if (ka.message == Bytes{'a', 'b', 'c'}) {
      found = true;
      EXPECT_EQ(ka.digest, table_answer) << ka.source;
    }
  }
  if (!found) std::printf("%s: no \"abc\" among its test/data vectors; checked against the backend\n",
                          std::string(row.name).c_str());
}

const std::size_t kRestLengths[] = {0, 1, 22, 30, 31, 38, 39, 47, 48, 70, 111, 112, 200, 2150};

// hash_one(prefix(I), rest) is H(I || rest) for random I and rest, a prefix state is read-only
// (reused after another key's), and null pointers with zero lengths are allowed.
TEST_P(BackendConformance, HashOneIsTheDigestOfIAndRest) {
  std::mt19937_64 rng(1);
  PrefixState other;
  for (std::size_t len : kRestLengths) {
    const Bytes identifier = random_bytes(rng, kIdentifierBytes), rest = random_bytes(rng, len);
    PrefixState prefix;
    b().init_prefix(prefix, identifier.data());
    const std::string expected = reference_hex(b(), identifier, rest);
    EXPECT_EQ(hash_one_hex(b(), prefix, rest.data(), len), expected) << "rest " << len;
    b().init_prefix(other, random_bytes(rng, kIdentifierBytes).data());
    EXPECT_EQ(hash_one_hex(b(), prefix, rest.data(), len), expected) << "rest " << len << ", prefix reused";
    EXPECT_NE(hash_one_hex(b(), other, rest.data(), len), expected) << "rest " << len << ", another I";
  }
  const Bytes identifier = random_bytes(rng, kIdentifierBytes);
  PrefixState prefix;
  b().init_prefix(prefix, identifier.data());
  EXPECT_EQ(hash_one_hex(b(), prefix, nullptr, 0), reference_hex(b(), identifier, {}));
  EXPECT_EQ(digest_hex(b(), {}), digest_hex(*backend(family_row(b().family).portable.id), {}));
}

// hash_many against hash_one: every count 1..20 and past the lane widths, each input in its own
// exact-size heap buffer (ASan sees any over-read), outputs separate and over their own inputs.
TEST_P(BackendConformance, HashManyAgreesWithHashOne) {
  std::mt19937_64 rng(2);
  std::vector<std::size_t> counts;
  for (std::size_t c = 1; c <= 20; ++c) counts.push_back(c);
  for (std::size_t c : {31u, 32u, 33u, 67u}) counts.push_back(c);
  for (std::size_t len : kRestLengths) {
    for (std::size_t count : counts) {
      if (len > 200 && count > 20) continue;  // (time)
      const Bytes identifier = random_bytes(rng, kIdentifierBytes);
      PrefixState prefix;
      b().init_prefix(prefix, identifier.data());
      std::vector<std::unique_ptr<std::uint8_t[]>> inputs;   // exact size (at least 1 byte)
      std::vector<std::unique_ptr<std::uint8_t[]>> in_place;  // the same, room for the output
      std::vector<const std::uint8_t*> rests(count);
      std::vector<std::string> expected(count);
      for (std::size_t k = 0; k < count; ++k) {
        const Bytes rest = random_bytes(rng, len);
        inputs.emplace_back(new std::uint8_t[std::max<std::size_t>(len, 1)]);
        std::copy(rest.begin(), rest.end(), inputs.back().get());
        in_place.emplace_back(new std::uint8_t[std::max<std::size_t>(len, kOutputBytes)]);
        std::copy(rest.begin(), rest.end(), in_place.back().get());
        rests[k] = inputs.back().get();
        expected[k] = hash_one_hex(b(), prefix, rests[k], len);
      }
      std::vector<Bytes> separate(count, Bytes(kOutputBytes));
      std::vector<std::uint8_t*> outs(count);
      for (std::size_t k = 0; k < count; ++k) outs[k] = separate[k].data();
      b().hash_many(prefix, rests.data(), len, outs.data(), count);
      for (std::size_t k = 0; k < count; ++k) {
        ASSERT_EQ(to_hex(separate[k]), expected[k]) << "rest " << len << ", count " << count << ", message " << k;
      }
      for (std::size_t k = 0; k < count; ++k) {
        rests[k] = in_place[k].get();
        outs[k] = in_place[k].get();
      }
      b().hash_many(prefix, rests.data(), len, outs.data(), count);
      for (std::size_t k = 0; k < count; ++k) {
        ASSERT_EQ(to_hex(in_place[k].get(), kOutputBytes), expected[k])
            << "in place, rest " << len << ", count " << count << ", message " << k;
      }
    }
  }
  PrefixState prefix;
  const std::uint8_t identifier[kIdentifierBytes] = {};
  b().init_prefix(prefix, identifier);
  b().hash_many(prefix, nullptr, 39, nullptr, 0);  // count 0 touches nothing
}

// chain_steps (hashes/backend.h): for t = from .. to-1, byte 6 = t, then bytes 7..38 = H(I || the
// first rest_len bytes); here stepped with hash_one. Both chain lengths (n = 32: 39, n = 24: 31),
// counts 1..40 and 67, packed chains (stride 39, one exact-size buffer) and spaced ones (stride 48,
// whose spare bytes stay as they were), W4's and W8's step ranges, a middle one, one step, none.
TEST_P(BackendConformance, ChainStepsFollowTheChainDefinition) {
  if (b().chain_steps == nullptr) GTEST_SKIP() << b().name << " (" << b().implementation << ") has no chain_steps";
  struct Range {
    unsigned from, to;
  };
  const Range ranges[] = {{0, 15}, {0, 255}, {5, 9}, {14, 15}, {3, 3}};
  std::mt19937_64 rng(3);
  std::vector<std::size_t> counts;
  for (std::size_t c = 1; c <= 40; ++c) counts.push_back(c);
  counts.push_back(67);
  for (std::size_t rest_len : {std::size_t{39}, std::size_t{31}}) {
    for (std::size_t stride : {std::size_t{39}, std::size_t{48}}) {
      for (std::size_t count : counts) {
        for (const Range& r : ranges) {
          const Bytes identifier = random_bytes(rng, kIdentifierBytes);
          PrefixState prefix;
          b().init_prefix(prefix, identifier.data());
          const Bytes initial = random_bytes(rng, count * stride);
          Bytes expected = initial;
          for (std::size_t c = 0; c < count; ++c) {
            std::uint8_t* chain = expected.data() + c * stride;
            for (unsigned t = r.from; t < r.to; ++t) {
              chain[6] = static_cast<std::uint8_t>(t);
              std::uint8_t out[kOutputBytes];
              b().hash_one(prefix, chain, rest_len, out);
              std::memcpy(chain + 7, out, kOutputBytes);
            }
          }
          std::unique_ptr<std::uint8_t[]> chains(new std::uint8_t[count * stride]);
          std::copy(initial.begin(), initial.end(), chains.get());
          b().chain_steps(prefix, chains.get(), stride, count, rest_len, r.from, r.to);
          ASSERT_EQ(to_hex(chains.get(), count * stride), to_hex(expected))
              << "rest " << rest_len << " stride " << stride << " count " << count << " steps " << r.from << ".."
              << r.to;
        }
      }
    }
  }
}

// The stream of I || rest against hash_one: every two-way split, three-way splits with an empty
// piece, around every block size of the families (16, 64, 128, 136), and null empty updates.
TEST_P(BackendConformance, StreamingAgreesWithOneShotAtEverySplit) {
  std::mt19937_64 rng(4);
  for (std::size_t len : {0u, 1u, 15u, 16u, 17u, 31u, 39u, 47u, 48u, 55u, 63u, 64u, 65u, 111u, 112u, 113u, 119u,
                          120u, 121u, 127u, 128u, 129u, 135u, 136u, 137u, 200u, 256u, 257u, 300u}) {
    const Bytes identifier = random_bytes(rng, kIdentifierBytes), rest = random_bytes(rng, len);
    PrefixState prefix;
    b().init_prefix(prefix, identifier.data());
    const std::string expected = hash_one_hex(b(), prefix, rest.data(), len);
    for (std::size_t split = 0; split <= len; ++split) {
      ASSERT_EQ(stream_hex(b(), prefix, rest.data(), {split, len - split}), expected) << len << " at " << split;
      if (split <= len / 2) {
        ASSERT_EQ(stream_hex(b(), prefix, rest.data(), {split, 0, split, len - 2 * split}), expected)
            << len << " at " << split << " twice";
      }
    }
  }
  const Bytes identifier = random_bytes(rng, kIdentifierBytes), data = random_bytes(rng, 10);
  PrefixState prefix;
  b().init_prefix(prefix, identifier.data());
  StreamState state;
  b().stream_init(state, prefix);
  b().stream_update(state, nullptr, 0);
  b().stream_update(state, data.data(), data.size());
  b().stream_update(state, nullptr, 0);
  std::uint8_t out[kOutputBytes];
  b().stream_final(state, out);
  EXPECT_EQ(to_hex(out, kOutputBytes), hash_one_hex(b(), prefix, data.data(), data.size()));
}

// The entry the engine wipes by: the family row's bound, within what the wipe clears; and the
// backend's table entry complete.
TEST_P(BackendConformance, TableEntryAndStackWipeDepth) {
  const FamilyRow& row = family_row(b().family);
  const BackendRow& mine = row.portable.id == b().id ? row.portable : row.fast;
  ASSERT_EQ(mine.id, b().id) << b().name << " is in neither slot of its family's row";
  EXPECT_GT(hash_stack_bytes(b()), 0u);
  EXPECT_LE(hash_stack_bytes(b()), kMaxHashStackBytes);
  EXPECT_EQ(hash_stack_bytes(b()), mine.stack_bytes);
  EXPECT_EQ(backend(b().id), &b());
  EXPECT_EQ(find_backend(b().name), &b());
  EXPECT_GE(b().lanes, 1u);
  EXPECT_FALSE(b().implementation.empty());
  EXPECT_TRUE(b().init_prefix && b().hash_one && b().hash_many && b().stream_init && b().stream_update &&
              b().stream_final && b().digest)
      << "an entry of Backend is null";
}

std::string backend_test_name(const ::testing::TestParamInfo<const Backend*>& info) {
  std::string name(info.param->name);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(AvailableBackends, BackendConformance, ::testing::ValuesIn(available_backends()),
                         backend_test_name);

}  // namespace
}  // namespace klms::hashes
