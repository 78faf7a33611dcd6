#include "provider/key_codec.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

#include <cstring>
#include <memory>

#include "provider/der.h"
#include "provider/names.h"

namespace klms::provider {
namespace {

// Every OpenSSL object here is owned by one of these, so nothing leaks if something throws.
struct CipherFree {
  void operator()(EVP_CIPHER* c) const noexcept { EVP_CIPHER_free(c); }
};
using CipherPtr = std::unique_ptr<EVP_CIPHER, CipherFree>;
struct AlgorithmFree {
  void operator()(X509_ALGOR* a) const noexcept { X509_ALGOR_free(a); }
};
using AlgorithmPtr = std::unique_ptr<X509_ALGOR, AlgorithmFree>;
// OPENSSL_malloc'd bytes that are not secret.
struct OpensslFree {
  void operator()(unsigned char* p) const noexcept { OPENSSL_free(p); }
};
using OpensslBytes = std::unique_ptr<unsigned char, OpensslFree>;
// OPENSSL_malloc'd secret bytes: cleansed before they are freed.
struct ClearFree {
  std::size_t len = 0;
  void operator()(unsigned char* p) const noexcept { OPENSSL_clear_free(p, len); }
};
using ClearedBytes = std::unique_ptr<unsigned char, ClearFree>;

// Our AlgorithmIdentifier is exactly { the scheme's OID } (parameters absent, RFC 9708, RFC 9802).
enum class AlgorithmMatch { kOther, kOurs, kOursWithParameters };
AlgorithmMatch match_algorithm(klms::ByteView algorithm_content, KeyScheme scheme) {
  klms::ByteView oid;
  klms::ByteView rest = algorithm_content;
  if (!der::read_tlv(rest, der::kOid, oid)) return AlgorithmMatch::kOther;
  const klms::ByteView ours = scheme_identity(scheme).oid_der.subspan(2);
  if (oid.size() != ours.size() || std::memcmp(oid.data(), ours.data(), oid.size()) != 0) {
    return AlgorithmMatch::kOther;
  }
  return rest.empty() ? AlgorithmMatch::kOurs : AlgorithmMatch::kOursWithParameters;
}

// The BIT STRING of an SPKI or of publicKey [1]: no unused bits; the raw key, or (RFC 8708) an
// OCTET STRING holding it.
bool public_key_from_bits(klms::ByteView bits, klms::ByteView& key) {
  if (bits.empty() || bits[0] != 0) return false;
  key = bits.subspan(1);
  if (der::peek_tag(key) == der::kOctetString) {
    klms::ByteView inner, rest = key;
    if (!der::read_tlv(rest, der::kOctetString, inner) || !rest.empty()) return false;
    key = inner;
  }
  return true;
}

template <typename Out>
void append_bits(Out& out, std::uint8_t tag, const klms::Bytes& key) {
  klms::Bytes bits;
  bits.push_back(0);
  klms::append(bits, key);
  der::append_tlv(out, tag, bits.data(), bits.size());
}

}  // namespace

klms::Bytes encode_spki(const KeyMaterial& key) {
  const klms::ByteView algorithm = key.identity().algorithm_der;
  klms::Bytes body(algorithm.begin(), algorithm.end());
  append_bits(body, der::kBitString, key.public_key);
  klms::Bytes out;
  der::append_tlv(out, der::kSequence, body.data(), body.size());
  return out;
}

lms::SecretBytes encode_private_key_info(const KeyMaterial& key) {
  const lms::SecretBytes inner = key.xmss_private_key ? xmss::encode_private_key(*key.xmss_private_key)
                                                      : lms::encode_private_key(*key.private_key);
  lms::SecretBytes body;
  const std::uint8_t version = 1;  // v2: OneAsymmetricKey with publicKey
  der::append_tlv(body, der::kInteger, &version, 1);
  const klms::ByteView algorithm = key.identity().algorithm_der;
  klms::append_bytes(body, algorithm.data(), algorithm.size());
  der::append_tlv(body, der::kOctetString, inner.data(), inner.size());
  append_bits(body, der::kContext1Prim, key.public_key);
  lms::SecretBytes out;
  der::append_tlv(out, der::kSequence, body.data(), body.size());
  return out;
}

DecodeStatus decode_spki(klms::ByteView in, KeyScheme scheme, std::shared_ptr<const KeyMaterial>& out,
                         klms::Error& error) {
  klms::ByteView spki, algorithm, bits;
  if (!der::read_tlv(in, der::kSequence, spki) || !in.empty()) return DecodeStatus::kNotOurs;
  if (!der::read_tlv(spki, der::kSequence, algorithm)) return DecodeStatus::kNotOurs;
  switch (match_algorithm(algorithm, scheme)) {
    case AlgorithmMatch::kOther: return DecodeStatus::kNotOurs;
    case AlgorithmMatch::kOursWithParameters: error = klms::Error::kMalformedPublicKey; return DecodeStatus::kMalformed;
    case AlgorithmMatch::kOurs: break;
  }
  klms::ByteView key;
  if (!der::read_tlv(spki, der::kBitString, bits) || !spki.empty() || !public_key_from_bits(bits, key)) {
    error = klms::Error::kMalformedPublicKey;
    return DecodeStatus::kMalformed;
  }
  out = make_public_material(scheme, key, error);
  return out ? DecodeStatus::kOk : DecodeStatus::kMalformed;
}

DecodeStatus decode_private_key_info(klms::ByteView in, KeyScheme scheme, std::shared_ptr<const KeyMaterial>& out,
                                     klms::Error& error) {
  klms::ByteView info, version, algorithm, octets, bits;
  if (!der::read_tlv(in, der::kSequence, info) || !in.empty()) return DecodeStatus::kNotOurs;
  if (!der::read_tlv(info, der::kInteger, version) || !der::read_tlv(info, der::kSequence, algorithm)) {
    return DecodeStatus::kNotOurs;
  }
  const AlgorithmMatch match = match_algorithm(algorithm, scheme);
  if (match == AlgorithmMatch::kOther) return DecodeStatus::kNotOurs;
  error = klms::Error::kMalformedPrivateKey;
  if (match == AlgorithmMatch::kOursWithParameters) return DecodeStatus::kMalformed;
  if (version.size() != 1 || version[0] != 1) return DecodeStatus::kMalformed;  // v2 only: we need publicKey
  if (!der::read_tlv(info, der::kOctetString, octets)) return DecodeStatus::kMalformed;
  if (der::peek_tag(info) == der::kContext0) return DecodeStatus::kMalformed;  // no attributes in our keys
  klms::ByteView key;
  if (!der::read_tlv(info, der::kContext1Prim, bits) || !info.empty() || !public_key_from_bits(bits, key)) {
    return DecodeStatus::kMalformed;
  }
  if (scheme != KeyScheme::kHss) {
    auto decoded = xmss::decode_private_key(octets);
    if (!decoded) {
      error = decoded.error();
      return DecodeStatus::kMalformed;
    }
    // The private key's own scheme must be the OID's.
    if ((decoded->params->scheme == xmss::Scheme::kXmssMt) != (scheme == KeyScheme::kXmssMt)) {
      error = klms::Error::kMalformedPrivateKey;
      return DecodeStatus::kMalformed;
    }
    out = make_xmss_private_material(std::move(*decoded), key, error);
    return out ? DecodeStatus::kOk : DecodeStatus::kMalformed;
  }
  auto decoded = lms::decode_private_key(octets);
  if (!decoded) {
    error = decoded.error();
    return DecodeStatus::kMalformed;
  }
  out = make_private_material(std::move(*decoded), key, error);
  return out ? DecodeStatus::kOk : DecodeStatus::kMalformed;
}

bool encrypt_private_key_info(OSSL_LIB_CTX* libctx, const char* cipher_name, const char* propq,
                              const lms::SecretBytes& plain, const char* pass, std::size_t pass_len, klms::Bytes& out) {
  const CipherPtr cipher(EVP_CIPHER_fetch(libctx, cipher_name, propq));
  if (!cipher) return false;
  const AlgorithmPtr algorithm(
      PKCS5_pbe2_set_iv_ex(cipher.get(), PKCS5_DEFAULT_ITER, nullptr, 0, nullptr, NID_hmacWithSHA256, libctx));
  if (!algorithm) return false;
  unsigned char* encrypted_raw = nullptr;
  int encrypted_len = 0;
  if (PKCS12_pbe_crypt_ex(algorithm.get(), pass, static_cast<int>(pass_len), plain.data(),
                          static_cast<int>(plain.size()), &encrypted_raw, &encrypted_len, 1, libctx, propq) == nullptr) {
    return false;
  }
  const OpensslBytes encrypted(encrypted_raw);  // ciphertext: not secret
  unsigned char* algorithm_raw = nullptr;
  const int algorithm_len = i2d_X509_ALGOR(algorithm.get(), &algorithm_raw);
  const OpensslBytes algorithm_der(algorithm_raw);
  if (algorithm_len <= 0 || encrypted_len < 0) return false;
  klms::Bytes body(algorithm_der.get(), algorithm_der.get() + algorithm_len);
  der::append_tlv(body, der::kOctetString, encrypted.get(), static_cast<std::size_t>(encrypted_len));
  out.clear();
  der::append_tlv(out, der::kSequence, body.data(), body.size());
  return true;
}

bool looks_like_encrypted_private_key_info(klms::ByteView in) noexcept {
  klms::ByteView info, algorithm, data;
  return der::read_tlv(in, der::kSequence, info) && in.empty() && der::read_tlv(info, der::kSequence, algorithm) &&
         der::read_tlv(info, der::kOctetString, data) && info.empty();
}

DecodeStatus decrypt_private_key_info(OSSL_LIB_CTX* libctx, klms::ByteView in, const char* pass, std::size_t pass_len,
                                      lms::SecretBytes& plain) {
  klms::ByteView info, algorithm_content, data;
  if (!der::read_tlv(in, der::kSequence, info) || !in.empty()) return DecodeStatus::kNotOurs;
  const std::uint8_t* algorithm_start = info.data();
  if (!der::read_tlv(info, der::kSequence, algorithm_content) || !der::read_tlv(info, der::kOctetString, data) ||
      !info.empty()) {
    return DecodeStatus::kNotOurs;
  }
  const unsigned char* p = algorithm_start;
  const AlgorithmPtr algorithm(
      d2i_X509_ALGOR(nullptr, &p, static_cast<long>(algorithm_content.data() + algorithm_content.size() - algorithm_start)));
  if (!algorithm) return DecodeStatus::kNotOurs;
  unsigned char* out_raw = nullptr;
  int out_len = 0;
  const bool ok = PKCS12_pbe_crypt_ex(algorithm.get(), pass, static_cast<int>(pass_len), data.data(),
                                      static_cast<int>(data.size()), &out_raw, &out_len, 0, libctx, nullptr) != nullptr;
  // The decrypted key: cleansed and freed on every exit, also if the copy below throws.
  const ClearedBytes decrypted(out_raw, ClearFree{out_raw == nullptr || out_len < 0 ? 0 : static_cast<std::size_t>(out_len)});
  if (!ok || out_len < 0) return DecodeStatus::kMalformed;
  plain.assign(decrypted.get(), decrypted.get() + out_len);
  return DecodeStatus::kOk;
}

}  // namespace klms::provider
