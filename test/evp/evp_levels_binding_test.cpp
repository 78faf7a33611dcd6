// The levels binding through EVP (the EvpLevelsBinding suite of klms-evp-test): a signer registry
// that ignored the levels digest let a genuine key sign with an altered key file's lower levels (a
// second child key under one top leaf, and a signature longer than the queried size). Failed on an
// earlier version of the code; passes since the registry is keyed by the levels.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "test/evp/evp_fixture.h"
#include "test/evp/evp_util.h"

namespace {

using namespace klms::evptest;
// Bytes, Pkey and PrivateDir: test/evp/evp_fixture.h.

Pkey generate(OSSL_LIB_CTX* ctx, const std::vector<std::pair<std::string, std::string>>& utf8) {
  EVP_PKEY_CTX* gen = EVP_PKEY_CTX_new_from_name(ctx, "HSS-LMS", nullptr);
  if (gen == nullptr) return nullptr;
  std::vector<OSSL_PARAM> params;
  for (const auto& [k, v] : utf8) {
    params.push_back(OSSL_PARAM_construct_utf8_string(k.c_str(), const_cast<char*>(v.c_str()), 0));
  }
  params.push_back(OSSL_PARAM_construct_end());
  EVP_PKEY* pkey = nullptr;
  if (EVP_PKEY_keygen_init(gen) != 1 || EVP_PKEY_CTX_set_params(gen, params.data()) != 1 ||
      EVP_PKEY_generate(gen, &pkey) != 1) {
    pkey = nullptr;
  }
  EVP_PKEY_CTX_free(gen);
  return Pkey(pkey);
}

Bytes der_of(EVP_PKEY* k) {
  unsigned char* der = nullptr;
  const int len = i2d_PrivateKey(k, &der);
  Bytes out;
  if (len > 0) out.assign(der, der + len);
  OPENSSL_free(der);
  return out;
}

Pkey from_der(OSSL_LIB_CTX* ctx, const Bytes& der) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio(bio, "PRIVATE KEY", "", der.data(), static_cast<long>(der.size()));
  EVP_PKEY* k = PEM_read_bio_PrivateKey_ex(bio, nullptr, nullptr, nullptr, ctx, nullptr);
  BIO_free(bio);
  return Pkey(k);
}

// The previous release's state file (format 1, no levels digest), written over the current one in
// place: the current slot's bytes 0..143, version 1, SHA-256 of 0..143, in both blocks.
bool make_version_1(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char image[8192];
  bool ok = ::pread(fd, image, sizeof image, 0) == static_cast<ssize_t>(sizeof image);
  unsigned char block[4096] = {};
  std::memcpy(block, image, 144);  // both blocks hold the same slot after key generation
  block[8] = 1;
  block[9] = block[10] = block[11] = 0;
  unsigned int len = 0;
  ok = ok && EVP_Digest(block, 144, block + 144, &len, EVP_sha256(), nullptr) == 1 && len == 32;
  ok = ok && ::pwrite(fd, block, sizeof block, 0) == static_cast<ssize_t>(sizeof block) &&
       ::pwrite(fd, block, sizeof block, 4096) == static_cast<ssize_t>(sizeof block) && ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

// One-shot EVP_DigestSign into a buffer `slack` bytes larger than the queried size (so that the
// test itself does not overflow); `queried` gets the size the provider asked for.
std::optional<Bytes> sign(OSSL_LIB_CTX* ctx, EVP_PKEY* k, const Bytes& msg, std::size_t* queried = nullptr,
                          std::optional<std::uint64_t> reserve = std::nullopt) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  std::uint64_t r = reserve.value_or(1);
  OSSL_PARAM params[] = {OSSL_PARAM_construct_uint64("reserve", &r), OSSL_PARAM_construct_end()};
  std::optional<Bytes> out;
  size_t len = 0;
  if (EVP_DigestSignInit_ex(md, nullptr, nullptr, ctx, nullptr, k, reserve ? params : nullptr) == 1 &&
      EVP_DigestSign(md, nullptr, &len, msg.data(), msg.size()) == 1) {
    if (queried != nullptr) *queried = len;
    Bytes sig(len + 16384);
    size_t siglen = sig.size();
    if (EVP_DigestSign(md, sig.data(), &siglen, msg.data(), msg.size()) == 1) {
      sig.resize(siglen);
      out = std::move(sig);
    }
  }
  EVP_MD_CTX_free(md);
  return out;
}

bool verify(OSSL_LIB_CTX* ctx, EVP_PKEY* k, const Bytes& msg, const Bytes& sig) {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  const bool ok = EVP_DigestVerifyInit_ex(md, nullptr, nullptr, ctx, nullptr, k, nullptr) == 1 &&
                  EVP_DigestVerify(md, sig.data(), sig.size(), msg.data(), msg.size()) == 1;
  EVP_MD_CTX_free(md);
  ERR_clear_error();
  return ok;
}

