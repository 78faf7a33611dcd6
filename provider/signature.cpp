// HSS/LMS, XMSS and XMSS^MT signatures through EVP (docs/design.md "Provider surface", docs/state.md
// §10): one signature operation for every scheme; the stateful layer signs (its signing session),
// the scheme's verifier verifies.
//
// Pure signing: the message itself is signed. Streaming signing reserves the index at the first
// update (after all context parameters are set) into an operation shared with every duplicate of
// the context; the first final consumes it, every other final fails. Each context remembers how
// many bytes it fed, and a final only succeeds on a copy whose view of the message is exactly what
// was hashed — a duplicated context can never sign a mixture of two messages. Verification buffers
// the message, because the randomizer C inside the signature starts the message hash.
#include "provider/signature.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <mutex>
#include <new>

#include "base/path.h"
#include "lms/verify.h"
#include "xmss/verify.h"
#include "provider/c_boundary.h"
#include "provider/errors.h"
#include "provider/message_buffer.h"
#include "provider/self_test.h"
#include "provider/key.h"
#include "provider/names.h"
#include "provider/signature_message.h"
#include "stateful/progress.h"
#include "stateful/signing_session.h"

namespace klms::provider {
namespace {

// One index, one message hash, one signature: shared by a context and all its duplicates.
struct SharedOperation {
  std::mutex mutex;
  std::optional<stateful::SigningSession> session;
  std::uint64_t bytes_hashed = 0;
  bool finished = false;
};

struct SignatureContext {
  ProviderContext* provider = nullptr;
  std::shared_ptr<const KeyMaterial> key;
  bool signing = false;
  std::string state_file_override;
  std::uint64_t reserve = 1;
  // Signing: the operation once reserved, and how much of the message this copy fed.
  std::shared_ptr<SharedOperation> shared;
  std::uint64_t bytes_fed = 0;
  // Verification: the message so far, in chunks that are never moved (message_buffer.h).
  MessageBuffer message;
  // Message-API verification with the signature set first (signature_message.h): the message is
  // hashed as it streams instead of buffered.
  std::shared_ptr<MessageVerifyStream> stream;
};

SignatureContext* as_ctx(void* p) noexcept { return static_cast<SignatureContext*>(p); }

void* sig_newctx(void* provctx, const char* /*propq*/) noexcept {
  auto* provider = static_cast<ProviderContext*>(provctx);
  if (!require_self_test(provider, SelfTest::kLms)) return nullptr;
  auto* ctx = new (std::nothrow) SignatureContext;  // its members' constructors do not throw
  if (ctx == nullptr) {
    KLMS_RAISE(provider, kReasonOutOfMemory, "creating a signature context: out of memory");
    return nullptr;
  }
  ctx->provider = provider;
  ctx->reserve = provider->config.reserve;
  return ctx;
}

void sig_freectx(void* vctx) noexcept { delete as_ctx(vctx); }

void* sig_dupctx(void* vctx) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  if (ctx->stream) {
    KLMS_RAISE(ctx->provider, kReasonInvalidArgument,
               "a streaming verification (signature set first) cannot be duplicated");
    return nullptr;
  }
  return guarded(ctx->provider, "duplicating a signature context", static_cast<void*>(nullptr), [&]() -> void* {
    // Shares `shared`: one index for all copies. The copy allocates (the state-file override).
    return new SignatureContext(*ctx);  // NOLINT(bugprone-unhandled-exception-at-new): inside guarded()
  });
}

int set_ctx_params(SignatureContext* ctx, const OSSL_PARAM params[]);

bool init_common(SignatureContext* ctx, void* keydata, const OSSL_PARAM params[], bool signing) {
  const auto* key = static_cast<const ProviderKey*>(keydata);
  if (key != nullptr) {
    if (!key->material) {
      KLMS_RAISE(ctx->provider, kReasonMalformedKey, "the key object holds no key");
      return false;
    }
    ctx->key = key->material;
  }
  if (!ctx->key) {
    KLMS_RAISE(ctx->provider, kReasonInvalidArgument, "no key given");
    return false;
  }
  if (signing && !ctx->key->has_private()) {
    KLMS_RAISE(ctx->provider, kReasonNotPrivateKey, "signing needs the private key");
    return false;
  }
  ctx->signing = signing;
  ctx->shared.reset();
  ctx->bytes_fed = 0;
  ctx->message.clear();
  ctx->stream.reset();
  return set_ctx_params(ctx, params) != 0;
}

// docs/design.md "Pure signing and digests": a digest is tolerated only where CMS passes its digestAlgorithm — SHA2-256 for the
// SHA-256 and K-LMS sets, SHAKE-256 for the SHAKE sets — and then does nothing. XMSS and XMSS^MT are
// in no CMS standard (RFC 9802 puts them in X.509 only): any digest is refused for them.
bool digest_tolerated(SignatureContext* ctx, const char* mdname) {
  if (mdname == nullptr || *mdname == '\0' || std::strcmp(mdname, "UNDEF") == 0) return true;
  if (ctx->key->scheme != KeyScheme::kHss) {
    KLMS_RAISE(ctx->provider, kReasonDigestNotAllowed,
               "%s signs the message itself and has no CMS encoding (RFC 9802 defines X.509 only): digest '%s' "
               "is not allowed; sign with openssl pkeyutl -sign -rawin, or certificates with openssl req/x509",
               ctx->key->identity().name, mdname);
    return false;
  }
  const bool shake = ctx->key->top.lms->hash == lms::HashFamily::kShake256;
  const char* allowed = shake ? "SHAKE-256" : "SHA2-256";
  EVP_MD* md = EVP_MD_fetch(ctx->provider->libctx, mdname, nullptr);
  const bool ok = md != nullptr && EVP_MD_is_a(md, allowed);
  EVP_MD_free(md);
  if (!ok) {
    KLMS_RAISE(ctx->provider, kReasonDigestNotAllowed,
               "HSS/LMS signs the message itself; digest '%s' is not allowed (only %s, as CMS passes it, is accepted and ignored)",
               mdname, allowed);
  }
  return ok;
}

int sig_sign_init(void* vctx, void* keydata, const OSSL_PARAM params[]) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  return guarded(ctx->provider, "starting to sign", 0, [&] { return init_common(ctx, keydata, params, true) ? 1 : 0; });
}
int sig_verify_init(void* vctx, void* keydata, const OSSL_PARAM params[]) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  return guarded(ctx->provider, "starting to verify", 0,
                 [&] { return init_common(ctx, keydata, params, false) ? 1 : 0; });
}
int sig_digest_sign_init(void* vctx, const char* mdname, void* keydata, const OSSL_PARAM params[]) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  return guarded(ctx->provider, "starting to sign", 0, [&] {
    return init_common(ctx, keydata, params, true) && digest_tolerated(ctx, mdname) ? 1 : 0;
  });
}
int sig_digest_verify_init(void* vctx, const char* mdname, void* keydata, const OSSL_PARAM params[]) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  return guarded(ctx->provider, "starting to verify", 0, [&] {
    return init_common(ctx, keydata, params, false) && digest_tolerated(ctx, mdname) ? 1 : 0;
  });
}

