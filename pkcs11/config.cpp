#include "pkcs11/config.h"

#include <charconv>
#include <cstdlib>
#include <sstream>

#include "pkcs11/record_file.h"

namespace klms::pkcs11 {
namespace {

std::string trim(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const std::size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool parse_number(const std::string& text, std::uint64_t min, std::uint64_t max, std::uint64_t& out) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty() || v < min || v > max) return false;
  out = v;
  return true;
}

// A secret read from a file (the owner authorization, the etcd password), trailing newlines cut.
bool read_secret_file(const std::string& path, SecretBytes& out) {
  auto content = read_small_file(path);
  if (!content) return false;
  std::size_t n = content->size();
  while (n > 0 && ((*content)[n - 1] == '\n' || (*content)[n - 1] == '\r')) --n;
  out.assign(content->begin(), content->begin() + static_cast<std::ptrdiff_t>(n));
  wipe(content->data(), content->size());
  return true;
}

// One setting of a token; false with `why`.
bool set_token_key(TokenConfig& t, const std::string& key, const std::string& value, std::string& why) {
  std::uint64_t n = 0;
  engine::StatePolicy& p = t.policy;
  if (key == "dir") {
    if (value.empty() || value.front() != '/') {
      why = "dir must be an absolute path, not '" + value + "'";
      return false;
    }
    t.dir = value;
    while (t.dir.size() > 1 && t.dir.back() == '/') t.dir.pop_back();
  } else if (key == "witness") {
    if (value == "none") p.witness = engine::StatePolicy::Witness::kNone;
    else if (value == "tpm") p.witness = engine::StatePolicy::Witness::kTpm;
    else if (value == "etcd") p.witness = engine::StatePolicy::Witness::kEtcd;
    else {
      why = "witness is one of none, tpm, etcd, not '" + value + "'";
      return false;
    }
  } else if (key == "max_pin_failures") {
    if (!parse_number(value, 1, 100, n)) {
      why = "max_pin_failures is a number from 1 to 100";
      return false;
    }
    t.max_pin_failures = static_cast<unsigned>(n);
  } else if (key == "pin_cost") {
    if (!parse_number(value, kMinLogN, kMaxLogN, n)) {
      why = "pin_cost is log2 of scrypt's N, from " + std::to_string(kMinLogN) + " to " + std::to_string(kMaxLogN);
      return false;
    }
    t.pin_cost.log_n = static_cast<unsigned>(n);
  } else if (key == "low_signatures_warning") {
    if (!parse_number(value, 0, ~std::uint64_t{0}, n)) {
      why = "low_signatures_warning is a number";
      return false;
    }
    p.low_signatures_warning = n;
  } else if (key == "allow_network_fs" || key == "allow_no_file_handles") {
    if (value != "0" && value != "1") {
      why = key + " is 0 or 1";
      return false;
    }
    (key == "allow_network_fs" ? p.allow_network_fs : p.allow_no_file_handles) = value == "1";
  } else if (key == "tpm_tcti") {
    p.tpm_tcti = value;
  } else if (key == "tpm_owner_auth_file") {
    if (!read_secret_file(value, p.tpm_owner_auth)) {
      why = "tpm_owner_auth_file '" + value + "' cannot be read";
      return false;
    }
  } else if (key == "etcd_password_file") {
    if (!read_secret_file(value, p.etcd_password)) {
      why = "etcd_password_file '" + value + "' cannot be read";
      return false;
    }
  } else if (key == "etcd_endpoints") {
    p.etcd_endpoints = value;
  } else if (key == "etcd_prefix") {
    p.etcd_prefix = value;
  } else if (key == "etcd_cacert") {
    p.etcd_cacert = value;
  } else if (key == "etcd_cert") {
    p.etcd_cert = value;
  } else if (key == "etcd_key") {
    p.etcd_key = value;
  } else if (key == "etcd_user") {
    p.etcd_user = value;
  } else {
    why = "unknown key '" + key + "'";
    return false;
  }
  return true;
}

// The KLMS_PKCS11_<KEY> variables, for every token of KLMS_PKCS11_TOKEN_DIR.
bool token_from_environment(TokenConfig& t, std::string& why) {
  static const char* const kKeys[] = {"witness", "max_pin_failures", "pin_cost", "low_signatures_warning",
                                      "allow_network_fs", "allow_no_file_handles", "tpm_tcti", "tpm_owner_auth_file",
                                      "etcd_endpoints", "etcd_prefix", "etcd_cacert", "etcd_cert", "etcd_key",
                                      "etcd_user", "etcd_password_file"};
  for (const char* key : kKeys) {
    std::string var = "KLMS_PKCS11_";
    for (const char* c = key; *c != '\0'; ++c) var.push_back(static_cast<char>(*c >= 'a' && *c <= 'z' ? *c - 32 : *c));
    const char* value = std::getenv(var.c_str());
    if (value == nullptr) continue;
    if (!set_token_key(t, key, value, why)) {
      why.insert(0, var + ": ");
      return false;
    }
  }
  return true;
}

}  // namespace