// Top-level LMS signature of an HSS signature whose top level is H5/W4 (SHA-256, m = n = 32):
// q, then the child public key right after it.
constexpr std::size_t kTopLmsSignature = 4 + (4 + 32 + 67 * 32) + 4 + 5 * 32;
struct TopUse {
  std::uint32_t q = 0;
  Bytes child;  // lms type, ots type, I, root
};
TopUse top_use(const Bytes& sig) {
  TopUse u;
  if (sig.size() < 4 + kTopLmsSignature + 56) return u;
  u.q = be32(sig.data() + 4);
  u.child.assign(sig.begin() + 4 + kTopLmsSignature, sig.begin() + 4 + kTopLmsSignature + 56);
  return u;
}

// Flaw: SigningSession::shared_signer() (lms/signing_session.cpp) finds a key's signer in a
// process-wide registry keyed by key id + state-file path only, not by the levels digest. A key file B with altered lower levels
// (same public key) that reaches shared_signer once — here with a signature that then fails at the
// reservation (reserve larger than what is left) on a not-yet-bound (version-1) state file — leaves
// its signer registered; the genuine key A, loaded from its own file in the same process, then
// picks up B's signer (SigningSession::begin, lms/signing_session.cpp) while its state handle binds A's
// levels. A's signature is made with B's lower levels: a different child public key under
// top-level leaf 0 than every later genuine signature at that leaf (one-time key reuse, both
// verify), and — B's level 2 being W2, larger than A's W4 — a signature longer than the size the
// provider reported, copied into the caller's buffer (finish_sign memcpy): a heap overflow with a
// buffer of the queried size.
TEST(EvpLevelsBinding, AGenuineKeyNeverSignsWithAnotherKeyFilesLowerLevels) {
  ::setenv("KLMS_ALLOW_SEEDED_KEYS", "1", 1);
  OSSL_LIB_CTX* libctx = load_library_context(true);
  ASSERT_NE(libctx, nullptr) << error_text();
  PrivateDir dir;
  ::setenv("KLMS_STATE_DIR", dir.path().c_str(), 1);
  const std::string state = dir.file("two.state");
  Pkey generated = generate(libctx, {{"lms", "LMS_SHA256_M32_H5,LMS_SHA256_M32_H5"},
                                     {"ots", "LMOTS_SHA256_N32_W4,LMOTS_SHA256_N32_W4"},
                                     {"state-file", state}});
  ASSERT_TRUE(generated) << error_text();
  const Bytes der = der_of(generated.get());
  ASSERT_FALSE(der.empty());
  generated.reset();
  ASSERT_TRUE(make_version_1(state));

  // The private-key octets: "KLMS" 01 02 | lms1 ots1 | lms2 ots2 | ... — change ots2 from W4 (3) to W2 (2).
  const unsigned char head[] = {'K', 'L', 'M', 'S', 0x01, 0x02};
  auto at = std::search(der.begin(), der.end(), std::begin(head), std::end(head));
  ASSERT_NE(at, der.end());
  const std::size_t ots2 = static_cast<std::size_t>(at - der.begin()) + 6 + 8 + 4;
  ASSERT_EQ(be32(der.data() + ots2), 3u);
  Bytes altered_der = der;
  altered_der[ots2 + 3] = 2;

  Pkey genuine = from_der(libctx, der);
  Pkey altered = from_der(libctx, altered_der);
  ASSERT_TRUE(genuine && altered) << error_text();

  // B: a signature that fails at the reservation (2000 > the 1024 left), after its signer was made.
  const Bytes m_b = {'b'};
  EXPECT_FALSE(sign(libctx, altered.get(), m_b, nullptr, 2000));
  ERR_clear_error();

  // A, the genuine key: index 0.
  const Bytes m0 = {'m', '0'};
  std::size_t queried = 0;
  auto sig0 = sign(libctx, genuine.get(), m0, &queried);
  ASSERT_TRUE(sig0) << error_text();
  EXPECT_TRUE(verify(libctx, genuine.get(), m0, *sig0));
  EXPECT_LE(sig0->size(), queried) << "the signature is longer than the size the provider asked for: a caller "
                                      "with a buffer of that size is overrun by "
                                   << (sig0->size() - queried) << " bytes";

  // Later (here: once B and A's signer are gone; as well: any other process), A signs index 1.
  altered.reset();
  genuine.reset();
  Pkey again = from_der(libctx, der);
  ASSERT_TRUE(again) << error_text();
  const Bytes m1 = {'m', '1'};
  auto sig1 = sign(libctx, again.get(), m1);
  ASSERT_TRUE(sig1) << error_text();
  EXPECT_TRUE(verify(libctx, again.get(), m1, *sig1));

  const TopUse a = top_use(*sig0);
  const TopUse b = top_use(*sig1);
  ASSERT_FALSE(a.child.empty());
  ASSERT_FALSE(b.child.empty());
  EXPECT_FALSE(a.q == b.q && a.child != b.child)
      << "top-level leaf " << a.q << " signed two different child public keys (child LM-OTS types "
      << be32(a.child.data() + 4) << " and " << be32(b.child.data() + 4) << "): one-time key reuse";
  again.reset();
  OSSL_LIB_CTX_free(libctx);
}

}  // namespace
