// HSS verification with the signature first and the message streamed (OpenSSL 3.4+'s
// message-verification API, provider/signature_message.cpp): begin() parses and keeps the public
// key and the signature, update() feeds the message into the bottom level's message hash
// Q = H(I || u32(q) || D_MESG || C || message) as it comes, finish() checks every level. Memory
// is the signature plus one hash state, whatever the message length.
#pragma once

#include <cstdint>
#include <optional>

#include "base/bytes.h"
#include "base/error.h"
#include "lms/lmots.h"
#include "lms/verify_parts.h"

namespace klms::lms {

class HssStreamVerifier {
 public:
  HssStreamVerifier() = default;
  HssStreamVerifier(const HssStreamVerifier&) = delete;  // the hash state points at its own hasher
  HssStreamVerifier& operator=(const HssStreamVerifier&) = delete;

  // kOk, or the error hss_verify would give for this key and signature whatever the message.
  // Copies both (throws std::bad_alloc only).
  Error begin(ByteView public_key, ByteView signature, const hashes::Backend* preferred = nullptr);
  // Only after a successful begin() and before finish().
  void update(const std::uint8_t* data, std::size_t len) noexcept;
  // kOk or kVerifyFailed (kInvalidArgument when begin() failed or finish() already ran).
  Error finish() noexcept;
  bool ready() const noexcept { return message_.has_value() && !finished_; }
  std::uint64_t message_bytes() const noexcept { return bytes_; }

 private:
  Bytes public_key_;
  Bytes signature_;
  HssSignatureParts parts_;
  const hashes::Backend* preferred_ = nullptr;
  TreeHasher bottom_;
  std::optional<MessageHasher> message_;
  std::uint64_t bytes_ = 0;
  bool finished_ = false;
};

}  // namespace klms::lms
