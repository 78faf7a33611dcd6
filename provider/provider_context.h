// The provider's context: the core handle and library context OpenSSL gave us, the core functions
// we call back (errors, parameters, object registration), and the configuration keys of our section
// in openssl.cnf (state_dir, reserve, allow_network_fs, allow_no_file_handles,
// low_signatures_warning), which are the stateful layer's (stateful/configuration.h).
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include <cstdint>
#include <string>

#include "klms/klms.h"
#include "state/exhaustion.h"
#include "state/witness.h"
#include "stateful/configuration.h"

namespace klms::provider {

struct CoreFunctions {
  OSSL_FUNC_core_gettable_params_fn* gettable_params = nullptr;
  OSSL_FUNC_core_get_params_fn* get_params = nullptr;
  OSSL_FUNC_core_new_error_fn* new_error = nullptr;
  OSSL_FUNC_core_set_error_debug_fn* set_error_debug = nullptr;
  OSSL_FUNC_core_vset_error_fn* vset_error = nullptr;
  OSSL_FUNC_core_obj_create_fn* obj_create = nullptr;
  OSSL_FUNC_core_obj_add_sigid_fn* obj_add_sigid = nullptr;
  OSSL_FUNC_core_get_libctx_fn* get_libctx = nullptr;
};

inline constexpr std::uint64_t kDefaultLowSignaturesWarning = KLMS_DEFAULT_LOW_SIGNATURES_WARNING;  // <klms/klms.h>
// A state file records no T when it is the default: both must name the same number.
static_assert(kDefaultLowSignaturesWarning == state::kDefaultLowSignaturesWarning);

using Configuration = stateful::Configuration;

struct ProviderContext {
  const OSSL_CORE_HANDLE* handle = nullptr;
  OSSL_LIB_CTX* libctx = nullptr;  // a child library context of the application's
  CoreFunctions core;
  Configuration config;
};

}  // namespace klms::provider
