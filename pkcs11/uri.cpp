#include "pkcs11/uri.h"

namespace klms::pkcs11 {
namespace {

// RFC 7512 §2.3: a path attribute value is pchar minus ';' and '/'; the safe subset kept as is
// here is RFC 3986's unreserved characters, everything else percent-encoded.
void append_encoded(std::string& out, const Bytes& value) {
  static const char kHex[] = "0123456789ABCDEF";
  for (std::uint8_t b : value) {
    const bool unreserved = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '-' ||
                            b == '.' || b == '_' || b == '~';
    if (unreserved) {
      out.push_back(static_cast<char>(b));
    } else {
      out.push_back('%');
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 15]);
    }
  }
}

}  // namespace

std::string pkcs11_uri(const Bytes& token_label, const Bytes& id, bool private_key) {
  Bytes label = token_label;
  while (!label.empty() && label.back() == ' ') label.pop_back();
  std::string out = "pkcs11:token=";
  append_encoded(out, label);
  out += ";id=";
  // Every byte of an id encoded, as p11tool and OpenSSL's pkcs11-provider print them.
  static const char kHex[] = "0123456789ABCDEF";
  for (std::uint8_t b : id) {
    out.push_back('%');
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  out += private_key ? ";type=private" : ";type=public";
  return out;
}

}  // namespace klms::pkcs11