const std::string& state_file_of(const SignatureContext* ctx) {
  return ctx->state_file_override.empty() ? ctx->key->state_file() : ctx->state_file_override;
}

// The refusals of the state checks signing and remaining-signatures share (stateful/signing_session.h):
// raised here, true; any other step is the caller's to say.
bool raise_state_check(SignatureContext* ctx, stateful::SessionStep step, klms::Error e, const std::string& path) {
  switch (step) {
    case stateful::SessionStep::kStatePath:
      KLMS_RAISE_STATE(ctx->provider, e, "state file " + path, path);
      return true;
    case stateful::SessionStep::kOpenState:
      KLMS_RAISE_STATE(ctx->provider, e, "opening state file " + path, path);
      return true;
    default:
      return false;
  }
}

// Reserves this operation's index (durably, docs/state.md §2) and starts the message hash: the
// stateful layer's signing recipe (stateful/signing_session.h), with the provider's message for each step.
bool begin_operation(SignatureContext* ctx) {
  const std::string& path = state_file_of(ctx);
  stateful::SessionOptions options;
  options.state = state_options(*ctx->provider);
  options.reserve = ctx->reserve;
  options.progress = stateful::rebuild_progress_on_request();
  stateful::SessionStart start = stateful::SigningSession::begin(ctx->key->signing_key(), path, options);
  if (!start.session) {
    const klms::Error e = start.session.error();
    if (raise_state_check(ctx, start.step, e, path)) return false;
    switch (start.step) {
      case stateful::SessionStep::kSeededKey:
      case stateful::SessionStep::kStatePath:
      case stateful::SessionStep::kOpenState:
        KLMS_RAISE_LMS(ctx->provider, e, "signing");
        break;
      case stateful::SessionStep::kPrepareSigner:
        KLMS_RAISE_LMS(ctx->provider, e, "preparing the signer");
        break;
      case stateful::SessionStep::kLoadTree:
        KLMS_RAISE_LMS(ctx->provider, e, "loading the key's tree");
        break;
      case stateful::SessionStep::kReserve:
        KLMS_RAISE_STATE(ctx->provider, e, "reserving a signature index in " + path, path);
        break;
      case stateful::SessionStep::kBegin:
        KLMS_RAISE_LMS(ctx->provider, e, "signing");
        break;
    }
    return false;
  }
  auto shared = std::make_shared<SharedOperation>();
  shared->session.emplace(std::move(*start.session));
  ctx->shared = std::move(shared);
  return true;
}

