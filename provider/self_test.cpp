#include "provider/self_test.h"

#include <cstring>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "hashes/digests.h"
#include "lms/verify.h"
#include "provider/self_test_vectors.h"

namespace klms::provider {
namespace {

std::vector<unsigned char> from_hex(const char* hex) {
  std::vector<unsigned char> out;
  for (std::size_t i = 0; hex[i] != '\0' && hex[i + 1] != '\0'; i += 2) {
    auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    out.push_back(static_cast<unsigned char>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  return out;
}

bool digest_matches(const char* name, const char* expected_hex) {
  const hashes::DigestAlgorithm* d = hashes::find_digest(name);
  if (d == nullptr) return false;
  alignas(hashes::kDigestContextAlign) unsigned char ctx[hashes::kMaxDigestContextBytes];
  unsigned char out[64];
  d->init(ctx);
  d->update(ctx, reinterpret_cast<const unsigned char*>("abc"), 3);
  d->final(ctx, out);
  const auto expected = from_hex(expected_hex);
  return expected.size() == d->output_size && std::memcmp(out, expected.data(), expected.size()) == 0;
}

// The dispatched (SIMD, SHA-NI) backends must agree with the portable ones on the LMS hot path.
bool backends_agree() {
  unsigned char id[16], rest[39], a[32], b[32];
  for (int i = 0; i < 16; ++i) id[i] = static_cast<unsigned char>(i * 7);
  for (int i = 0; i < 39; ++i) rest[i] = static_cast<unsigned char>(i * 13 + 1);
  const std::pair<hashes::BackendId, hashes::BackendId> pairs[] = {
      {hashes::BackendId::kSha256Hw, hashes::BackendId::kSha256Portable},
      {hashes::BackendId::kLsh256Simd, hashes::BackendId::kLsh256Ref}};
  for (auto [fast, ref] : pairs) {
    if (!hashes::available(fast)) continue;
    hashes::PrefixState pf, pr;
    hashes::backend(fast).init_prefix(pf, id);
    hashes::backend(ref).init_prefix(pr, id);
    hashes::backend(fast).hash_one(pf, rest, sizeof rest, a);
    hashes::backend(ref).hash_one(pr, rest, sizeof rest, b);
    if (std::memcmp(a, b, 32) != 0) return false;
  }
  return true;
}

}  // namespace

bool run_self_test(const char*& failure) noexcept {
  try {
    if (!digest_matches("LSH-256-256", kat::kLsh256Abc)) return failure = "LSH-256-256 known answer", false;
    if (!digest_matches("LSH-256-224", kat::kLsh224Abc)) return failure = "LSH-256-224 known answer", false;
    if (!digest_matches("TDM-CHAM", kat::kTdmChamAbc)) return failure = "TDM-CHAM known answer", false;
    if (!digest_matches("TDM-LEA", kat::kTdmLeaAbc)) return failure = "TDM-LEA known answer", false;
    if (!digest_matches("TDM-ARIA", kat::kTdmAriaAbc)) return failure = "TDM-ARIA known answer", false;
    if (!backends_agree()) return failure = "vectorized hash backends disagree with portable code", false;
    const auto pub = from_hex(kat::kRfc8554Tc1PublicKey);
    auto msg = from_hex(kat::kRfc8554Tc1Message);
    const auto sig = from_hex(kat::kRfc8554Tc1Signature);
    if (lms::hss_verify(pub, msg, sig) != lms::Error::kOk) return failure = "HSS verification known answer", false;
    msg[0] ^= 1;
    if (lms::hss_verify(pub, msg, sig) != lms::Error::kVerifyFailed) {
      return failure = "HSS verification accepted an altered message", false;
    }
    return true;
  } catch (...) {
    failure = "self-test could not run";
    return false;
  }
}

}  // namespace klms::provider
