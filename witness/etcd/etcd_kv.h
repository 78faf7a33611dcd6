// etcd's v3 API through its JSON gateway, as etcd documents it ("gRPC gateway": POST /v3/kv/range,
// /v3/kv/txn, /v3/auth/authenticate; keys and values base64, 64-bit integers as JSON strings):
// transactions over several endpoints with failover, authentication tokens, and every failure
// classified into a witness status (state/witness_module_abi.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "state/witness_module_abi.h"
#include "witness/etcd/http_client.h"

namespace klms::witness::etcd {

// Thrown inside the module only; the C entry points turn it into a status and a message.
struct Failure {
  int status;
  std::string message;
};

struct Kv {
  std::string key;
  std::string value;
  std::uint64_t create_revision = 0;
  std::uint64_t mod_revision = 0;
};

struct Header {
  std::uint64_t cluster_id = 0;
  std::uint64_t revision = 0;
  std::uint64_t raft_term = 0;
};

struct Compare {
  enum class Target { kCreate, kMod, kValue };
  std::string key;
  Target target = Target::kCreate;
  std::uint64_t revision = 0;  // kCreate, kMod: equal to this
  std::string value;           // kValue: equal to this
};

struct Op {
  enum class Kind { kRange, kPut, kDeleteRange };
  Kind kind = Kind::kRange;
  std::string key;
  std::string range_end;  // kRange, kDeleteRange: [key, range_end); empty: the key alone
  std::string value;      // kPut
};

struct TxnResult {
  Header header;
  bool succeeded = false;
  std::vector<std::vector<Kv>> ranges;  // per op of the branch taken: a range's kvs (empty for others)
};

// The smallest key after every key that starts with `prefix` (etcd's range_end for a prefix).
std::string prefix_end(const std::string& prefix);

class Client {
 public:
  using Clock = std::chrono::steady_clock;
  Client(const klms_etcd_target& target, Clock::time_point deadline);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  TxnResult txn(const std::vector<Compare>& compares, const std::vector<Op>& success,
                const std::vector<Op>& failure = {});

 private:
  std::string call(const std::string& path, const std::string& body);
  void authenticate(const std::string& endpoint);
  int seconds_left() const;

  std::vector<std::string> endpoints_;
  std::size_t current_ = 0;
  Transport transport_;
  std::string user_;
  std::string password_;
  std::string token_;     // kept between calls of the process (witness/etcd/token_cache.h)
  std::string identity_;  // whom token_ is for: endpoints, user, a digest of the password
  Clock::time_point deadline_;
};

}  // namespace klms::witness::etcd