int sig_digest_sign_update(void* vctx, const unsigned char* data, size_t len) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  return guarded(ctx->provider, "signing", 0, [&] {
    if (!ctx->shared && !begin_operation(ctx)) return 0;
    std::lock_guard<std::mutex> lock(ctx->shared->mutex);
    if (ctx->shared->finished) {
      KLMS_RAISE(ctx->provider, kReasonLeaseConsumed, "this signing operation already produced its signature");
      return 0;
    }
    if (ctx->bytes_fed != ctx->shared->bytes_hashed) {
      KLMS_RAISE(ctx->provider, kReasonLeaseConsumed,
                 "a duplicate of this signing context fed other data; only one copy can go on");
      return 0;
    }
    if (const klms::Error e = ctx->shared->session->update(klms::ByteView(data, len)); e != klms::Error::kOk) {
      KLMS_RAISE_LMS(ctx->provider, e, "signing (this operation's index was reserved by another process)");
      return 0;
    }
    ctx->shared->bytes_hashed += len;
    ctx->bytes_fed += len;
    return 1;
  });
}

bool check_output(SignatureContext* ctx, size_t sigsize) {
  const std::size_t need = ctx->key->max_signature_bytes();
  if (sigsize < need) {
    KLMS_RAISE(ctx->provider, kReasonBufferTooSmall, "signature needs %zu bytes, buffer has %zu", need, sigsize);
    return false;
  }
  return true;
}

int finish_sign(SignatureContext* ctx, unsigned char* sig, size_t* siglen, size_t sigsize) {
  std::lock_guard<std::mutex> lock(ctx->shared->mutex);
  SharedOperation& op = *ctx->shared;
  if (op.finished) {
    KLMS_RAISE(ctx->provider, kReasonLeaseConsumed,
               "this signing operation already produced its signature (one index, one signature)");
    return 0;
  }
  if (ctx->bytes_fed != op.bytes_hashed) {
    KLMS_RAISE(ctx->provider, kReasonLeaseConsumed, "a duplicate of this context fed other data; refusing to sign");
    return 0;
  }
  // A forked or cloned copy of the process that reserved the index: the original may finish it.
  if (!op.session->owned_by_this_process()) {
    KLMS_RAISE_LMS(ctx->provider, klms::Error::kForeignProcess, "signing");
    return 0;
  }
  op.finished = true;
  auto result = op.session->finish();
  op.session.reset();
  if (!result) {
    KLMS_RAISE_LMS(ctx->provider, result.error(), "signing");
    return 0;
  }
  if (result->size() > sigsize) {  // cannot happen with the key's own signer; never overrun the caller
    KLMS_RAISE(ctx->provider, kReasonInternal, "signature of %zu bytes does not fit the %zu-byte buffer", result->size(),
               sigsize);
    return 0;
  }
  std::memcpy(sig, result->data(), result->size());
  *siglen = result->size();
  return 1;
}

