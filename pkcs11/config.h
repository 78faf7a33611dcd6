// Which tokens the module offers and how (docs/pkcs11.md "Configuration"): one slot per token
// directory, in order. KLMS_PKCS11_TOKEN_DIR (one directory, or several separated by ':') with the
// KLMS_PKCS11_* variables for their settings; else the configuration file KLMS_PKCS11_CONF, else
// /etc/klms/pkcs11.conf; else no slot at all. Read at C_Initialize: reading touches no token.
#pragma once

#include <string>
#include <vector>

#include "pkcs11/engine/engine_bridge.h"
#include "pkcs11/pin_crypto.h"

namespace klms::pkcs11 {

struct TokenConfig {
  std::string dir;  // absolute
  engine::StatePolicy policy;
  unsigned max_pin_failures = 10;  // consecutive wrong PINs before the PIN locks
  ScryptCost pin_cost;             // for PINs set from now on
};

struct ModuleConfig {
  std::vector<TokenConfig> tokens;
  std::string log;     // log destination (pkcs11/log.h); empty: the default
  std::string source;  // where it came from, for messages
};

inline constexpr const char* kDefaultConfigFile = "/etc/klms/pkcs11.conf";

// The configuration, or false with `why` (a line number and what is wrong with it).
bool read_module_config(ModuleConfig& out, std::string& why);
// The same from configuration text (tests, fuzzing).
bool parse_module_config(const std::string& text, const std::string& source, ModuleConfig& out, std::string& why);

}  // namespace klms::pkcs11
