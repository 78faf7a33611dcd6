#include "provider/der.h"

namespace klms::provider::der {

bool read_tlv(klms::ByteView& in, std::uint8_t tag, klms::ByteView& content) noexcept {
  if (in.size() < 2 || in[0] != tag) return false;
  std::size_t len = in[1];
  std::size_t header = 2;
  if (len & 0x80) {
    const std::size_t n = len & 0x7F;
    if (n == 0 || n > 4 || in.size() < 2 + n) return false;  // no indefinite length; < 4 GiB
    len = 0;
    for (std::size_t i = 0; i < n; ++i) len = len << 8 | in[2 + i];
    if (in[2] == 0 || len < 0x80) return false;  // minimal encoding only
    header += n;
  }
  if (in.size() - header < len) return false;
  content = in.subspan(header, len);
  in = in.subspan(header + len);
  return true;
}

int peek_tag(klms::ByteView in) noexcept { return in.empty() ? -1 : in[0]; }

}  // namespace klms::provider::der
