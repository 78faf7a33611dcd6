#include "pkcs11/pin_crypto.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

#include <atomic>
#include <memory>

namespace klms::pkcs11 {
namespace {

// Made at the first use, never freed (an application may still call us from another thread while
// it exits). Two threads racing make two; the loser's is freed.
OSSL_LIB_CTX* libctx() noexcept {
  static std::atomic<OSSL_LIB_CTX*> ctx{nullptr};
  OSSL_LIB_CTX* have = ctx.load(std::memory_order_acquire);
  if (have != nullptr) return have;
  OSSL_LIB_CTX* fresh = OSSL_LIB_CTX_new();
  if (fresh == nullptr) return nullptr;
  if (OSSL_PROVIDER_load(fresh, "default") == nullptr) {
    OSSL_LIB_CTX_free(fresh);
    return nullptr;
  }
  if (!ctx.compare_exchange_strong(have, fresh)) {
    OSSL_LIB_CTX_free(fresh);
    return have;
  }
  return fresh;
}

struct KdfFree {
  void operator()(EVP_KDF* k) const noexcept { EVP_KDF_free(k); }
  void operator()(EVP_KDF_CTX* c) const noexcept { EVP_KDF_CTX_free(c); }
  void operator()(EVP_CIPHER* c) const noexcept { EVP_CIPHER_free(c); }
  void operator()(EVP_CIPHER_CTX* c) const noexcept { EVP_CIPHER_CTX_free(c); }
};

std::unique_ptr<EVP_CIPHER, KdfFree> gcm() noexcept {
  return std::unique_ptr<EVP_CIPHER, KdfFree>(EVP_CIPHER_fetch(libctx(), "AES-256-GCM", nullptr));
}

}  // namespace

bool scrypt_cost_valid(const ScryptCost& cost) noexcept {
  return cost.log_n >= kMinLogN && cost.log_n <= kMaxLogN && cost.r >= 1 && cost.r <= 32 && cost.p >= 1 &&
         cost.p <= 16;
}

bool derive_key(ByteView pin, ByteView salt, const ScryptCost& cost, TokenKey& out) noexcept {
  if (!scrypt_cost_valid(cost)) return false;
  std::unique_ptr<EVP_KDF, KdfFree> kdf(EVP_KDF_fetch(libctx(), "SCRYPT", nullptr));
  if (!kdf) return false;
  std::unique_ptr<EVP_KDF_CTX, KdfFree> ctx(EVP_KDF_CTX_new(kdf.get()));
  if (!ctx) return false;
  std::uint64_t n = std::uint64_t{1} << cost.log_n;
  std::uint32_t r = cost.r;
  std::uint32_t p = cost.p;
  // scrypt needs 128 * r * N bytes (RFC 7914 §2), plus its small vectors.
  std::uint64_t maxmem = 128 * std::uint64_t{r} * n * 2 + (std::uint64_t{1} << 20);
  // OpenSSL takes the password and salt as octet strings it does not keep.
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, const_cast<std::uint8_t*>(pin.data()), pin.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, const_cast<std::uint8_t*>(salt.data()), salt.size()),
      OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_N, &n),
      OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_R, &r),
      OSSL_PARAM_construct_uint32(OSSL_KDF_PARAM_SCRYPT_P, &p),
      OSSL_PARAM_construct_uint64(OSSL_KDF_PARAM_SCRYPT_MAXMEM, &maxmem),
      OSSL_PARAM_construct_end()};
  return EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) == 1;
}

Bytes seal(const TokenKey& key, ByteView plaintext, std::string_view associated) noexcept {
  try {
    auto cipher = gcm();
    std::unique_ptr<EVP_CIPHER_CTX, KdfFree> ctx(EVP_CIPHER_CTX_new());
    if (!cipher || !ctx) return {};
    Bytes out(kNonceBytes + plaintext.size() + kTagBytes);
    if (!random_bytes(out.data(), kNonceBytes)) return {};
    int len = 0;
    if (EVP_EncryptInit_ex2(ctx.get(), cipher.get(), key.data(), out.data(), nullptr) != 1) return {};
    if (!associated.empty() &&
        EVP_EncryptUpdate(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(associated.data()),
                          static_cast<int>(associated.size())) != 1) {
      return {};
    }
    if (EVP_EncryptUpdate(ctx.get(), out.data() + kNonceBytes, &len, plaintext.data(),
                          static_cast<int>(plaintext.size())) != 1) {
      return {};
    }
    int final_len = 0;
    if (EVP_EncryptFinal_ex(ctx.get(), out.data() + kNonceBytes + len, &final_len) != 1) return {};
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                            out.data() + kNonceBytes + plaintext.size()) != 1) {
      return {};
    }
    return out;
  } catch (...) {
    return {};
  }
}

bool open_sealed(const TokenKey& key, ByteView sealed, std::string_view associated, SecretBytes& out) noexcept {
  try {
    if (sealed.size() < kNonceBytes + kTagBytes) return false;
    const std::size_t n = sealed.size() - kNonceBytes - kTagBytes;
    auto cipher = gcm();
    std::unique_ptr<EVP_CIPHER_CTX, KdfFree> ctx(EVP_CIPHER_CTX_new());
    if (!cipher || !ctx) return false;
    SecretBytes plain(n + 16);
    int len = 0;
    if (EVP_DecryptInit_ex2(ctx.get(), cipher.get(), key.data(), sealed.data(), nullptr) != 1) return false;
    if (!associated.empty() &&
        EVP_DecryptUpdate(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(associated.data()),
                          static_cast<int>(associated.size())) != 1) {
      return false;
    }
    if (EVP_DecryptUpdate(ctx.get(), plain.data(), &len, sealed.data() + kNonceBytes, static_cast<int>(n)) != 1) {
      return false;
    }
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes),
                            const_cast<std::uint8_t*>(sealed.data() + kNonceBytes + n)) != 1) {
      return false;
    }
    int final_len = 0;
    if (EVP_DecryptFinal_ex(ctx.get(), plain.data() + len, &final_len) != 1) return false;
    plain.resize(n);
    out = std::move(plain);
    return true;
  } catch (...) {
    return false;
  }
}

bool random_bytes(std::uint8_t* out, std::size_t n) noexcept {
  return RAND_bytes_ex(libctx(), out, n, 0) == 1;
}

}  // namespace klms::pkcs11
