#include "provider/self_test.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "hashes/backend.h"
#include "hashes/digests.h"
#include "lms/hss.h"
#include "lms/verify.h"
#include "provider/errors.h"
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

bool lms_test(const char*& failure) {
  if (!digest_matches("LSH-256-256", kat::kLsh256Abc)) return failure = "LSH-256-256 known answer", false;
  if (!digest_matches("LSH-256-224", kat::kLsh224Abc)) return failure = "LSH-256-224 known answer", false;
  if (!digest_matches("TDM-CHAM", kat::kTdmChamAbc)) return failure = "TDM-CHAM known answer", false;
  if (!digest_matches("TDM-LEA", kat::kTdmLeaAbc)) return failure = "TDM-LEA known answer", false;
  if (!digest_matches("TDM-ARIA", kat::kTdmAriaAbc)) return failure = "TDM-ARIA known answer", false;
  if (!backends_agree()) return failure = "vectorized hash backends disagree with portable code", false;
  // RFC 8554 Test Case 2: the whole HSS signature (W4 over H10, W8 over H5) must verify.
  const auto pub = from_hex(kat::kRfc8554Tc2PublicKey);
  const auto msg = from_hex(kat::kRfc8554Tc2Message);
  const auto sig = from_hex(kat::kRfc8554Tc2Signature);
  if (lms::hss_verify(pub, msg, sig) != klms::Error::kOk) return failure = "HSS verification known answer", false;
  // And a verification must reject an altered message: the top level's LMS signature over the
  // second-level public key it certifies, with one byte of that key changed. The same comparison
  // as any rejection, at the cost of one W4 level (~0.02 ms) instead of the whole signature again.
  const auto top = lms::parse_hss_public_key(pub);
  if (!top) return failure = "HSS test case does not parse", false;
  const klms::ByteView rest = klms::ByteView(sig).subspan(4);  // u32 Nspk = 1
  std::size_t top_sig_len = 0, child_len = 0;
  if (!lms::parse_lms_signature_prefix(rest, top_sig_len)) return failure = "HSS test case does not parse", false;
  if (!lms::parse_lms_public_key_prefix(rest.subspan(top_sig_len), child_len)) {
    return failure = "HSS test case does not parse", false;
  }
  std::vector<unsigned char> child(rest.begin() + static_cast<std::ptrdiff_t>(top_sig_len),
                                   rest.begin() + static_cast<std::ptrdiff_t>(top_sig_len + child_len));
  if (lms::lms_verify(top->top, child, rest.first(top_sig_len)) != klms::Error::kOk) {
    return failure = "LMS verification known answer", false;
  }
  child.back() ^= 1;
  if (lms::lms_verify(top->top, child, rest.first(top_sig_len)) != klms::Error::kVerifyFailed) {
    return failure = "LMS verification accepted an altered message", false;
  }
  return true;
}

bool run_one(SelfTest which, const char*& failure) noexcept {
  try {
    switch (which) {
      case SelfTest::kLsh256:
        if (!digest_matches("LSH-256-256", kat::kLsh256Abc)) return failure = "LSH-256-256 known answer", false;
        if (!digest_matches("LSH-256-224", kat::kLsh224Abc)) return failure = "LSH-256-224 known answer", false;
        return true;
      case SelfTest::kTdmCham:
        return digest_matches("TDM-CHAM", kat::kTdmChamAbc) || (failure = "TDM-CHAM known answer", false);
      case SelfTest::kTdmLea:
        return digest_matches("TDM-LEA", kat::kTdmLeaAbc) || (failure = "TDM-LEA known answer", false);
      case SelfTest::kTdmAria:
        return digest_matches("TDM-ARIA", kat::kTdmAriaAbc) || (failure = "TDM-ARIA known answer", false);
      case SelfTest::kLms:
        return lms_test(failure);
    }
    failure = "unknown self-test";
    return false;
  } catch (...) {
    failure = "self-test could not run";
    return false;
  }
}

constexpr std::size_t kTestCount = static_cast<std::size_t>(SelfTest::kLms) + 1;

struct Outcome {
  std::once_flag once;
  bool passed = false;
  const char* failure = nullptr;
};
Outcome g_outcomes[kTestCount];
std::atomic<bool> g_any_failed{false};

}  // namespace

bool require_self_test(ProviderContext* ctx, SelfTest which) noexcept {
  Outcome& o = g_outcomes[static_cast<std::size_t>(which)];
  try {
    std::call_once(o.once, [&] {
      o.passed = run_one(which, o.failure);
      if (!o.passed) g_any_failed.store(true, std::memory_order_release);
    });
  } catch (...) {  // call_once reports a failure to start a thread-safe wait as an exception
    KLMS_RAISE(ctx, kReasonSelfTestFailed, "self-test could not run");
    return false;
  }
  if (!o.passed) {
    KLMS_RAISE(ctx, kReasonSelfTestFailed, "%s", o.failure != nullptr ? o.failure : "self-test failed");
    return false;
  }
  if (g_any_failed.load(std::memory_order_acquire)) {
    KLMS_RAISE(ctx, kReasonSelfTestFailed, "an earlier klms self-test failed in this process");
    return false;
  }
  return true;
}

bool self_test_for_digest(const char* name, SelfTest& which) noexcept {
  if (std::strncmp(name, "LSH-256-", 8) == 0) return which = SelfTest::kLsh256, true;
  if (std::strcmp(name, "TDM-CHAM") == 0) return which = SelfTest::kTdmCham, true;
  if (std::strcmp(name, "TDM-LEA") == 0) return which = SelfTest::kTdmLea, true;
  if (std::strcmp(name, "TDM-ARIA") == 0) return which = SelfTest::kTdmAria, true;
  return false;
}

bool no_self_test_failed() noexcept { return !g_any_failed.load(std::memory_order_acquire); }

bool run_self_test(const char*& failure) noexcept {
  try {
    return lms_test(failure);
  } catch (...) {
    failure = "self-test could not run";
    return false;
  }
}

}  // namespace klms::provider
