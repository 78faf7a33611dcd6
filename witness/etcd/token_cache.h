// etcd authentication tokens kept between the calls of one process (docs/fleet.md "Cost"). etcd
// checks the password with bcrypt on every /v3/auth/authenticate, tens of milliseconds of the
// members' CPU per call; a kept token makes a long-running signer, and a `reserve` batch, pay it
// once. A token is reused for at most kTokenReuse after it was issued; one that etcd refuses sooner
// (expired under a shorter --auth-token-ttl, or the auth store changed: a role revoked, a password
// changed) is forgotten and the call authenticates once more (witness/etcd/etcd_kv.cpp). Tokens
// are wiped when replaced, forgotten, and when the process exits.
#pragma once

#include <chrono>
#include <string>

namespace klms::witness::etcd {

// Under etcd's default --auth-token-ttl (300 s; a simple token expires 300 s after its last use, a
// JWT 300 s after it was issued): a token kept this long is replaced before etcd would refuse it.
inline constexpr std::chrono::seconds kTokenReuse{240};

// Whom a token is for: the endpoints, the user and a digest of the password, so that a token
// obtained with one password is never handed to a call configured with another.
std::string token_identity(const std::string& endpoints, const std::string& user, const std::string& password);

// The token kept for `identity`, or "" (none, or kept for kTokenReuse already).
std::string kept_token(const std::string& identity);
void keep_token(const std::string& identity, const std::string& token);
// Forgets `token` when it is still the one kept for `identity` (etcd refused it).
void forget_token(const std::string& identity, const std::string& token);

// Overwrites a string's characters (a token, a password, a request that carried one).
void wipe(std::string& s) noexcept;

}  // namespace klms::witness::etcd
