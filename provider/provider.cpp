// The entry point: OSSL_provider_init, the provider's parameters, and the algorithm tables.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <charconv>
#include <cstring>
#include <new>
#include <string>

#include "base/secret.h"
#include "state/store.h"
#include "state/witness_module.h"
#include "provider/algorithms.h"
#include "provider/c_boundary.h"
#include "provider/codecs.h"
#include "provider/digests.h"
#include "provider/errors.h"
#include "provider/keymgmt.h"
#include "provider/names.h"
#include "provider/provider_context.h"
#include "provider/self_test.h"
#include "provider/signature.h"

#ifndef KLMS_VERSION
#define KLMS_VERSION "0.0.0"
#endif

namespace klms::provider {
namespace {

// The compiler and the OpenSSL headers this module was built with, for `openssl list -providers
// -verbose` ("build info"): a module built against a newer OpenSSL than the one loading it is the
// first thing to rule out when it misbehaves. OPENSSL_FULL_VERSION_STR is the headers' version.
#if defined(__clang__)
#define KLMS_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define KLMS_COMPILER "GCC " __VERSION__
#else
#define KLMS_COMPILER "an unknown compiler"
#endif
const char* kBuildInfo = "klms " KLMS_VERSION " (" KLMS_COMPILER ", built against OpenSSL " OPENSSL_FULL_VERSION_STR ")";

void read_core_functions(const OSSL_DISPATCH* in, CoreFunctions& core) noexcept {
  for (; in != nullptr && in->function_id != 0; ++in) {
    switch (in->function_id) {
      case OSSL_FUNC_CORE_GETTABLE_PARAMS: core.gettable_params = OSSL_FUNC_core_gettable_params(in); break;
      case OSSL_FUNC_CORE_GET_PARAMS: core.get_params = OSSL_FUNC_core_get_params(in); break;
      case OSSL_FUNC_CORE_NEW_ERROR: core.new_error = OSSL_FUNC_core_new_error(in); break;
      case OSSL_FUNC_CORE_SET_ERROR_DEBUG: core.set_error_debug = OSSL_FUNC_core_set_error_debug(in); break;
      case OSSL_FUNC_CORE_VSET_ERROR: core.vset_error = OSSL_FUNC_core_vset_error(in); break;
      case OSSL_FUNC_CORE_OBJ_CREATE: core.obj_create = OSSL_FUNC_core_obj_create(in); break;
      case OSSL_FUNC_CORE_OBJ_ADD_SIGID: core.obj_add_sigid = OSSL_FUNC_core_obj_add_sigid(in); break;
      case OSSL_FUNC_CORE_GET_LIBCTX: core.get_libctx = OSSL_FUNC_core_get_libctx(in); break;
      default: break;
    }
  }
}

// A configuration number from 1 to `max`, or false after raising an error naming the key.
bool parse_config_number(ProviderContext& ctx, const char* key, const char* text, std::uint64_t max,
                         std::uint64_t& out) {
  std::uint64_t n = 0;
  const char* end = text + std::strlen(text);
  auto [ptr, ec] = std::from_chars(text, end, n);
  if (ec != std::errc() || ptr != end || n == 0 || n > max) {
    KLMS_RAISE(&ctx, kReasonBadParameter, "configuration: %s = '%s' is not a number from 1 to %llu", key, text,
               static_cast<unsigned long long>(max));
    return false;
  }
  out = n;
  return true;
}

// The witness keys (docs/state.md "The witness"). The owner authorization comes from a file,
// never from the configuration text itself.
bool read_witness_configuration(ProviderContext& ctx, const char* witness, const char* tcti, const char* timeout_ms,
                                const char* owner_auth_file, const char* budget) {
  if (witness != nullptr) {
    const std::string v = witness;
    if (v == "tpm") ctx.config.witness = state::WitnessKind::kTpm;
    else if (v == "etcd") ctx.config.witness = state::WitnessKind::kEtcd;
    else if (v == "none") ctx.config.witness = state::WitnessKind::kNone;
    else {
      KLMS_RAISE(&ctx, kReasonBadParameter, "configuration: witness = '%s' is not one of tpm, etcd, none", witness);
      return false;
    }
  }
  if (tcti != nullptr) ctx.config.witness_config.tpm_tcti = tcti;
  std::uint64_t n = 0;
  if (timeout_ms != nullptr) {
    if (!parse_config_number(ctx, "tpm_timeout_ms", timeout_ms, 600000, n)) return false;
    ctx.config.witness_config.timeout_ms = static_cast<unsigned>(n);
  }
  if (budget != nullptr) {
    if (!parse_config_number(ctx, "tpm_nv_write_budget", budget, ~std::uint64_t{0}, n)) return false;
    ctx.config.witness_config.tpm_nv_write_budget = n;
  }
  if (owner_auth_file != nullptr) {
    std::FILE* f = std::fopen(owner_auth_file, "rbe");
    if (f == nullptr) {
      KLMS_RAISE(&ctx, kReasonBadParameter, "configuration: tpm_owner_auth_file = '%s' cannot be read", owner_auth_file);
      return false;
    }
    char buf[64];
    const std::size_t len = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    std::size_t used = len;
    while (used > 0 && (buf[used - 1] == '\n' || buf[used - 1] == '\r')) --used;
    ctx.config.witness_config.tpm_owner_auth.assign(buf, used);
    klms::wipe(buf, sizeof buf);
  }
  return true;
}

// The etcd fleet's keys (docs/fleet.md "Configuration"). The password comes from a file, never
// from the configuration text itself.
struct EtcdKeys {
  char* endpoints = nullptr;
  char* prefix = nullptr;
  char* cacert = nullptr;
  char* cert = nullptr;
  char* key = nullptr;
  char* user = nullptr;
  char* password_file = nullptr;
  char* timeout_ms = nullptr;
  char* block = nullptr;
};

bool read_etcd_configuration(ProviderContext& ctx, const EtcdKeys& k) {
  state::WitnessConfig& c = ctx.config.witness_config;
  if (k.endpoints != nullptr) c.etcd_endpoints = k.endpoints;
  if (k.prefix != nullptr) c.etcd_prefix = k.prefix;
  if (k.cacert != nullptr) c.etcd_cacert = k.cacert;
  if (k.cert != nullptr) c.etcd_cert = k.cert;
  if (k.key != nullptr) c.etcd_key = k.key;
  if (k.user != nullptr) c.etcd_user = k.user;
  std::uint64_t n = 0;
  if (k.timeout_ms != nullptr) {
    if (!parse_config_number(ctx, KLMS_CONF_ETCD_TIMEOUT_MS, k.timeout_ms, 600000, n)) return false;
    c.etcd_timeout_ms = static_cast<unsigned>(n);
  }
  if (k.block != nullptr) {
    if (!parse_config_number(ctx, KLMS_CONF_ETCD_BLOCK, k.block, std::uint64_t{1} << 32, n)) return false;
    c.etcd_block = n;
  }
  if (k.password_file != nullptr) {
    std::FILE* f = std::fopen(k.password_file, "rbe");
    if (f == nullptr) {
      KLMS_RAISE(&ctx, kReasonBadParameter, "configuration: etcd_password_file = '%s' cannot be read", k.password_file);
      return false;
    }
    char buf[256];
    const std::size_t len = std::fread(buf, 1, sizeof buf, f);
    std::fclose(f);
    std::size_t used = len;
    while (used > 0 && (buf[used - 1] == '\n' || buf[used - 1] == '\r')) --used;
    c.etcd_password.assign(buf, used);
    klms::wipe(buf, sizeof buf);
  }
  return true;
}

// Keys of our section in openssl.cnf: state_dir, reserve, allow_network_fs, and the witness's.
// A 0/1 configuration key; false with an error raised when it is neither.
bool read_flag(ProviderContext& ctx, const char* name, const char* text, bool& out) {
  if (text == nullptr) return true;
  const std::string v = text;
  if (v == "1" || v == "yes" || v == "true") {
    out = true;
  } else if (v == "0" || v == "no" || v == "false") {
    out = false;
  } else {
    KLMS_RAISE(&ctx, kReasonBadParameter, "configuration: %s = '%s' is not 0 or 1", name, v.c_str());
    return false;
  }
  return true;
}

// Keys of our section in openssl.cnf: state_dir, reserve, allow_network_fs, allow_no_file_handles,
// low_signatures_warning.
bool read_configuration(ProviderContext& ctx) {
  if (ctx.core.get_params == nullptr) return true;
  char* state_dir = nullptr;
  char* reserve = nullptr;
  char* allow_network_fs = nullptr;
  char* witness = nullptr;
  char* tpm_tcti = nullptr;
  char* tpm_timeout_ms = nullptr;
  char* tpm_owner_auth_file = nullptr;
  char* tpm_nv_write_budget = nullptr;
  char* allow_no_file_handles = nullptr;
  char* low_signatures_warning = nullptr;
  char* witness_dir = nullptr;
  EtcdKeys etcd;
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr(kConfStateDir, &state_dir, 0),
                         OSSL_PARAM_construct_utf8_ptr(kConfReserve, &reserve, 0),
                         OSSL_PARAM_construct_utf8_ptr(kConfAllowNetworkFs, &allow_network_fs, 0),
                         OSSL_PARAM_construct_utf8_ptr(kConfWitness, &witness, 0),
                         OSSL_PARAM_construct_utf8_ptr(kConfTpmTcti, &tpm_tcti, 0),
                         OSSL_PARAM_construct_utf8_ptr(kConfTpmTimeoutMs, &tpm_timeout_ms, 0),
                         OSSL_PARAM_construct_utf8_ptr(kConfTpmOwnerAuthFile, &tpm_owner_auth_file, 0),
                         OSSL_PARAM_construct_utf8_ptr(kConfTpmNvWriteBudget, &tpm_nv_write_budget, 0),
                         OSSL_PARAM_construct_utf8_ptr(kConfAllowNoFileHandles, &allow_no_file_handles, 0),
                         OSSL_PARAM_construct_utf8_ptr(kConfLowSignaturesWarning, &low_signatures_warning, 0),
                         OSSL_PARAM_construct_utf8_ptr(KLMS_CONF_ETCD_ENDPOINTS, &etcd.endpoints, 0),
                         OSSL_PARAM_construct_utf8_ptr(KLMS_CONF_ETCD_PREFIX, &etcd.prefix, 0),
                         OSSL_PARAM_construct_utf8_ptr(KLMS_CONF_ETCD_CACERT, &etcd.cacert, 0),
                         OSSL_PARAM_construct_utf8_ptr(KLMS_CONF_ETCD_CERT, &etcd.cert, 0),
                         OSSL_PARAM_construct_utf8_ptr(KLMS_CONF_ETCD_KEY, &etcd.key, 0),
                         OSSL_PARAM_construct_utf8_ptr(KLMS_CONF_ETCD_USER, &etcd.user, 0),
                         OSSL_PARAM_construct_utf8_ptr(KLMS_CONF_ETCD_PASSWORD_FILE, &etcd.password_file, 0),
                         OSSL_PARAM_construct_utf8_ptr(KLMS_CONF_ETCD_TIMEOUT_MS, &etcd.timeout_ms, 0),
                         OSSL_PARAM_construct_utf8_ptr(KLMS_CONF_ETCD_BLOCK, &etcd.block, 0),
                         OSSL_PARAM_construct_utf8_ptr(KLMS_CONF_WITNESS_DIR, &witness_dir, 0),
                         OSSL_PARAM_END};
  if (!ctx.core.get_params(ctx.handle, params)) return true;
  // Process-wide, like the modules it finds (state/witness_module.h).
  if (witness_dir != nullptr) state::configure_witness_dir(witness_dir);
  if (!read_witness_configuration(ctx, witness, tpm_tcti, tpm_timeout_ms, tpm_owner_auth_file, tpm_nv_write_budget)) {
    return false;
  }
  if (!read_etcd_configuration(ctx, etcd)) return false;
  if (state_dir != nullptr) ctx.config.state_dir = state_dir;
  if (reserve != nullptr) {
    std::uint64_t n = 0;
    if (!parse_config_number(ctx, kConfReserve, reserve, state::kMaxReserve, n)) return false;
    ctx.config.reserve = n;
  }
  if (low_signatures_warning != nullptr) {
    std::uint64_t n = 0;
    const char* end = low_signatures_warning + std::strlen(low_signatures_warning);
    auto [ptr, ec] = std::from_chars(low_signatures_warning, end, n);
    if (ec != std::errc() || ptr != end || ptr == low_signatures_warning) {
      KLMS_RAISE(&ctx, kReasonBadParameter, "configuration: low_signatures_warning = '%s' is not a decimal number",
                 low_signatures_warning);
      return false;
    }
    ctx.config.low_signatures_warning = n;
  }
  return read_flag(ctx, "allow_network_fs", allow_network_fs, ctx.config.allow_network_fs) &&
         read_flag(ctx, "allow_no_file_handles", allow_no_file_handles, ctx.config.allow_no_file_handles);
}

// The OIDs of HSS/LMS, XMSS and XMSS^MT are not in OpenSSL 3.0's object table (nor XMSS's in 4.0):
// register each (short and long name, both algorithm names) and as a signature algorithm without
// digest, so X.509 (and CMS, for HSS) can find us.
bool register_objects(ProviderContext& ctx) {
  if (ctx.core.obj_create == nullptr || ctx.core.obj_add_sigid == nullptr) return false;
  for (const KeyScheme scheme : {KeyScheme::kHss, KeyScheme::kXmss, KeyScheme::kXmssMt}) {
    const SchemeIdentity& id = scheme_identity(scheme);
    if (ctx.core.obj_create(ctx.handle, id.oid, id.short_name, id.long_name) == 0 ||
        ctx.core.obj_add_sigid(ctx.handle, id.short_name, "", id.short_name) == 0) {
      KLMS_RAISE(&ctx, kReasonInternal, "cannot register the %s object identifier %s", id.name, id.oid);
      return false;
    }
  }
  return true;
}

void teardown(void* provctx) noexcept {
  auto* ctx = static_cast<ProviderContext*>(provctx);
  if (ctx == nullptr) return;
  OSSL_LIB_CTX_free(ctx->libctx);
  delete ctx;
}

const OSSL_PARAM* gettable_params(void* /*provctx*/) noexcept {
  static const OSSL_PARAM table[] = {OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, nullptr, 0),
                                     OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, nullptr, 0),
                                     OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, nullptr, 0),
                                     OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, nullptr), OSSL_PARAM_END};
  return table;
}

