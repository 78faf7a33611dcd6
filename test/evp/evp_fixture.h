// The fixture of klms-evp-test's API tests (evp_*_test.cpp): the provider loaded from
// $OPENSSL_CONF into a library context of the suite's own, a private 0700 directory per test (also
// KLMS_STATE_DIR), and key generation, signing and verification through EVP as an application
// calls them (the gtest-free helpers it builds on, shared with klms-evp-signer: evp_util.h).
#pragma once

#include <sys/stat.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/pem.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "test/evp/evp_util.h"

namespace klms::evptest {

using Bytes = std::vector<unsigned char>;

constexpr const char* kH5 = "LMS_SHA256_M32_H5";
constexpr const char* kW4 = "LMOTS_SHA256_N32_W4";

inline Bytes bytes_of(const std::string& s) { return Bytes(s.begin(), s.end()); }

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A private (0700) directory under $TMPDIR or /tmp, removed at the end.
class PrivateDir {
 public:
  PrivateDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/klms-evp-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) != nullptr) path_ = buf.data();
    ::chmod(path_.c_str(), 0700);
  }
  ~PrivateDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
struct MdFree {
  void operator()(EVP_MD_CTX* p) const { EVP_MD_CTX_free(p); }
};
using Md = std::unique_ptr<EVP_MD_CTX, MdFree>;

struct SignOptions {
  std::optional<std::uint64_t> reserve;
  std::string state_file;
};

// Fills `out` with the signature context parameters of `o` (kept alive by `o` and `reserve`).
inline void make_params(const SignOptions& o, std::uint64_t& reserve, OSSL_PARAM out[3]) {
  std::size_t n = 0;
  if (o.reserve) {
    reserve = *o.reserve;
    out[n++] = OSSL_PARAM_construct_uint64("reserve", &reserve);
  }
  if (!o.state_file.empty()) {
    out[n++] = OSSL_PARAM_construct_utf8_string("state-file", const_cast<char*>(o.state_file.c_str()), 0);
  }
  out[n] = OSSL_PARAM_construct_end();
}

class EvpTest : public ::testing::Test {
 protected:
  inline static OSSL_LIB_CTX* libctx = nullptr;
  PrivateDir dir;

  static void SetUpTestSuite() {
    libctx = load_library_context(true);
    ASSERT_NE(libctx, nullptr) << "cannot load the klms provider: " << error_text();
  }
  static void TearDownTestSuite() {
    OSSL_LIB_CTX_free(libctx);
    libctx = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(libctx, nullptr) << "the klms provider did not load";
    ASSERT_FALSE(dir.path().empty());
    ::setenv("KLMS_STATE_DIR", dir.path().c_str(), 1);
    ::setenv("KLMS_ALLOW_SEEDED_KEYS", "1", 1);
    ERR_clear_error();
  }
  void TearDown() override { ERR_clear_error(); }

