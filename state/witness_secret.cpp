#include "state/witness_secret.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "hashes/backend.h"
#include "state/fs_checks.h"
#include "state/io.h"

namespace klms::state {
namespace {

constexpr std::size_t kSecretBytes = 32;
constexpr char kLabel[] = "klms tpm counter";

// HMAC-SHA256 (RFC 2104) of a 32-byte key over label || key id.
void hmac_sha256(const std::uint8_t* key, const std::uint8_t* msg, std::size_t msg_len, std::uint8_t* out) noexcept {
  std::uint8_t inner[64 + 64] = {0};
  std::uint8_t outer[64 + 32] = {0};
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint8_t k = i < kSecretBytes ? key[i] : 0;
    inner[i] = k ^ 0x36;
    outer[i] = k ^ 0x5c;
  }
  std::memcpy(inner + 64, msg, msg_len);
  hashes::sha256_digest(inner, 64 + msg_len, outer + 64);
  hashes::sha256_digest(outer, sizeof outer, out);
  wipe(inner, sizeof inner);
  wipe(outer, sizeof outer);
}

Error read_secret(int dir_fd, SecretArray<kSecretBytes>& secret) noexcept {
  io::UniqueFd fd(::openat(dir_fd, kWitnessSecretName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return errno == ENOENT ? Error::kWitnessSecretMissing : Error::kWitnessSecretInsecure;
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() ||
      (st.st_mode & (S_IRWXG | S_IRWXO)) != 0 || st.st_size != static_cast<off_t>(kSecretBytes)) {
    return Error::kWitnessSecretInsecure;
  }
  std::size_t done = 0;
  while (done < kSecretBytes) {
    const ssize_t n = ::read(fd.get(), secret.data() + done, kSecretBytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Error::kWitnessSecretInsecure;
    done += static_cast<std::size_t>(n);
  }
  return Error::kOk;
}

Error create_secret(int dir_fd) noexcept {
  SecretArray<kSecretBytes> fresh;
  if (Error e = io::fill_random(fresh.data(), fresh.size()); e != Error::kOk) return e;
  io::UniqueFd fd(::openat(dir_fd, kWitnessSecretName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return errno == EEXIST ? Error::kOk : Error::kStateWriteFailed;  // EEXIST: made meanwhile
  if (::write(fd.get(), fresh.data(), fresh.size()) != static_cast<ssize_t>(fresh.size()) || ::fsync(fd.get()) != 0 ||
      ::fsync(dir_fd) != 0) {
    ::unlinkat(dir_fd, kWitnessSecretName, 0);
    return Error::kStateWriteFailed;
  }
  return Error::kOk;
}

}  // namespace

Result<tpm::CounterAuth> counter_auth_of(const std::string& state_path, const KeyId& key_id, bool create) noexcept {
  auto parts = fs::split_path(state_path);
  if (!parts) return parts.error();
  auto dir = fs::open_checked_directory(parts->directory);
  if (!dir) return dir.error();
  SecretArray<kSecretBytes> secret;
  Error e = read_secret(dir->get(), secret);
  if (e == Error::kWitnessSecretMissing && create) {
    if (Error c = create_secret(dir->get()); c != Error::kOk) return c;
    e = read_secret(dir->get(), secret);
  }
  if (e != Error::kOk) return e;
  std::uint8_t msg[sizeof kLabel - 1 + 32];
  std::memcpy(msg, kLabel, sizeof kLabel - 1);
  std::memcpy(msg + sizeof kLabel - 1, key_id.data(), key_id.size());
  tpm::CounterAuth auth;
  hmac_sha256(secret.data(), msg, sizeof msg, auth.data());
  return auth;
}

}  // namespace klms::state