int get_params(void* /*provctx*/, OSSL_PARAM params[]) noexcept {
  OSSL_PARAM* p;
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_NAME)) != nullptr &&
      !OSSL_PARAM_set_utf8_ptr(p, "klms: LSH, Tandem-DM, HSS/LMS, K-LMS, XMSS, XMSS^MT and K-XMSS")) {
    return 0;
  }
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_VERSION)) != nullptr && !OSSL_PARAM_set_utf8_ptr(p, KLMS_VERSION)) {
    return 0;
  }
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_BUILDINFO)) != nullptr && !OSSL_PARAM_set_utf8_ptr(p, kBuildInfo)) {
    return 0;
  }
  if ((p = OSSL_PARAM_locate(params, OSSL_PROV_PARAM_STATUS)) != nullptr &&
      !OSSL_PARAM_set_int(p, no_self_test_failed() ? 1 : 0)) {
    return 0;
  }
  return 1;
}

const OSSL_ALGORITHM* query_operation(void* provctx, int operation_id, int* no_cache) noexcept {
  *no_cache = 0;
  (void)provctx;
  // The self-tests run per algorithm group on first use (self_test.h); after a failure, nothing.
  if (!no_self_test_failed()) return nullptr;
  switch (operation_id) {
    case OSSL_OP_DIGEST: return digest_algorithms();
    case OSSL_OP_KEYMGMT: return keymgmt_algorithms();
    case OSSL_OP_SIGNATURE: return signature_algorithms();
    case OSSL_OP_ENCODER: return encoder_algorithms();
    case OSSL_OP_DECODER: return decoder_algorithms();
    default: return nullptr;
  }
}

