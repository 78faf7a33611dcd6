#include "provider/key_codec.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

#include <cstring>

#include "provider/der.h"
#include "provider/names.h"

namespace klms::provider {
namespace {

// Our AlgorithmIdentifier is exactly { id-alg-hss-lms-hashsig } (parameters absent, RFC 9708).
enum class AlgorithmMatch { kOther, kOurs, kOursWithParameters };
AlgorithmMatch match_algorithm(klms::ByteView algorithm_content) {
  klms::ByteView oid;
  klms::ByteView rest = algorithm_content;
  if (!der::read_tlv(rest, der::kOid, oid)) return AlgorithmMatch::kOther;
  if (oid.size() != sizeof kHssOidDer - 2 || std::memcmp(oid.data(), kHssOidDer + 2, oid.size()) != 0) {
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
  klms::Bytes body(kHssAlgorithmIdDer, kHssAlgorithmIdDer + sizeof kHssAlgorithmIdDer);
  append_bits(body, der::kBitString, key.public_key);
  klms::Bytes out;
  der::append_tlv(out, der::kSequence, body.data(), body.size());
  return out;
}

lms::SecretBytes encode_private_key_info(const KeyMaterial& key) {
  const lms::SecretBytes inner = lms::encode_private_key(*key.private_key);
  lms::SecretBytes body;
  const std::uint8_t version = 1;  // v2: OneAsymmetricKey with publicKey
  der::append_tlv(body, der::kInteger, &version, 1);
  klms::append_bytes(body, kHssAlgorithmIdDer, sizeof kHssAlgorithmIdDer);
  der::append_tlv(body, der::kOctetString, inner.data(), inner.size());
  append_bits(body, der::kContext1Prim, key.public_key);
  lms::SecretBytes out;
  der::append_tlv(out, der::kSequence, body.data(), body.size());
  return out;
}

DecodeStatus decode_spki(klms::ByteView in, std::shared_ptr<const KeyMaterial>& out, klms::Error& error) {
  klms::ByteView spki, algorithm, bits;
  if (!der::read_tlv(in, der::kSequence, spki) || !in.empty()) return DecodeStatus::kNotOurs;
  if (!der::read_tlv(spki, der::kSequence, algorithm)) return DecodeStatus::kNotOurs;
  switch (match_algorithm(algorithm)) {
    case AlgorithmMatch::kOther: return DecodeStatus::kNotOurs;
    case AlgorithmMatch::kOursWithParameters: error = klms::Error::kMalformedPublicKey; return DecodeStatus::kMalformed;
    case AlgorithmMatch::kOurs: break;
  }
  klms::ByteView key;
  if (!der::read_tlv(spki, der::kBitString, bits) || !spki.empty() || !public_key_from_bits(bits, key)) {
    error = klms::Error::kMalformedPublicKey;
    return DecodeStatus::kMalformed;
  }
  out = make_public_material(key, error);
  return out ? DecodeStatus::kOk : DecodeStatus::kMalformed;
}

DecodeStatus decode_private_key_info(klms::ByteView in, std::shared_ptr<const KeyMaterial>& out, klms::Error& error) {
  klms::ByteView info, version, algorithm, octets, bits;
  if (!der::read_tlv(in, der::kSequence, info) || !in.empty()) return DecodeStatus::kNotOurs;
  if (!der::read_tlv(info, der::kInteger, version) || !der::read_tlv(info, der::kSequence, algorithm)) {
    return DecodeStatus::kNotOurs;
  }
  const AlgorithmMatch match = match_algorithm(algorithm);
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
  EVP_CIPHER* cipher = EVP_CIPHER_fetch(libctx, cipher_name, propq);
  if (cipher == nullptr) return false;
  X509_ALGOR* algorithm =
      PKCS5_pbe2_set_iv_ex(cipher, PKCS5_DEFAULT_ITER, nullptr, 0, nullptr, NID_hmacWithSHA256, libctx);
  EVP_CIPHER_free(cipher);
  if (algorithm == nullptr) return false;
  unsigned char* encrypted = nullptr;
  int encrypted_len = 0;
  bool ok = PKCS12_pbe_crypt_ex(algorithm, pass, static_cast<int>(pass_len), plain.data(),
                                static_cast<int>(plain.size()), &encrypted, &encrypted_len, 1, libctx, propq) != nullptr;
  unsigned char* algorithm_der = nullptr;
  const int algorithm_len = ok ? i2d_X509_ALGOR(algorithm, &algorithm_der) : -1;
  if (ok && algorithm_len > 0) {
    klms::Bytes body(algorithm_der, algorithm_der + algorithm_len);
    der::append_tlv(body, der::kOctetString, encrypted, static_cast<std::size_t>(encrypted_len));
    out.clear();
    der::append_tlv(out, der::kSequence, body.data(), body.size());
  } else {
    ok = false;
  }
  OPENSSL_free(algorithm_der);
  OPENSSL_free(encrypted);
  X509_ALGOR_free(algorithm);
  return ok;
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
  X509_ALGOR* algorithm =
      d2i_X509_ALGOR(nullptr, &p, static_cast<long>(algorithm_content.data() + algorithm_content.size() - algorithm_start));
  if (algorithm == nullptr) return DecodeStatus::kNotOurs;
  unsigned char* out = nullptr;
  int out_len = 0;
  const bool ok = PKCS12_pbe_crypt_ex(algorithm, pass, static_cast<int>(pass_len), data.data(),
                                      static_cast<int>(data.size()), &out, &out_len, 0, libctx, nullptr) != nullptr;
  X509_ALGOR_free(algorithm);
  if (!ok) return DecodeStatus::kMalformed;
  plain.assign(out, out + out_len);
  OPENSSL_clear_free(out, static_cast<std::size_t>(out_len));
  return DecodeStatus::kOk;
}

}  // namespace klms::provider
