#include "pkcs11/token_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pkcs11/log.h"
#include "pkcs11/record_file.h"

namespace klms::pkcs11 {
namespace {

constexpr const char* kMetaKind = "token";

std::string meta_path(const std::string& dir) { return dir + "/token.meta"; }

// What a sealed token key is bound to: its role and the token it belongs to.
std::string wrap_context(Role role, const Bytes& serial) {
  std::string s = role == Role::kSo ? "klms-pkcs11 token key so " : "klms-pkcs11 token key user ";
  s.append(reinterpret_cast<const char*>(serial.data()), serial.size());
  return s;
}

void put_pin(Records& r, const char* who, const PinRecord& p) {
  if (!p.present) return;
  const std::string w = who;
  r.set_bytes(w + "_salt", ByteView(p.salt.data(), p.salt.size()));
  r.set_number(w + "_log_n", p.cost.log_n);
  r.set_number(w + "_r", p.cost.r);
  r.set_number(w + "_p", p.cost.p);
  r.set_bytes(w + "_key", ByteView(p.sealed_key.data(), p.sealed_key.size()));
  r.set_number(w + "_failures", p.failures);
}

bool get_pin(const Records& r, const char* who, PinRecord& p) {
  const std::string w = who;
  if (!r.has(w + "_key")) {
    p = PinRecord{};
    return !r.has(w + "_salt") && !r.has(w + "_failures");
  }
  auto salt = r.bytes(w + "_salt");
  auto log_n = r.number(w + "_log_n");
  auto rr = r.number(w + "_r");
  auto pp = r.number(w + "_p");
  auto key = r.bytes(w + "_key");
  auto failures = r.number(w + "_failures");
  if (!salt || !log_n || !rr || !pp || !key || !failures) return false;
  p.present = true;
  p.salt = *salt;
  p.cost = ScryptCost{static_cast<unsigned>(*log_n), static_cast<unsigned>(*rr), static_cast<unsigned>(*pp)};
  p.sealed_key = *key;
  p.failures = *failures;
  return p.salt.size() == kSaltBytes && scrypt_cost_valid(p.cost) && *log_n == p.cost.log_n &&
         p.sealed_key.size() == kNonceBytes + kTokenKeyBytes + kTagBytes;
}

// A new sealed token key for `pin` (salt, cost, seal).
bool seal_for_pin(PinRecord& p, ByteView pin, const ScryptCost& cost, const TokenKey& key, Role role,
                  const Bytes& serial) {
  p.salt.assign(kSaltBytes, 0);
  if (!random_bytes(p.salt.data(), p.salt.size())) return false;
  p.cost = cost;
  TokenKey kek;
  if (!derive_key(pin, ByteView(p.salt.data(), p.salt.size()), cost, kek)) return false;
  p.sealed_key = seal(kek, ByteView(key.data(), key.size()), wrap_context(role, serial));
  p.failures = 0;
  p.present = !p.sealed_key.empty();
  return p.present;
}

bool make_private_dir(const std::string& path) {
  if (mkdir(path.c_str(), 0700) == 0) return true;
  struct stat st{};
  return errno == EEXIST && lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

TokenLock::TokenLock(const std::string& dir) {
  const std::string path = dir + "/token.lock";
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd_ < 0) return;
  while (flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) {
      close(fd_);
      fd_ = -1;
      return;
    }
  }
}

TokenLock::~TokenLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the lock
}

std::optional<TokenMeta> TokenStore::load(CK_RV& rv) const {
  rv = CKR_OK;
  auto text = read_small_file(meta_path(config_.dir));
  if (!text) {
    if (errno == ENOENT) return std::nullopt;
    log_line(LogLevel::kError, "token %s: cannot read token.meta: %s", config_.dir.c_str(), std::strerror(errno));
    rv = CKR_TOKEN_NOT_RECOGNIZED;
    return std::nullopt;
  }
  auto records = Records::parse(*text, kMetaKind);
  TokenMeta meta;
  bool ok = records.has_value();
  if (ok) {
    auto label = records->bytes("label");
    auto serial = records->bytes("serial");
    ok = label && serial && label->size() == 32 && serial->size() == 8 && get_pin(*records, "so", meta.so) &&
         get_pin(*records, "user", meta.user) && meta.so.present;
    if (ok) {
      meta.label = *label;
      meta.serial = *serial;
    }
  }
  if (!ok) {
    log_line(LogLevel::kError, "token %s: token.meta is damaged or not a klms token record; the token's keys "
             "cannot be opened (restore token.meta from a backup)", config_.dir.c_str());
    rv = CKR_TOKEN_NOT_RECOGNIZED;
    return std::nullopt;
  }
  return meta;
}

CK_RV TokenStore::save(const TokenMeta& meta) const {
  Records r;
  r.set_bytes("label", ByteView(meta.label.data(), meta.label.size()));
  r.set_bytes("serial", ByteView(meta.serial.data(), meta.serial.size()));
  put_pin(r, "so", meta.so);
  put_pin(r, "user", meta.user);
  if (!write_file_atomically(meta_path(config_.dir), r.serialize(kMetaKind))) {
    log_line(LogLevel::kError, "token %s: cannot write token.meta: %s", config_.dir.c_str(), std::strerror(errno));
    return CKR_DEVICE_ERROR;
  }
  return CKR_OK;
}

