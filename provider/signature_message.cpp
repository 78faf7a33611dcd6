#include "provider/signature_message.h"

#include <new>
#include <optional>

#include "lms/verify_stream.h"
#include "xmss/verify.h"
#include "provider/errors.h"

namespace klms::provider {

// HSS keys stream into the LMS verifier, XMSS and XMSS^MT keys into the XMSS one.
struct MessageVerifyStream {
  lms::HssStreamVerifier verifier;
  std::optional<xmss::VerifyStream> xmss;
  bool xmss_finished = false;
  bool failed = false;  // begin() refused the signature
};

std::shared_ptr<MessageVerifyStream> message_verify_begin(ProviderContext* provider, const KeyMaterial& key,
                                                          const unsigned char* sig, std::size_t siglen) {
  // Throws std::bad_alloc; its caller runs inside the entry's guard (provider/c_boundary.h).
  auto stream = std::make_shared<MessageVerifyStream>();
  if (key.scheme != KeyScheme::kHss) {
    const xmss::Scheme scheme = key.scheme == KeyScheme::kXmss ? xmss::Scheme::kXmss : xmss::Scheme::kXmssMt;
    auto begun = xmss::VerifyStream::begin(scheme, key.public_key, klms::ByteView(sig, siglen));
    if (!begun) {
      KLMS_RAISE_LMS(provider, begun.error(), "verifying");
      return nullptr;
    }
    stream->xmss.emplace(std::move(*begun));
    return stream;
  }
  const klms::Error e = stream->verifier.begin(klms::ByteView(key.public_key.data(), key.public_key.size()),
                                              klms::ByteView(sig, siglen));
  if (e != klms::Error::kOk) {
    KLMS_RAISE_LMS(provider, e, "verifying");
    return nullptr;
  }
  return stream;
}

int message_verify_update(ProviderContext* provider, MessageVerifyStream& stream, const unsigned char* data,
                          std::size_t len) {
  if (stream.xmss) {
    if (stream.xmss_finished) {
      KLMS_RAISE(provider, kReasonInvalidArgument, "verification already finished; initialise again");
      return 0;
    }
    stream.xmss->update(klms::ByteView(data, len));
    return 1;
  }
  if (!stream.verifier.ready()) {
    KLMS_RAISE(provider, kReasonInvalidArgument, "verification already finished; initialise again");
    return 0;
  }
  stream.verifier.update(data, len);
  return 1;
}

int message_verify_final(ProviderContext* provider, MessageVerifyStream& stream) {
  if (stream.xmss) {
    if (stream.xmss_finished) {
      KLMS_RAISE(provider, kReasonInvalidArgument, "verification already finished; initialise again");
      return 0;
    }
    stream.xmss_finished = true;
    const klms::Error e = stream.xmss->finish();
    if (e == klms::Error::kOk) return 1;
    KLMS_RAISE_LMS(provider, e, "verifying");
    return 0;
  }
  if (!stream.verifier.ready()) {
    KLMS_RAISE(provider, kReasonInvalidArgument, "verification already finished; initialise again");
    return 0;
  }
  const klms::Error e = stream.verifier.finish();
  if (e == klms::Error::kOk) return 1;
  KLMS_RAISE_LMS(provider, e, "verifying");
  return 0;
}

}  // namespace klms::provider
