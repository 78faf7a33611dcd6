#include "witness/etcd/token_cache.h"

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <string.h>

#include <map>
#include <mutex>

namespace klms::witness::etcd {
namespace {

using Clock = std::chrono::steady_clock;

struct Kept {
  std::string token;
  Clock::time_point issued;
};

struct Store {
  std::mutex mutex;
  std::map<std::string, Kept> tokens;
  bool closed = false;  // the process is exiting: nothing is kept any more

  void wipe_all() {
    for (auto& [identity, kept] : tokens) wipe(kept.token);
    tokens.clear();
  }
};

// Never destroyed: a call abandoned at its deadline runs on its own detached thread
// (witness/etcd/module.cpp) and may still keep or read a token while the process exits.
Store& store() {
  static Store* const s = new Store;
  return *s;
}

// At exit (or when the module is unloaded) the kept tokens are wiped and no more are kept.
struct WipeAtExit {
  ~WipeAtExit() {
    Store& s = store();
    std::lock_guard lock(s.mutex);
    s.wipe_all();
    s.closed = true;
  }
} wipe_at_exit;

}  // namespace

void wipe(std::string& s) noexcept {
  if (!s.empty()) ::explicit_bzero(s.data(), s.size());
  s.clear();
}

std::string token_identity(const std::string& endpoints, const std::string& user, const std::string& password) {
  unsigned char digest[32] = {0};
  std::string input = user;
  input.push_back('\0');
  input += password;
  const int rc = gnutls_hash_fast(GNUTLS_DIG_SHA256, input.data(), input.size(), digest);
  wipe(input);
  if (rc < 0) return {};  // no identity: nothing is kept or found
  std::string out = endpoints;
  out.push_back('\n');
  out += user;
  out.push_back('\n');
  static const char* const kHex = "0123456789abcdef";
  for (unsigned char b : digest) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

std::string kept_token(const std::string& identity) {
  if (identity.empty()) return {};
  Store& s = store();
  std::lock_guard lock(s.mutex);
  auto it = s.tokens.find(identity);
  if (it == s.tokens.end()) return {};
  if (Clock::now() - it->second.issued >= kTokenReuse) {
    wipe(it->second.token);
    s.tokens.erase(it);
    return {};
  }
  return it->second.token;
}

void keep_token(const std::string& identity, const std::string& token) {
  if (identity.empty() || token.empty()) return;
  Store& s = store();
  std::lock_guard lock(s.mutex);
  if (s.closed) return;
  Kept& kept = s.tokens[identity];
  wipe(kept.token);
  kept.token = token;
  kept.issued = Clock::now();
}

void forget_token(const std::string& identity, const std::string& token) {
  if (identity.empty()) return;
  Store& s = store();
  std::lock_guard lock(s.mutex);
  auto it = s.tokens.find(identity);
  if (it == s.tokens.end() || it->second.token != token) return;  // another call kept a fresh one already
  wipe(it->second.token);
  s.tokens.erase(it);
}

}  // namespace klms::witness::etcd
