// Just enough DER for the key encodings (SubjectPublicKeyInfo, OneAsymmetricKey): definite,
// minimal lengths, no indefinite forms, nothing read past the input.
#pragma once

#include <cstdint>
#include <vector>

#include "base/bytes.h"

namespace klms::provider::der {

inline constexpr std::uint8_t kInteger = 0x02;
inline constexpr std::uint8_t kBitString = 0x03;
inline constexpr std::uint8_t kOctetString = 0x04;
inline constexpr std::uint8_t kOid = 0x06;
inline constexpr std::uint8_t kSequence = 0x30;
inline constexpr std::uint8_t kContext0 = 0xA0;    // [0] constructed (attributes)
inline constexpr std::uint8_t kContext1Prim = 0x81;  // [1] IMPLICIT BIT STRING (publicKey)

template <typename Out>
void append_tlv(Out& out, std::uint8_t tag, const std::uint8_t* content, std::size_t len) {
  std::uint8_t header[10];
  std::size_t h = 0;
  header[h++] = tag;
  if (len < 0x80) {
    header[h++] = static_cast<std::uint8_t>(len);
  } else {
    int n = 0;
    for (std::size_t v = len; v != 0; v >>= 8) ++n;
    header[h++] = static_cast<std::uint8_t>(0x80 | n);
    while (n-- > 0) header[h++] = static_cast<std::uint8_t>(len >> (8 * n));
  }
  klms::append_bytes(out, header, h);
  klms::append_bytes(out, content, len);
}

// Reads one TLV with the expected tag from the front of `in`; false on any deviation from DER.
bool read_tlv(klms::ByteView& in, std::uint8_t tag, klms::ByteView& content) noexcept;
// The next tag, or -1 at the end.
int peek_tag(klms::ByteView in) noexcept;

}  // namespace klms::provider::der