int sig_digest_sign_final(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  return guarded(ctx->provider, "signing", 0, [&] {
    if (sig == nullptr) {  // a size query reserves nothing
      *siglen = ctx->key->max_signature_bytes();
      return 1;
    }
    if (!check_output(ctx, sigsize)) return 0;
    if (!ctx->shared && !begin_operation(ctx)) return 0;  // empty message
    return finish_sign(ctx, sig, siglen, sigsize);
  });
}

int sig_digest_sign(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize, const unsigned char* tbs,
                    size_t tbslen) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  return guarded(ctx->provider, "signing", 0, [&] {
    if (sig == nullptr) {
      *siglen = ctx->key->max_signature_bytes();
      return 1;
    }
    if (!check_output(ctx, sigsize)) return 0;
    if (ctx->shared) {
      KLMS_RAISE(ctx->provider, kReasonLeaseConsumed, "one-shot signing on a context that already streamed data");
      return 0;
    }
    if (!begin_operation(ctx)) return 0;
    {
      std::lock_guard<std::mutex> lock(ctx->shared->mutex);
      if (const klms::Error e = ctx->shared->session->update(klms::ByteView(tbs, tbslen)); e != klms::Error::kOk) {
        KLMS_RAISE_LMS(ctx->provider, e, "signing");
        return 0;
      }
      ctx->shared->bytes_hashed = tbslen;
    }
    ctx->bytes_fed = tbslen;
    return finish_sign(ctx, sig, siglen, sigsize);
  });
}

// EVP_PKEY_sign: the input is the message (pure signing), never a digest of it.
int sig_sign(void* vctx, unsigned char* sig, size_t* siglen, size_t sigsize, const unsigned char* tbs,
             size_t tbslen) noexcept {
  return sig_digest_sign(vctx, sig, siglen, sigsize, tbs, tbslen);
}

// The scheme's stateless verification of a whole message.
klms::Error verify_whole(const KeyMaterial& key, klms::ByteView message, klms::ByteView signature) noexcept {
  if (key.scheme == KeyScheme::kHss) return lms::hss_verify(key.public_key, message, signature);
  const xmss::Scheme scheme = key.scheme == KeyScheme::kXmss ? xmss::Scheme::kXmss : xmss::Scheme::kXmssMt;
  return xmss::verify(scheme, key.public_key, message, signature);
}

int verify_message(SignatureContext* ctx, const unsigned char* sig, size_t siglen, const unsigned char* msg,
                   size_t msglen) noexcept {
  // No guard needed: the verifiers and the error functions are noexcept (clang-tidy checks it).
  const klms::Error e = verify_whole(*ctx->key, klms::ByteView(msg, msglen), klms::ByteView(sig, siglen));
  if (e == klms::Error::kOk) return 1;
  KLMS_RAISE_LMS(ctx->provider, e, "verifying");
  return 0;
}

int sig_verify(void* vctx, const unsigned char* sig, size_t siglen, const unsigned char* tbs, size_t tbslen) noexcept {
  return verify_message(as_ctx(vctx), sig, siglen, tbs, tbslen);
}

int sig_digest_verify(void* vctx, const unsigned char* sig, size_t siglen, const unsigned char* tbs,
                      size_t tbslen) noexcept {
  return verify_message(as_ctx(vctx), sig, siglen, tbs, tbslen);
}

int sig_digest_verify_update(void* vctx, const unsigned char* data, size_t len) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  return guarded(ctx->provider, "buffering the message for verification", 0, [&] {
    ctx->message.append(data, len);
    return 1;
  });
}

int sig_digest_verify_final(void* vctx, const unsigned char* sig, size_t siglen) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  return guarded(ctx->provider, "verifying", 0, [&] {
    const std::vector<klms::ByteView> pieces = ctx->message.pieces();
    klms::Error e = klms::Error::kOk;
    if (ctx->key->scheme == KeyScheme::kHss) {
      e = lms::hss_verify_pieces(ctx->key->public_key, pieces, klms::ByteView(sig, siglen));
    } else {
      const xmss::Scheme scheme = ctx->key->scheme == KeyScheme::kXmss ? xmss::Scheme::kXmss : xmss::Scheme::kXmssMt;
      auto stream = xmss::VerifyStream::begin(scheme, ctx->key->public_key, klms::ByteView(sig, siglen));
      if (stream) {
        for (const klms::ByteView piece : pieces) stream->update(piece);
        e = stream->finish();
      } else {
        e = stream.error();
      }
    }
    if (e == klms::Error::kOk) return 1;
    KLMS_RAISE_LMS(ctx->provider, e, "verifying");
    return 0;
  });
}

