#include "provider/digests.h"

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstring>
#include <new>
#include <string>

#include "hashes/digests.h"
#include "provider/c_boundary.h"
#include "provider/errors.h"
#include "provider/names.h"
#include "provider/self_test.h"

namespace klms::provider {
namespace {

// One context per EVP_MD_CTX. The hash state is trivially copyable, so dupctx is a copy.
struct DigestContext {
  ProviderContext* provider;
  const hashes::DigestAlgorithm* algorithm;
  bool finalized;
  alignas(hashes::kDigestContextAlign) unsigned char state[hashes::kMaxDigestContextBytes];
};

template <std::size_t Index>
const hashes::DigestAlgorithm& algorithm() noexcept {
  return hashes::digest_algorithms()[Index];
}

template <std::size_t Index>
void* digest_newctx(void* provctx) noexcept {
  auto* provider = static_cast<ProviderContext*>(provctx);
  return guarded(provider, "creating a digest context", static_cast<void*>(nullptr), [&]() -> void* {
    // The family's known-answer test, once per process, before its first context. (A throw from
    // the initialiser leaves it to run again on the next call.)
    static const int kTest = [] {
      SelfTest test;
      return self_test_for_digest(std::string(algorithm<Index>().name).c_str(), test) ? static_cast<int>(test) : -1;
    }();
    if (kTest >= 0 && !require_self_test(provider, static_cast<SelfTest>(kTest))) return nullptr;
    auto* ctx = new (std::nothrow) DigestContext;
    if (ctx == nullptr) {
      KLMS_RAISE(provider, kReasonOutOfMemory, "creating a digest context: out of memory");
      return nullptr;
    }
    ctx->provider = provider;
    ctx->algorithm = &algorithm<Index>();
    ctx->finalized = true;  // until init
    return ctx;
  });
}

void digest_freectx(void* vctx) noexcept {
  auto* ctx = static_cast<DigestContext*>(vctx);
  if (ctx != nullptr) OPENSSL_cleanse(ctx->state, sizeof ctx->state);
  delete ctx;
}

void* digest_dupctx(void* vctx) noexcept {
  const auto* src = static_cast<const DigestContext*>(vctx);
  auto* dst = new (std::nothrow) DigestContext;
  if (dst == nullptr) return nullptr;
  std::memcpy(static_cast<void*>(dst), src, sizeof *dst);
  return dst;
}

int digest_init(void* vctx, const OSSL_PARAM[] /*params*/) noexcept {
  auto* ctx = static_cast<DigestContext*>(vctx);
  ctx->algorithm->init(ctx->state);
  ctx->finalized = false;
  return 1;
}

// The algorithm's name for a message (a string_view in the table, not terminated).
int name_length(const DigestContext* ctx) noexcept { return static_cast<int>(ctx->algorithm->name.size()); }

int digest_update(void* vctx, const unsigned char* in, size_t len) noexcept {
  auto* ctx = static_cast<DigestContext*>(vctx);
  if (ctx->finalized) {
    KLMS_RAISE(ctx->provider, kReasonInvalidArgument, "%.*s: update after final; initialise the context again",
               name_length(ctx), ctx->algorithm->name.data());
    return 0;
  }
  if (len != 0 && in == nullptr) {
    KLMS_RAISE(ctx->provider, kReasonInvalidArgument, "null input with non-zero length");
    return 0;
  }
  ctx->algorithm->update(ctx->state, in, len);
  return 1;
}

int digest_final(void* vctx, unsigned char* out, size_t* outl, size_t outsz) noexcept {
  auto* ctx = static_cast<DigestContext*>(vctx);
  const std::size_t size = ctx->algorithm->output_size;
  if (ctx->finalized) {
    KLMS_RAISE(ctx->provider, kReasonInvalidArgument, "%.*s: final called twice; initialise the context again",
               name_length(ctx), ctx->algorithm->name.data());
    return 0;
  }
  if (out == nullptr || outsz < size) {
    KLMS_RAISE(ctx->provider, kReasonBufferTooSmall, "digest needs %zu bytes, buffer has %zu", size, outsz);
    return 0;
  }
  ctx->algorithm->final(ctx->state, out);
  ctx->finalized = true;
  *outl = size;
  return 1;
}

template <std::size_t Index>
int digest_get_params(OSSL_PARAM params[]) noexcept {
  const hashes::DigestAlgorithm& a = algorithm<Index>();
  OSSL_PARAM* p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_BLOCK_SIZE);
  if (p != nullptr && !OSSL_PARAM_set_size_t(p, a.block_size)) return 0;
  p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_SIZE);
  if (p != nullptr && !OSSL_PARAM_set_size_t(p, a.output_size)) return 0;
  p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_XOF);
  if (p != nullptr && !OSSL_PARAM_set_int(p, 0)) return 0;
  p = OSSL_PARAM_locate(params, OSSL_DIGEST_PARAM_ALGID_ABSENT);
  if (p != nullptr && !OSSL_PARAM_set_int(p, 0)) return 0;
  return 1;
}