const OSSL_ITEM* get_reason_strings(void* /*provctx*/) noexcept { return reason_strings(); }

const OSSL_DISPATCH kProviderDispatch[] = {
    KLMS_DISPATCH(PROVIDER_TEARDOWN, provider_teardown, &teardown),
    KLMS_DISPATCH(PROVIDER_GETTABLE_PARAMS, provider_gettable_params, &gettable_params),
    KLMS_DISPATCH(PROVIDER_GET_PARAMS, provider_get_params, &get_params),
    KLMS_DISPATCH(PROVIDER_QUERY_OPERATION, provider_query_operation, &query_operation),
    KLMS_DISPATCH(PROVIDER_GET_REASON_STRINGS, provider_get_reason_strings, &get_reason_strings),
    KLMS_DISPATCH_END};

// OSSL_provider_init's body, inside the guard.
int init(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in, const OSSL_DISPATCH** out, void** provctx) {
  auto* ctx = new (std::nothrow) ProviderContext;
  if (ctx == nullptr) return 0;
  ctx->handle = handle;
  read_core_functions(in, ctx->core);
  const auto fail = [ctx] {
    teardown(ctx);
    return 0;
  };
  try {
    ctx->libctx = OSSL_LIB_CTX_new_child(handle, in);
    if (ctx->libctx == nullptr || !read_configuration(*ctx)) return fail();
    if (!register_objects(*ctx)) return fail();
  } catch (const std::bad_alloc&) {
    // Raised here, with the context whose core functions can raise it, before it is freed.
    KLMS_RAISE(ctx, kReasonOutOfMemory, "loading the provider: out of memory");
    return fail();
  }
  // No self-test here: each algorithm group runs its known-answer test on first use
  // (require_self_test), so loading costs an openssl process almost nothing.
  *out = kProviderDispatch;
  *provctx = ctx;
  return 1;
}

}  // namespace
}  // namespace klms::provider

extern "C" __attribute__((visibility("default"))) int OSSL_provider_init(const OSSL_CORE_HANDLE* handle,
                                                                        const OSSL_DISPATCH* in,
                                                                        const OSSL_DISPATCH** out,
                                                                        void** provctx) {
  // Not declared noexcept: openssl/core.h declares it (OSSL_provider_init_fn), and a redeclaration
  // must match; the guard makes it non-throwing all the same. No context to raise with exists
  // before init made one (init raises what happens after).
  return klms::provider::guarded(nullptr, "loading the provider", 0,
                                 [&] { return klms::provider::init(handle, in, out, provctx); });
}
