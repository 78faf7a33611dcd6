// Everything the PKCS#11 module asks of the HSS engine and the state store, in one place: the
// parameter sets, key generation, signing through the signing session (lms/signing_session.h),
// the state file's remaining signatures and retirement, verification. The rest of pkcs11/ knows
// keys only as octets and type codes, so that the engine underneath can move without touching it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "base/bytes.h"
#include "base/error.h"
#include "base/secret.h"

namespace klms::pkcs11::engine {

// One HSS level as PKCS#11 names it: the RFC 8554 / SP 800-208 type codes (K-LMS: its private-use
// codes, docs/params.md).
struct LevelTypes {
  std::uint32_t lms = 0;
  std::uint32_t ots = 0;
};

// What a token's state files are checked against and where their witness is (docs/state.md).
struct StatePolicy {
  enum class Witness : std::uint8_t { kNone, kTpm, kEtcd };
  Witness witness = Witness::kNone;  // for keys generated from now on
  bool allow_network_fs = false;
  bool allow_no_file_handles = false;
  std::uint64_t low_signatures_warning = 100;  // recorded in each new state file (docs/state.md §5)
  std::string tpm_tcti;                        // empty: the state store's default
  SecretBytes tpm_owner_auth;
  std::string etcd_endpoints, etcd_prefix, etcd_cacert, etcd_cert, etcd_key, etcd_user;
  SecretBytes etcd_password;
};

// kOk, or why this choice of levels cannot make a key (and `why` says it in words).
Error check_levels(std::span<const LevelTypes> levels, std::string& why);
// For levels check_levels accepts.
std::size_t signature_bytes(std::span<const LevelTypes> levels) noexcept;
std::uint64_t max_signatures(std::span<const LevelTypes> levels) noexcept;

// A raw HSS public key's number of levels and top level types; false when it is not one.
bool parse_public_key(ByteView raw, std::uint32_t& levels, LevelTypes& top) noexcept;
// SHA-256 of the raw public key: the key id of its state file.
std::array<std::uint8_t, 32> key_id(ByteView raw_public_key) noexcept;

struct GeneratedPair;

// A private key that signs through its state file, kept between signatures: its signer's trees
// stay in memory, as the signing session keeps them (lms/signing_session.h).
class SigningKey {
 public:
  // `private_key` as generate() gave it; the state file is `state_file` wherever the key was made.
  static Result<std::unique_ptr<SigningKey>> load(ByteView private_key, ByteView public_key,
                                                  const std::string& state_file);
  ~SigningKey();
  SigningKey(const SigningKey&) = delete;
  SigningKey& operator=(const SigningKey&) = delete;

  // One signature of `message` with the next index of the state file (one durable reservation of
  // one index). On a refusal `step` names the step that refused ("opening the state file", ...).
  Result<Bytes> sign(ByteView message, const StatePolicy& policy, std::string& step);
  // What the state file has left, read now under the same checks as signing.
  Result<std::uint64_t> remaining(const StatePolicy& policy);
  std::size_t signature_bytes() const noexcept;
  const std::string& state_file() const noexcept;

  struct Impl;

 private:
  friend Result<GeneratedPair> generate(std::span<const LevelTypes> levels, const std::string& state_file,
                                        const StatePolicy& policy);
  explicit SigningKey(std::unique_ptr<Impl> impl) noexcept;
  std::unique_ptr<Impl> impl_;
};

struct GeneratedPair {
  SecretBytes private_key;  // the engine's private-key octets (docs/design.md "Private key")
  Bytes public_key;         // raw HSS public key
  std::unique_ptr<SigningKey> signing;  // holds the top tree key generation built
};
// A new key whose state file is created at `state_file` (exclusively, 0600, docs/state.md §3).
Result<GeneratedPair> generate(std::span<const LevelTypes> levels, const std::string& state_file,
                               const StatePolicy& policy);

// kOk, kVerifyFailed, or a parse error of the key or signature.
Error verify(ByteView public_key, ByteView message, ByteView signature) noexcept;

// A destroyed key's state file: moved to its end by one durable write (it can never sign again)
// and its witness released; the tree caches beside it removed.
Error retire(const std::string& state_file, const StatePolicy& policy);

// The engine's words for an error, and what to do about it for this state file ("; run: ...").
std::string explain(Error error, const std::string& state_file);

}  // namespace klms::pkcs11::engine
