#include "pkcs11/spki.h"

namespace klms::pkcs11 {
namespace {

// DER tag, length (X.690 §8.1.3: short form below 128, else the long form), contents.
void put_tlv(Bytes& out, std::uint8_t tag, const Bytes& contents) {
  out.push_back(tag);
  const std::size_t n = contents.size();
  if (n < 0x80) {
    out.push_back(static_cast<std::uint8_t>(n));
  } else {
    std::uint8_t len[sizeof(std::size_t)];
    int k = 0;
    for (std::size_t v = n; v != 0; v >>= 8) len[k++] = static_cast<std::uint8_t>(v & 0xff);
    out.push_back(static_cast<std::uint8_t>(0x80 | k));
    while (k > 0) out.push_back(len[--k]);
  }
  out.insert(out.end(), contents.begin(), contents.end());
}

}  // namespace

Bytes hss_spki(ByteView raw_public_key) {
  // 1.2.840.113549.1.9.16.3.17: 42 86 48 86 F7 0D 01 09 10 03 11 (X.690 §8.19).
  static const std::uint8_t kOid[] = {0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x10, 0x03, 0x11};
  Bytes oid;
  put_tlv(oid, 0x06, Bytes(kOid, kOid + sizeof kOid));
  Bytes algorithm;
  put_tlv(algorithm, 0x30, oid);
  Bytes bits{0x00};
  bits.insert(bits.end(), raw_public_key.begin(), raw_public_key.end());
  Bytes body = algorithm;
  put_tlv(body, 0x03, bits);
  Bytes out;
  put_tlv(out, 0x30, body);
  return out;
}

}  // namespace klms::pkcs11