CK_RV TokenStore::initialize(ByteView so_pin, const CK_UTF8CHAR label[32]) {
  if (!make_private_dir(config_.dir) || !make_private_dir(objects_dir()) || !make_private_dir(state_dir())) {
    log_line(LogLevel::kError, "token %s: cannot make the token directory (its parent must exist): %s",
             config_.dir.c_str(), std::strerror(errno));
    return CKR_DEVICE_ERROR;
  }
  TokenLock lock(config_.dir);
  if (!lock.locked()) return CKR_DEVICE_ERROR;
  TokenMeta meta;
  // 32 blank-padded bytes; a NUL ends the label early (some clients, PyKCS11 among them, pass a C
  // string), so that nothing past a short label's terminator is read.
  meta.label.assign(32, ' ');
  for (std::size_t i = 0; i < 32 && label[i] != 0; ++i) meta.label[i] = label[i];
  meta.serial.assign(8, 0);
  TokenKey key;
  if (!random_bytes(meta.serial.data(), meta.serial.size()) || !random_bytes(key.data(), key.size()) ||
      !seal_for_pin(meta.so, so_pin, config_.pin_cost, key, Role::kSo, meta.serial)) {
    return CKR_FUNCTION_FAILED;
  }
  return save(meta);
}

CK_RV TokenStore::check_pin(Role role, ByteView pin, TokenKey& key) {
  PinRecord record;
  Bytes serial;
  const char* who = role == Role::kSo ? "SO" : "user";
  {
    TokenLock lock(config_.dir);
    if (!lock.locked()) return CKR_DEVICE_ERROR;
    CK_RV rv = CKR_OK;
    auto meta = load(rv);
    if (!meta) return rv == CKR_OK ? CKR_TOKEN_NOT_RECOGNIZED : rv;
    PinRecord& p = role == Role::kSo ? meta->so : meta->user;
    if (!p.present) return CKR_USER_PIN_NOT_INITIALIZED;
    if (p.failures >= config_.max_pin_failures) {
      log_line(LogLevel::kError, "token %s: the %s PIN is locked after %llu wrong PINs%s", config_.dir.c_str(), who,
               static_cast<unsigned long long>(p.failures),
               role == Role::kUser ? "; the SO sets a new one with C_InitPIN" : "; the token cannot be unlocked");
      return CKR_PIN_LOCKED;
    }
    ++p.failures;  // spent before the check: see check_pin in pkcs11/token_store.h
    if (const CK_RV saved = save(*meta); saved != CKR_OK) return saved;
    record = p;
    serial = meta->serial;
  }
  TokenKey kek;
  if (!derive_key(pin, ByteView(record.salt.data(), record.salt.size()), record.cost, kek)) {
    return CKR_FUNCTION_FAILED;
  }
  SecretBytes plain;
  if (!open_sealed(kek, ByteView(record.sealed_key.data(), record.sealed_key.size()), wrap_context(role, serial),
                   plain) ||
      plain.size() != kTokenKeyBytes) {
    const bool now_locked = record.failures >= config_.max_pin_failures;
    log_line(LogLevel::kWarning, "token %s: wrong %s PIN (%llu of %u tries used)%s", config_.dir.c_str(), who,
             static_cast<unsigned long long>(record.failures), config_.max_pin_failures,
             now_locked ? "; the PIN is now locked" : "");
    return CKR_PIN_INCORRECT;
  }
  std::memcpy(key.data(), plain.data(), kTokenKeyBytes);
  TokenLock lock(config_.dir);
  if (!lock.locked()) return CKR_DEVICE_ERROR;
  CK_RV rv = CKR_OK;
  auto meta = load(rv);
  if (!meta) return rv == CKR_OK ? CKR_TOKEN_NOT_RECOGNIZED : rv;
  PinRecord& p = role == Role::kSo ? meta->so : meta->user;
  if (p.sealed_key != record.sealed_key) return CKR_PIN_INCORRECT;  // changed meanwhile: not this PIN's record any more
  if (p.failures == 0) return CKR_OK;
  p.failures = 0;
  return save(*meta);
}

CK_RV TokenStore::set_pin(Role role, ByteView pin, const TokenKey& key) {
  TokenLock lock(config_.dir);
  if (!lock.locked()) return CKR_DEVICE_ERROR;
  CK_RV rv = CKR_OK;
  auto meta = load(rv);
  if (!meta) return rv == CKR_OK ? CKR_TOKEN_NOT_RECOGNIZED : rv;
  PinRecord& p = role == Role::kSo ? meta->so : meta->user;
  if (!seal_for_pin(p, pin, config_.pin_cost, key, role, meta->serial)) return CKR_FUNCTION_FAILED;
  return save(*meta);
}

CK_FLAGS TokenStore::flags(const TokenMeta& meta) const noexcept {
  CK_FLAGS f = CKF_RNG | CKF_LOGIN_REQUIRED | CKF_TOKEN_INITIALIZED;
  const std::uint64_t max = config_.max_pin_failures;
  if (meta.user.present) {
    f |= CKF_USER_PIN_INITIALIZED;
    if (meta.user.failures > 0) f |= CKF_USER_PIN_COUNT_LOW;
    if (meta.user.failures + 1 == max) f |= CKF_USER_PIN_FINAL_TRY;
    if (meta.user.failures >= max) f |= CKF_USER_PIN_LOCKED;
  }
  if (meta.so.failures > 0) f |= CKF_SO_PIN_COUNT_LOW;
  if (meta.so.failures + 1 == max) f |= CKF_SO_PIN_FINAL_TRY;
  if (meta.so.failures >= max) f |= CKF_SO_PIN_LOCKED;
  return f;
}

}  // namespace klms::pkcs11
