#include "lms/verify_stream.h"

namespace klms::lms {

Error HssStreamVerifier::begin(ByteView public_key, ByteView signature, const hashes::Backend* preferred) {
  message_.reset();
  finished_ = false;
  bytes_ = 0;
  public_key_.assign(public_key.begin(), public_key.end());
  signature_.assign(signature.begin(), signature.end());
  preferred_ = preferred;
  const Error e = parse_hss_signature(ByteView(public_key_.data(), public_key_.size()),
                                      ByteView(signature_.data(), signature_.size()), parts_);
  if (e != Error::kOk) return e;
  const std::uint32_t last = parts_.levels - 1;
  const LmsPublicKeyView& key = parts_.keys[last];
  const LmsSignatureView& sig = parts_.sigs[last];
  // A signature whose bottom level does not match its key fails, as hss_verify fails it; the
  // message is still taken (and ignored) so the caller sees one answer at the end.
  bottom_ = hasher_for(key, preferred);
  message_.emplace(bottom_, sig.q, sig.randomizer.data(), key.params.ots->n);
  return Error::kOk;
}

void HssStreamVerifier::update(const std::uint8_t* data, std::size_t len) noexcept {
  if (!ready() || len == 0) return;
  message_->update(data, len);
  bytes_ += len;
}

Error HssStreamVerifier::finish() noexcept {
  if (!ready()) return Error::kInvalidArgument;
  finished_ = true;
  std::uint8_t q_digest[32];
  message_->finish(q_digest);
  // Upper levels: each signs the next level's public key (short, hashed in one go).
  for (std::uint32_t level = 0; level + 1 < parts_.levels; ++level) {
    const LmsPublicKeyView& key = parts_.keys[level];
    const LmsSignatureView& sig = parts_.sigs[level];
    if (sig.params.lms != key.params.lms || sig.params.ots != key.params.ots) return Error::kVerifyFailed;
    const TreeHasher hasher = hasher_for(key, preferred_);
    std::uint8_t digest[32];
    MessageHasher mh(hasher, sig.q, sig.randomizer.data(), key.params.ots->n);
    const ByteView child = parts_.keys[level + 1].encoded;
    mh.update(child.data(), child.size());
    mh.finish(digest);
    const Error e = lms_verify_digest(key, sig, hasher, digest);
    if (e != Error::kOk) return e;
  }
  const std::uint32_t last = parts_.levels - 1;
  return lms_verify_digest(parts_.keys[last], parts_.sigs[last], bottom_, q_digest);
}

}  // namespace klms::lms