// `remaining-signatures` of a signing context: what the state file this context signs with (the
// key's own, or the `state-file` override, e.g. a lease) has left for this process, found with the
// same state checks as signing (stateful::remaining_signatures: a file signing would refuse is an
// error, not a number).
bool get_context_remaining(SignatureContext* ctx, OSSL_PARAM* p) {
  if (!ctx->key || !ctx->key->has_private()) {
    KLMS_RAISE(ctx->provider, kReasonNotPrivateKey, "remaining-signatures needs a signing context with a private key");
    return false;
  }
  const std::string& path = state_file_of(ctx);
  stateful::SessionStep step = stateful::SessionStep::kStatePath;
  auto remaining = stateful::remaining_signatures(ctx->key->signing_key(), path, state_options(*ctx->provider), step);
  if (!remaining) {
    if (!raise_state_check(ctx, step, remaining.error(), path)) {
      KLMS_RAISE_LMS(ctx->provider, remaining.error(), ("reading state file " + path).c_str());
    }
    return false;
  }
  return OSSL_PARAM_set_uint64(p, *remaining) != 0;
}

int sig_get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  OSSL_PARAM* p = OSSL_PARAM_locate(params, OSSL_SIGNATURE_PARAM_ALGORITHM_ID);
  if (p != nullptr) {
    const klms::ByteView id = ctx->key ? ctx->key->identity().algorithm_der : scheme_identity(KeyScheme::kHss).algorithm_der;
    if (!OSSL_PARAM_set_octet_string(p, id.data(), id.size())) return 0;
  }
  if ((p = OSSL_PARAM_locate(params, kParamRemaining)) != nullptr) {
    return guarded(ctx->provider, "remaining-signatures", 0, [&] { return get_context_remaining(ctx, p) ? 1 : 0; });
  }
  return 1;
}

const OSSL_PARAM* sig_gettable_ctx_params(void* /*vctx*/, void* /*provctx*/) noexcept {
  static const OSSL_PARAM table[] = {OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_ALGORITHM_ID, nullptr, 0),
                                     OSSL_PARAM_uint64(kParamRemaining, nullptr), OSSL_PARAM_END};
  return table;
}

#if KLMS_HAVE_MESSAGE_API
// OSSL_SIGNATURE_PARAM_SIGNATURE (EVP_PKEY_CTX_set_signature) on a verification context: from now
// on the message streams into the verifier; bytes already buffered are fed first.
bool set_signature_param(SignatureContext* ctx, const OSSL_PARAM* p) {
  const void* sig = nullptr;
  size_t len = 0;
  if (ctx->signing || !ctx->key || !OSSL_PARAM_get_octet_string_ptr(p, &sig, &len)) {
    KLMS_RAISE(ctx->provider, kReasonBadParameter, "signature: an octet string, on a verification context only");
    return false;
  }
  auto stream = message_verify_begin(ctx->provider, *ctx->key, static_cast<const unsigned char*>(sig), len);
  if (!stream) return false;
  for (const klms::ByteView piece : ctx->message.pieces()) {
    if (!message_verify_update(ctx->provider, *stream, piece.data(), piece.size())) return false;
  }
  ctx->message.clear();
  ctx->stream = std::move(stream);
  return true;
}

int sig_verify_message_update(void* vctx, const unsigned char* data, size_t len) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  if (!ctx->stream) return sig_digest_verify_update(vctx, data, len);  // no signature yet: buffer until it comes
  return guarded(ctx->provider, "verifying", 0,
                 [&] { return message_verify_update(ctx->provider, *ctx->stream, data, len); });
}