  // Key generation through EVP_PKEY_CTX with OSSL_PARAMs; null (errors queued) on failure.
  static Pkey generate(OSSL_LIB_CTX* ctx, const std::vector<std::pair<std::string, std::string>>& utf8,
                       const Bytes* seed = nullptr, const Bytes* identifier = nullptr) {
    EVP_PKEY_CTX* gen = EVP_PKEY_CTX_new_from_name(ctx, "HSS-LMS", nullptr);
    if (gen == nullptr) return nullptr;
    std::vector<OSSL_PARAM> params;
    for (const auto& [k, v] : utf8) {
      params.push_back(OSSL_PARAM_construct_utf8_string(k.c_str(), const_cast<char*>(v.c_str()), 0));
    }
    if (seed != nullptr) {
      params.push_back(OSSL_PARAM_construct_octet_string("seed", const_cast<unsigned char*>(seed->data()), seed->size()));
    }
    if (identifier != nullptr) {
      params.push_back(OSSL_PARAM_construct_octet_string("identifier", const_cast<unsigned char*>(identifier->data()),
                                                         identifier->size()));
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

  Pkey h5_key(const std::string& name, const char* ots = kW4) {
    Pkey k = generate(libctx, {{"lms", kH5}, {"ots", ots}, {"state-file", dir.file(name)}});
    EXPECT_TRUE(k) << error_text();
    return k;
  }

  static std::uint64_t remaining(const EVP_PKEY* k) {
    std::uint64_t v = ~std::uint64_t{0};
    EXPECT_TRUE(uint64_param(k, "remaining-signatures", v)) << error_text();
    return v;
  }

  // DigestSignInit with the options; null on failure.
  static Md sign_init(OSSL_LIB_CTX* ctx, EVP_PKEY* k, const SignOptions& o = {}) {
    Md md(EVP_MD_CTX_new());
    std::uint64_t reserve = 0;
    OSSL_PARAM params[3];
    make_params(o, reserve, params);
    if (EVP_DigestSignInit_ex(md.get(), nullptr, nullptr, ctx, nullptr, k, params) != 1) return nullptr;
    return md;
  }

  // One-shot EVP_DigestSign; nullopt on failure (errors stay queued).
  static std::optional<Bytes> sign(EVP_PKEY* k, const Bytes& msg, const SignOptions& o = {},
                                   OSSL_LIB_CTX* ctx = nullptr) {
    Md md = sign_init(ctx != nullptr ? ctx : libctx, k, o);
    if (!md) return std::nullopt;
    size_t len = 0;
    if (EVP_DigestSign(md.get(), nullptr, &len, msg.data(), msg.size()) != 1) return std::nullopt;
    Bytes sig(len);
    if (EVP_DigestSign(md.get(), sig.data(), &len, msg.data(), msg.size()) != 1) return std::nullopt;
    sig.resize(len);
    return sig;
  }

  // Streaming: the message in `chunk`-byte updates, then EVP_DigestSignFinal.
  static std::optional<Bytes> sign_streaming(EVP_PKEY* k, const Bytes& msg, std::size_t chunk) {
    Md md = sign_init(libctx, k);
    if (!md) return std::nullopt;
    for (std::size_t off = 0; off < msg.size(); off += chunk) {
      if (EVP_DigestSignUpdate(md.get(), msg.data() + off, std::min(chunk, msg.size() - off)) != 1) return std::nullopt;
    }
    return final_sign(md.get());
  }

  // EVP_DigestSignFinal with a buffer of the queried size (or `size` when given).
  static std::optional<Bytes> final_sign(EVP_MD_CTX* md, std::optional<std::size_t> size = std::nullopt) {
    size_t len = 0;
    if (EVP_DigestSignFinal(md, nullptr, &len) != 1) return std::nullopt;
    Bytes sig(size ? *size : len);
    len = sig.size();
    if (EVP_DigestSignFinal(md, sig.data(), &len) != 1) return std::nullopt;
    sig.resize(len);
    return sig;
  }

  static bool verify(EVP_PKEY* k, const Bytes& msg, const Bytes& sig) {
    Md md(EVP_MD_CTX_new());
    const bool ok = EVP_DigestVerifyInit_ex(md.get(), nullptr, nullptr, libctx, nullptr, k, nullptr) == 1 &&
                    EVP_DigestVerify(md.get(), sig.data(), sig.size(), msg.data(), msg.size()) == 1;
    ERR_clear_error();
    return ok;
  }

  static std::uint64_t q_of(EVP_PKEY* k, const Bytes& sig) {
    std::uint64_t q = ~std::uint64_t{0};
    EXPECT_TRUE(signature_index(key_shape(k), sig.data(), sig.size(), q)) << "signature of " << sig.size() << " bytes";
    return q;
  }

  static std::string pem(EVP_PKEY* k) {
    BIO* bio = BIO_new(BIO_s_mem());
    std::string out;
    if (PEM_write_bio_PrivateKey(bio, k, nullptr, nullptr, 0, nullptr, nullptr) == 1) {
      char* data = nullptr;
      const long len = BIO_get_mem_data(bio, &data);
      out.assign(data, static_cast<std::size_t>(len));
    }
    BIO_free(bio);
    return out;
  }

  static Pkey decode(OSSL_LIB_CTX* ctx, const std::string& pem_text) {
    BIO* bio = BIO_new_mem_buf(pem_text.data(), static_cast<int>(pem_text.size()));
    EVP_PKEY* k = PEM_read_bio_PrivateKey_ex(bio, nullptr, nullptr, nullptr, ctx, nullptr);
    BIO_free(bio);
    return Pkey(k);
  }
};

}  // namespace klms::evptest
