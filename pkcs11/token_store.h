// A token directory's own record (docs/pkcs11.md "Storage"): <dir>/token.meta holds the label, the
// serial number and, for the SO and the user, a 256-bit token key sealed under a key scrypt makes
// from that PIN, with the count of wrong PINs since the last right one. Both PINs open the same
// token key, so the SO can set a new user PIN (C_InitPIN) without losing the keys sealed under it.
// Every change is a whole-file atomic write under an exclusive lock of <dir>/token.lock, so that
// processes sharing the token count every wrong PIN.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pkcs11/config.h"
#include "pkcs11/cryptoki.h"
#include "pkcs11/pin_crypto.h"

namespace klms::pkcs11 {

enum class Role : std::uint8_t { kSo, kUser };

inline constexpr std::size_t kMinPinBytes = 4;
inline constexpr std::size_t kMaxPinBytes = 255;

struct PinRecord {
  bool present = false;
  Bytes salt;
  ScryptCost cost;
  Bytes sealed_key;
  std::uint64_t failures = 0;
};

struct TokenMeta {
  Bytes label;   // 32 bytes, blank-padded
  Bytes serial;  // 8 bytes
  PinRecord so;
  PinRecord user;
};

class TokenStore {
 public:
  explicit TokenStore(TokenConfig config) : config_(std::move(config)) {}
  const TokenConfig& config() const noexcept { return config_; }
  const std::string& dir() const noexcept { return config_.dir; }
  std::string objects_dir() const { return config_.dir + "/objects"; }
  std::string state_dir() const { return config_.dir + "/state"; }

  // The record; nullopt and CKR_OK when the token is not initialized, nullopt and
  // CKR_TOKEN_NOT_RECOGNIZED (logged) when the file is there but unreadable or malformed.
  std::optional<TokenMeta> load(CK_RV& rv) const;

  // C_InitToken's record: a new token key sealed under `so_pin`, no user PIN, a new serial.
  // The directory and its objects/ and state/ folders are made (0700) when missing.
  CK_RV initialize(ByteView so_pin, const CK_UTF8CHAR label[32]);
  // Checks `pin` for `role`, counting a wrong one (CKR_PIN_INCORRECT, then CKR_PIN_LOCKED after
  // max_pin_failures in a row): the count is raised before the PIN is checked, so a process killed
  // in the check has spent a try. On success `key` is the token key.
  CK_RV check_pin(Role role, ByteView pin, TokenKey& key);
  // Seals `key` under `pin` for `role` and clears its count (C_InitPIN, C_SetPIN).
  CK_RV set_pin(Role role, ByteView pin, const TokenKey& key);

  CK_FLAGS flags(const TokenMeta& meta) const noexcept;

 private:
  CK_RV save(const TokenMeta& meta) const;
  TokenConfig config_;
};

// Holds the token's lock file locked (flock, exclusive) for its life.
class TokenLock {
 public:
  explicit TokenLock(const std::string& dir);
  ~TokenLock();
  TokenLock(const TokenLock&) = delete;
  TokenLock& operator=(const TokenLock&) = delete;
  bool locked() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace klms::pkcs11