int sig_verify_message_final(void* vctx) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  if (!ctx->stream) {
    KLMS_RAISE(ctx->provider, kReasonInvalidArgument,
               "no signature to verify: set it first (OSSL_SIGNATURE_PARAM_SIGNATURE, EVP_PKEY_CTX_set_signature)");
    return 0;
  }
  return guarded(ctx->provider, "verifying", 0, [&] { return message_verify_final(ctx->provider, *ctx->stream); });
}
#endif

int set_ctx_params(SignatureContext* ctx, const OSSL_PARAM params[]) {
  if (params == nullptr) return 1;
  for (const OSSL_PARAM* p = params; p->key != nullptr; ++p) {
    const std::string key = p->key;
    const bool ours = key == kParamStateFile || key == kParamReserve;
    if (ours && ctx->shared) {
      KLMS_RAISE(ctx->provider, kReasonBadParameter, "%s: set it before the first update (the index is already reserved)",
                 p->key);
      return 0;
    }
    if (key == kParamStateFile) {
      const char* s = nullptr;
      if (!OSSL_PARAM_get_utf8_string_ptr(p, &s) || *s == '\0') {
        KLMS_RAISE(ctx->provider, kReasonBadParameter, "state-file: expected a path");
        return 0;
      }
      auto path = klms::absolute_path(s);
      if (const klms::Error e = path ? state::check_state_path(*path) : path.error(); e != klms::Error::kOk) {
        KLMS_RAISE_LMS(ctx->provider, e, "state-file");
        return 0;
      }
      ctx->state_file_override = std::move(*path);
    } else if (key == kParamReserve) {
      std::uint64_t n = 0;
      if (!OSSL_PARAM_get_uint64(p, &n) || n == 0) {
        KLMS_RAISE(ctx->provider, kReasonBadParameter, "reserve: expected a number of indices of at least 1");
        return 0;
      }
      if (n > state::kMaxReserve) {
        KLMS_RAISE(ctx->provider, kReasonReserveTooLarge, "reserve: %llu is more than the limit of %llu indices",
                   static_cast<unsigned long long>(n), static_cast<unsigned long long>(state::kMaxReserve));
        return 0;
      }
      ctx->reserve = n;
#if KLMS_HAVE_MESSAGE_API
    } else if (key == OSSL_SIGNATURE_PARAM_SIGNATURE) {
      if (!set_signature_param(ctx, p)) return 0;
#endif
    } else if (key == OSSL_SIGNATURE_PARAM_DIGEST) {
      const char* s = nullptr;
      if (OSSL_PARAM_get_utf8_string_ptr(p, &s) && s != nullptr && *s != '\0') {
        KLMS_RAISE(ctx->provider, kReasonDigestNotAllowed, "%s signs the message itself; a signature digest ('%s') cannot be set",
                   ctx->key ? ctx->key->identity().name : "HSS/LMS", s);
        return 0;
      }
    }
  }
  return 1;
}

int sig_set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
  SignatureContext* ctx = as_ctx(vctx);
  return guarded(ctx->provider, "signature parameters", 0, [&] { return set_ctx_params(ctx, params); });
}

const OSSL_PARAM* sig_settable_ctx_params(void* /*vctx*/, void* /*provctx*/) noexcept {
  static const OSSL_PARAM table[] = {OSSL_PARAM_utf8_string(kParamStateFile, nullptr, 0),
                                     OSSL_PARAM_uint64(kParamReserve, nullptr),
                                     OSSL_PARAM_utf8_string(OSSL_SIGNATURE_PARAM_DIGEST, nullptr, 0),
#if KLMS_HAVE_MESSAGE_API
                                     OSSL_PARAM_octet_string(OSSL_SIGNATURE_PARAM_SIGNATURE, nullptr, 0),
#endif
                                     OSSL_PARAM_END};
  return table;
}