bool parse_module_config(const std::string& text, const std::string& source, ModuleConfig& out, std::string& why) {
  out = ModuleConfig{};
  out.source = source;
  std::istringstream in(text);
  std::string line;
  unsigned number = 0;
  bool in_token = false;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = source + ":" + std::to_string(number) + ": ";
    const std::size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    line = trim(line);
    if (line.empty()) continue;
    if (line == "[token]") {
      if (in_token && out.tokens.back().dir.empty()) {
        why = where + "the [token] before this one has no dir";
        return false;
      }
      out.tokens.emplace_back();
      in_token = true;
      continue;
    }
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) {
      why = where + "expected 'key = value' or [token]";
      return false;
    }
    const std::string key = trim(line.substr(0, eq));
    const std::string value = trim(line.substr(eq + 1));
    if (!in_token) {
      if (key != "log") {
        why = where + "only 'log' comes before the first [token]";
        return false;
      }
      out.log = value;
      continue;
    }
    if (!set_token_key(out.tokens.back(), key, value, why)) {
      why.insert(0, where);
      return false;
    }
  }
  if (in_token && out.tokens.back().dir.empty()) {
    why = source + ": the last [token] has no dir";
    return false;
  }
  return true;
}

bool read_module_config(ModuleConfig& out, std::string& why) {
  const char* log = std::getenv("KLMS_PKCS11_LOG");
  if (const char* dirs = std::getenv("KLMS_PKCS11_TOKEN_DIR"); dirs != nullptr && *dirs != '\0') {
    out = ModuleConfig{};
    out.source = "KLMS_PKCS11_TOKEN_DIR";
    std::string all = dirs;
    std::size_t start = 0;
    while (start <= all.size()) {
      const std::size_t colon = all.find(':', start);
      const std::string dir = all.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      TokenConfig t;
      if (!set_token_key(t, "dir", dir, why)) {
        why.insert(0, "KLMS_PKCS11_TOKEN_DIR: ");
        return false;
      }
      if (!token_from_environment(t, why)) return false;
      out.tokens.push_back(std::move(t));
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  } else {
    const char* named = std::getenv("KLMS_PKCS11_CONF");
    const std::string path = named != nullptr && *named != '\0' ? named : kDefaultConfigFile;
    auto text = read_small_file(path);
    if (!text) {
      out = ModuleConfig{};
      out.source = path;
      if (named != nullptr && *named != '\0') {
        why = "KLMS_PKCS11_CONF: '" + path + "' cannot be read";
        return false;
      }
    } else if (!parse_module_config(*text, path, out, why)) {
      return false;
    }
  }
  if (log != nullptr) out.log = log;
  return true;
}

}  // namespace klms::pkcs11
