// Stateless, strict XMSS and XMSS^MT verification (RFC 8391 §4.1.10, §4.2.5): the wire format is
// parsed by xmss/wire_format.h (exact lengths, known codes, idx < 2^h), then the message digest, each
// layer's WOTS+ public key, L-tree and authentication path lead to a root compared with the public
// key's. No state, no allocation on the verification path.
#pragma once

#include <memory>

#include "base/bytes.h"
#include "base/error.h"
#include "hashes/backend.h"
#include "xmss/params.h"
#include "xmss/wire_format.h"

namespace klms::xmss {

// kOk, kVerifyFailed or a parse error. `preferred` picks the backend for the key's hash family
// (study runs); null = the fastest on this CPU.
Error verify(Scheme scheme, ByteView public_key, ByteView message, ByteView signature,
             const hashes::Backend* preferred = nullptr) noexcept;
// The same with a parsed key and a given backend, which must compute the key's family
// (kBackendMismatch otherwise).
Error verify(const PublicKeyView& key, const hashes::Backend& backend, ByteView message, ByteView signature) noexcept;

// Verification with the message in pieces: the signature first (its r and idx key the message
// digest), then the message, then the verdict.
class VerifyStream {
 public:
  // kOk and a stream, or the parse error of the key or signature. The key and signature are copied.
  static Result<VerifyStream> begin(Scheme scheme, ByteView public_key, ByteView signature,
                                    const hashes::Backend* preferred = nullptr);
  void update(ByteView data) noexcept;
  // kOk or kVerifyFailed; once.
  Error finish() noexcept;

  VerifyStream(VerifyStream&&) noexcept;
  VerifyStream& operator=(VerifyStream&&) noexcept;
  ~VerifyStream();

 private:
  struct State;
  explicit VerifyStream(std::unique_ptr<State> state) noexcept;
  std::unique_ptr<State> state_;
};

}  // namespace klms::xmss