const OSSL_DISPATCH kSignatureDispatch[] = {
    KLMS_DISPATCH(SIGNATURE_NEWCTX, signature_newctx, &sig_newctx),
    KLMS_DISPATCH(SIGNATURE_FREECTX, signature_freectx, &sig_freectx),
    KLMS_DISPATCH(SIGNATURE_DUPCTX, signature_dupctx, &sig_dupctx),
    KLMS_DISPATCH(SIGNATURE_SIGN_INIT, signature_sign_init, &sig_sign_init),
    KLMS_DISPATCH(SIGNATURE_SIGN, signature_sign, &sig_sign),
    KLMS_DISPATCH(SIGNATURE_VERIFY_INIT, signature_verify_init, &sig_verify_init),
    KLMS_DISPATCH(SIGNATURE_VERIFY, signature_verify, &sig_verify),
    KLMS_DISPATCH(SIGNATURE_DIGEST_SIGN_INIT, signature_digest_sign_init, &sig_digest_sign_init),
    KLMS_DISPATCH(SIGNATURE_DIGEST_SIGN_UPDATE, signature_digest_sign_update, &sig_digest_sign_update),
    KLMS_DISPATCH(SIGNATURE_DIGEST_SIGN_FINAL, signature_digest_sign_final, &sig_digest_sign_final),
    KLMS_DISPATCH(SIGNATURE_DIGEST_SIGN, signature_digest_sign, &sig_digest_sign),
    KLMS_DISPATCH(SIGNATURE_DIGEST_VERIFY_INIT, signature_digest_verify_init, &sig_digest_verify_init),
    KLMS_DISPATCH(SIGNATURE_DIGEST_VERIFY_UPDATE, signature_digest_verify_update, &sig_digest_verify_update),
    KLMS_DISPATCH(SIGNATURE_DIGEST_VERIFY_FINAL, signature_digest_verify_final, &sig_digest_verify_final),
    KLMS_DISPATCH(SIGNATURE_DIGEST_VERIFY, signature_digest_verify, &sig_digest_verify),
#if KLMS_HAVE_MESSAGE_API
    // OpenSSL 3.4+: EVP_PKEY_sign_message_* and EVP_PKEY_verify_message_* (pure: the same message
    // signing as above; verification streams once the signature is set).
    KLMS_DISPATCH(SIGNATURE_SIGN_MESSAGE_INIT, signature_sign_message_init, &sig_sign_init),
    KLMS_DISPATCH(SIGNATURE_SIGN_MESSAGE_UPDATE, signature_sign_message_update, &sig_digest_sign_update),
    KLMS_DISPATCH(SIGNATURE_SIGN_MESSAGE_FINAL, signature_sign_message_final, &sig_digest_sign_final),
    KLMS_DISPATCH(SIGNATURE_VERIFY_MESSAGE_INIT, signature_verify_message_init, &sig_verify_init),
    KLMS_DISPATCH(SIGNATURE_VERIFY_MESSAGE_UPDATE, signature_verify_message_update, &sig_verify_message_update),
    KLMS_DISPATCH(SIGNATURE_VERIFY_MESSAGE_FINAL, signature_verify_message_final, &sig_verify_message_final),
#endif
    KLMS_DISPATCH(SIGNATURE_GET_CTX_PARAMS, signature_get_ctx_params, &sig_get_ctx_params),
    KLMS_DISPATCH(SIGNATURE_GETTABLE_CTX_PARAMS, signature_gettable_ctx_params, &sig_gettable_ctx_params),
    KLMS_DISPATCH(SIGNATURE_SET_CTX_PARAMS, signature_set_ctx_params, &sig_set_ctx_params),
    KLMS_DISPATCH(SIGNATURE_SETTABLE_CTX_PARAMS, signature_settable_ctx_params, &sig_settable_ctx_params),
    KLMS_DISPATCH_END};

}  // namespace

const OSSL_ALGORITHM* signature_algorithms() noexcept {
  static const OSSL_ALGORITHM table[] = {
      {kHssAlgorithmNames, kProperties, kSignatureDispatch, "HSS/LMS and K-LMS signatures (pure)"},
      {scheme_identity(KeyScheme::kXmss).signature_names, kProperties, kSignatureDispatch,
       "XMSS and K-XMSS signatures (pure, RFC 8391)"},
      {scheme_identity(KeyScheme::kXmssMt).signature_names, kProperties, kSignatureDispatch,
       "XMSS^MT signatures (pure, RFC 8391)"},
      {nullptr, nullptr, nullptr, nullptr}};
  return table;
}

}  // namespace klms::provider