const OSSL_PARAM* digest_gettable_params(void* /*provctx*/) noexcept {
  static const OSSL_PARAM table[] = {
      OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_BLOCK_SIZE, nullptr), OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, nullptr),
      OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOF, nullptr), OSSL_PARAM_int(OSSL_DIGEST_PARAM_ALGID_ABSENT, nullptr),
      OSSL_PARAM_END};
  return table;
}

template <std::size_t Index>
const OSSL_DISPATCH kDispatch[] = {
    KLMS_DISPATCH(DIGEST_NEWCTX, digest_newctx, &digest_newctx<Index>),
    KLMS_DISPATCH(DIGEST_INIT, digest_init, &digest_init),
    KLMS_DISPATCH(DIGEST_UPDATE, digest_update, &digest_update),
    KLMS_DISPATCH(DIGEST_FINAL, digest_final, &digest_final),
    KLMS_DISPATCH(DIGEST_FREECTX, digest_freectx, &digest_freectx),
    KLMS_DISPATCH(DIGEST_DUPCTX, digest_dupctx, &digest_dupctx),
    KLMS_DISPATCH(DIGEST_GET_PARAMS, digest_get_params, &digest_get_params<Index>),
    KLMS_DISPATCH(DIGEST_GETTABLE_PARAMS, digest_gettable_params, &digest_gettable_params),
    KLMS_DISPATCH_END,
};

}  // namespace

const OSSL_ALGORITHM* digest_algorithms() noexcept {
  // Names in the order of hashes::digest_algorithms(); primary name first (docs/params.md "Digests").
  static const OSSL_ALGORITHM table[] = {
      {KLMS_MD_LSH_256_256 ":" KLMS_MD_LSH_256 ":" KLMS_MD_LSH256, kProperties, kDispatch<0>, "LSH-256-256 (KS X 3262)"},
      {KLMS_MD_LSH_256_224 ":" KLMS_MD_LSH_224, kProperties, kDispatch<1>, "LSH-256-224 (KS X 3262)"},
      {KLMS_MD_LSH_512_512 ":" KLMS_MD_LSH_512 ":" KLMS_MD_LSH512, kProperties, kDispatch<2>, "LSH-512-512 (KS X 3262)"},
      {KLMS_MD_LSH_512_384 ":" KLMS_MD_LSH_384, kProperties, kDispatch<3>, "LSH-512-384 (KS X 3262)"},
      {KLMS_MD_LSH_512_256, kProperties, kDispatch<4>, "LSH-512-256 (KS X 3262)"},
      {KLMS_MD_LSH_512_224, kProperties, kDispatch<5>, "LSH-512-224 (KS X 3262)"},
      {KLMS_MD_TDM_CHAM, kProperties, kDispatch<6>, "Tandem-DM over CHAM-128/256"},
      {KLMS_MD_TDM_LEA, kProperties, kDispatch<7>, "Tandem-DM over LEA-256"},
      {KLMS_MD_TDM_ARIA, kProperties, kDispatch<8>, "Tandem-DM over ARIA-256"},
      {nullptr, nullptr, nullptr, nullptr},
  };
  return table;
}

}  // namespace klms::provider
