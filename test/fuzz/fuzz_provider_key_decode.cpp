// The provider's DER key decoders on arbitrary input (the provider's der.cpp, key_codec.cpp and key.cpp
// are compiled into this target): decode_spki, decode_private_key_info,
// looks_like_encrypted_private_key_info, and der::read_tlv itself.
//   - never a crash or an over-read (the input is copied into an allocation of its exact size);
//   - kOk comes with key material, kMalformed with an error, kNotOurs with nothing;
//   - what decodes re-encodes to exactly the input (encode_spki / encode_private_key_info), or to
//     the RFC 8708 form (public key in an OCTET STRING inside the BIT STRING) when the input used it;
//     the re-encoding decodes to the same key;
//   - the three structures exclude each other (SPKI, OneAsymmetricKey, EncryptedPrivateKeyInfo);
//   - a TLV read_tlv accepts is in minimal DER: append_tlv writes the same bytes back.
// decrypt_private_key_info is left out: its PBKDF2 iteration count comes from the input, and the
// decryption is OpenSSL's.
#include <memory>

#include "provider/der.h"
#include "provider/key_codec.h"
#include "provider/names.h"
#include "test/fuzz/fuzz_util.h"

using klms::fuzz::same_bytes;
using klms::ByteView;
using klms::Bytes;
using klms::Error;
namespace der = klms::provider::der;
using klms::provider::DecodeStatus;

namespace {

// RFC 8708 BIT STRING contents: 0 unused bits, then OCTET STRING { raw key }.
Bytes rfc8708_bits(const Bytes& raw) {
  Bytes bits{0};
  der::append_tlv(bits, der::kOctetString, raw.data(), raw.size());
  return bits;
}

Bytes rfc8708_spki(const Bytes& raw) {
  Bytes body(klms::provider::kHssAlgorithmIdDer,
             klms::provider::kHssAlgorithmIdDer + sizeof klms::provider::kHssAlgorithmIdDer);
  const Bytes bits = rfc8708_bits(raw);
  der::append_tlv(body, der::kBitString, bits.data(), bits.size());
  Bytes out;
  der::append_tlv(out, der::kSequence, body.data(), body.size());
  return out;
}

Bytes rfc8708_private_key_info(const klms::provider::KeyMaterial& key) {
  const klms::lms::SecretBytes inner = klms::lms::encode_private_key(*key.private_key);
  Bytes body;
  const std::uint8_t version = 1;
  der::append_tlv(body, der::kInteger, &version, 1);
  klms::append_bytes(body, klms::provider::kHssAlgorithmIdDer, sizeof klms::provider::kHssAlgorithmIdDer);
  der::append_tlv(body, der::kOctetString, inner.data(), inner.size());
  const Bytes bits = rfc8708_bits(key.public_key);
  der::append_tlv(body, der::kContext1Prim, bits.data(), bits.size());
  Bytes out;
  der::append_tlv(out, der::kSequence, body.data(), body.size());
  return out;
}

void check_material(const klms::provider::KeyMaterial& m) {
  auto parsed = klms::lms::parse_hss_public_key(m.public_key);
  FUZZ_CHECK(parsed);
  FUZZ_CHECK(parsed->levels == m.levels && parsed->top.params.lms == m.top.lms && parsed->top.params.ots == m.top.ots);
  FUZZ_CHECK(m.max_signature_bytes() > 0);
}

bool check_spki(ByteView in) {
  std::shared_ptr<const klms::provider::KeyMaterial> out;
  Error error = Error::kOk;
  const DecodeStatus s = klms::provider::decode_spki(in, klms::provider::KeyScheme::kHss, out, error);
  if (s == DecodeStatus::kNotOurs) {
    FUZZ_CHECK(!out);
    return false;
  }
  if (s == DecodeStatus::kMalformed) {
    FUZZ_CHECK(!out && error != Error::kOk);
    return false;
  }
  FUZZ_CHECK(out && error == Error::kOk && !out->has_private());
  check_material(*out);
  const Bytes encoded = klms::provider::encode_spki(*out);
  FUZZ_CHECK(same_bytes(encoded, in) || same_bytes(rfc8708_spki(out->public_key), in));
  std::shared_ptr<const klms::provider::KeyMaterial> again;
  FUZZ_CHECK(klms::provider::decode_spki(encoded, klms::provider::KeyScheme::kHss, again, error) == DecodeStatus::kOk);
  FUZZ_CHECK(again && again->public_key == out->public_key && again->key_id == out->key_id);
  return true;
}

bool check_private_key_info(ByteView in) {
  std::shared_ptr<const klms::provider::KeyMaterial> out;
  Error error = Error::kOk;
  const DecodeStatus s = klms::provider::decode_private_key_info(in, klms::provider::KeyScheme::kHss, out, error);
  if (s == DecodeStatus::kNotOurs) {
    FUZZ_CHECK(!out);
    return false;
  }
  if (s == DecodeStatus::kMalformed) {
    FUZZ_CHECK(!out && error != Error::kOk);
    return false;
  }
  FUZZ_CHECK(out && error == Error::kOk && out->has_private());
  check_material(*out);
  FUZZ_CHECK(out->private_key->levels.size() == out->levels);
  const klms::lms::SecretBytes encoded = klms::provider::encode_private_key_info(*out);
  const ByteView encoded_view(encoded.data(), encoded.size());
  FUZZ_CHECK(same_bytes(encoded_view, in) || same_bytes(rfc8708_private_key_info(*out), in));
  std::shared_ptr<const klms::provider::KeyMaterial> again;
  FUZZ_CHECK(klms::provider::decode_private_key_info(encoded_view, klms::provider::KeyScheme::kHss, again, error) == DecodeStatus::kOk);
  FUZZ_CHECK(again && again->public_key == out->public_key && again->private_key->state_file == out->private_key->state_file);
  return true;
}

void check_read_tlv(ByteView in) {
  if (in.empty()) return;
  const std::uint8_t tag = in[0];
  ByteView rest = in, content;
  if (!der::read_tlv(rest, tag, content)) {
    FUZZ_CHECK(rest.data() == in.data() && rest.size() == in.size());  // untouched on failure
    return;
  }
  FUZZ_CHECK(klms::fuzz::within(content, in) && klms::fuzz::within(rest, in));
  const std::size_t consumed = in.size() - rest.size();
  FUZZ_CHECK(content.data() + content.size() == in.data() + consumed);
  Bytes again;
  der::append_tlv(again, tag, content.data(), content.size());
  FUZZ_CHECK(same_bytes(again, in.first(consumed)));
  FUZZ_CHECK(der::peek_tag(rest) == (rest.empty() ? -1 : rest[0]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::unique_ptr<std::uint8_t[]> copy(size ? new std::uint8_t[size] : nullptr);
  if (size) std::memcpy(copy.get(), data, size);
  const ByteView in(copy.get(), size);

  const bool spki = check_spki(in);
  const bool pkcs8 = check_private_key_info(in);
  const bool encrypted = klms::provider::looks_like_encrypted_private_key_info(in);
  FUZZ_CHECK(int{spki} + int{pkcs8} + int{encrypted} <= 1);
  if (encrypted) {
    ByteView rest = in, info, algorithm, octets;
    FUZZ_CHECK(der::read_tlv(rest, der::kSequence, info) && rest.empty());
    FUZZ_CHECK(der::read_tlv(info, der::kSequence, algorithm) && der::read_tlv(info, der::kOctetString, octets) &&
               info.empty());
  }
  check_read_tlv(in);
  return 0;
}
