// hss_verify on arbitrary input. Never crashes or reads past a buffer (each piece is copied into its
// own allocation, so ASan sees an over-read of any of them), returns only kOk, kVerifyFailed or a
// parse error, and returns kOk only for a genuine signature.
//
// Input: one mode byte, then
//   bit 0 clear, "free":  u16 public-key length | u16 message length | public key | message | signature
//                          (lengths beyond the input are cut to what is there);
//   bit 0 set,  "fixed":  the signature only, verified against fixed_keys.inc[(mode >> 2) % count] and
//                          its message (RFC 8554 Test Cases 1-2, RFC 9858 A.1-A.4). The only signature
//                          that may verify is the vector's own, so kOk for anything else is a forgery.
//   bit 1: cross-check: verify with every backend of the key's hash family; all must agree.
#include <openssl/sha.h>

#include <memory>

#include "hashes/backend.h"
#include "lms/verify.h"
#include "lms/wire_format.h"
#include "test/fuzz/fuzz_util.h"

namespace {

using klms::fuzz::from_hex;
using klms::fuzz::Input;
using klms::ByteView;
using klms::Bytes;
using klms::Error;

struct FixedKeySource {
  const char* name;
  const char* public_key;
  const char* message;
  const char* signature_sha256;
};
#include "test/fuzz/fixed_keys.inc"

struct FixedKey {
  Bytes public_key, message, signature_sha256;
};

const std::vector<FixedKey>& fixed_keys() {
  static const std::vector<FixedKey> keys = [] {
    std::vector<FixedKey> out;
    for (const FixedKeySource& s : kFixedKeySources) {
      out.push_back({from_hex(s.public_key), from_hex(s.message), from_hex(s.signature_sha256)});
    }
    return out;
  }();
  return keys;
}

// A private heap copy of exactly n bytes (never null when n > 0).
struct Piece {
  explicit Piece(ByteView v) : bytes(v.empty() ? nullptr : new std::uint8_t[v.size()]), size(v.size()) {
    if (size != 0) std::memcpy(bytes.get(), v.data(), size);
  }
  ByteView view() const { return ByteView(bytes.get(), size); }
  std::unique_ptr<std::uint8_t[]> bytes;
  std::size_t size;
};

bool acceptable(Error e) {
  switch (e) {
    case Error::kOk:
    case Error::kVerifyFailed:
    case Error::kUnknownLmsType:
    case Error::kUnknownOtsType:
    case Error::kParameterMismatch:
    case Error::kBadLevels:
    case Error::kMalformedPublicKey:
    case Error::kMalformedSignature:
      return true;
    default:
      return false;
  }
}

// The signature must be exactly u32(L-1) || (LMS signature || LMS public key)* || LMS signature.
void check_exact_layout(ByteView public_key, ByteView signature) {
  auto key = klms::lms::parse_hss_public_key(public_key);
  FUZZ_CHECK(key);
  FUZZ_CHECK(signature.size() >= 4);
  FUZZ_CHECK(klms::get_u32(signature.data()) + 1u == key->levels);
  ByteView rest = signature.subspan(4);
  klms::lms::LevelParams level = key->top.params;
  for (std::uint32_t i = 0; i < key->levels; ++i) {
    std::size_t used = 0;
    auto sig = klms::lms::parse_lms_signature_prefix(rest, used);
    FUZZ_CHECK(sig);
    FUZZ_CHECK(sig->params.lms == level.lms && sig->params.ots == level.ots);
    FUZZ_CHECK(used == level.signature_bytes());
    rest = rest.subspan(used);
    if (i + 1 < key->levels) {
      auto child = klms::lms::parse_lms_public_key_prefix(rest, used);
      FUZZ_CHECK(child);
      FUZZ_CHECK(used == child->params.public_key_bytes());
      level = child->params;
      rest = rest.subspan(used);
    }
  }
  FUZZ_CHECK(rest.empty());
}

void cross_check(ByteView public_key, ByteView message, ByteView signature, Error expected) {
  auto key = klms::lms::parse_hss_public_key(public_key);
  if (!key) return;  // nothing hashed: no backend involved
  for (const klms::hashes::Backend* b : klms::hashes::available_backends()) {
    if (b->family != key->top.params.lms->hash) continue;
    const Error e = klms::lms::hss_verify(public_key, message, signature, b);
    if (e != expected) {
      std::fprintf(stderr, "backend %.*s: %d, fastest: %d\n", static_cast<int>(b->name.size()), b->name.data(),
                   static_cast<int>(e), static_cast<int>(expected));
    }
    FUZZ_CHECK(e == expected);
  }
}

// What a verified signature must also satisfy: same answer again, exact layout, and any change to
// the message, the signature or the key's root breaks it.
void check_accepted(ByteView public_key, ByteView message, ByteView signature) {
  FUZZ_CHECK(klms::lms::hss_verify(public_key, message, signature) == Error::kOk);
  check_exact_layout(public_key, signature);

  Bytes longer(message.begin(), message.end());
  longer.push_back(0);
  FUZZ_CHECK(klms::lms::hss_verify(public_key, longer, signature) == Error::kVerifyFailed);
  if (!message.empty()) {
    Bytes changed(message.begin(), message.end());
    changed.back() ^= 0x01;
    FUZZ_CHECK(klms::lms::hss_verify(public_key, changed, signature) == Error::kVerifyFailed);
  }
  Bytes sig(signature.begin(), signature.end());
  sig.back() ^= 0x80;  // inside the last authentication-path node
  FUZZ_CHECK(klms::lms::hss_verify(public_key, message, sig) == Error::kVerifyFailed);
  Bytes key(public_key.begin(), public_key.end());
  key.back() ^= 0x01;  // inside the root
  FUZZ_CHECK(klms::lms::hss_verify(key, message, signature) == Error::kVerifyFailed);
  Bytes trailing(signature.begin(), signature.end());
  trailing.push_back(0);
  FUZZ_CHECK(klms::lms::hss_verify(public_key, message, trailing) == Error::kMalformedSignature);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in(data, size);
  const std::uint8_t mode = in.u8();
  const bool cross = (mode & 2) != 0;

  if ((mode & 1) == 0) {
    const std::uint16_t pk_len = in.u16();
    const std::uint16_t msg_len = in.u16();
    const Piece public_key(in.take(pk_len));
    const Piece message(in.take(msg_len));
    const Piece signature(in.rest());
    const Error e = klms::lms::hss_verify(public_key.view(), message.view(), signature.view());
    FUZZ_CHECK(acceptable(e));
    if (e == Error::kOk) check_accepted(public_key.view(), message.view(), signature.view());
    if (cross) cross_check(public_key.view(), message.view(), signature.view(), e);
    return 0;
  }

  const FixedKey& key = fixed_keys()[(mode >> 2) % fixed_keys().size()];
  const Piece signature(in.rest());
  const Error e = klms::lms::hss_verify(key.public_key, key.message, signature.view());
  FUZZ_CHECK(acceptable(e));
  if (e == Error::kOk) {
    std::uint8_t digest[SHA256_DIGEST_LENGTH];
    SHA256(signature.view().data(), signature.size, digest);
    FUZZ_CHECK(klms::fuzz::same_bytes(ByteView(digest, sizeof digest), key.signature_sha256));
    check_accepted(key.public_key, key.message, signature.view());
  }
  if (cross) cross_check(key.public_key, key.message, signature.view(), e);
  return 0;
}
