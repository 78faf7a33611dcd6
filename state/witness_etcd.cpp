// Loads klms-witness-etcd.so on first use and calls it (state/witness_etcd.h).
#include "state/witness_etcd.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/hex.h"
#include "state/witness_module.h"
#include "state/witness_module_abi.h"

namespace klms::state::etcd {
namespace {

struct Module {
  const klms_witness_etcd_api* api = nullptr;
  std::string error;
};

// Loaded once per process (state/witness_module.h).
const Module& module() noexcept {
  static Module loaded;
  static std::once_flag once;
  std::call_once(once, [] {
    loaded.api = static_cast<const klms_witness_etcd_api*>(
        open_witness_module(KLMS_WITNESS_ETCD_MODULE, KLMS_WITNESS_ETCD_ENTRY, KLMS_WITNESS_ETCD_ABI_VERSION, "etcd witness", "klms-witness-etcd", loaded.error));
  });
  return loaded;
}

thread_local std::string t_last_message;

Error error_of(int status) noexcept {
  switch (status) {
    case KLMS_WITNESS_OK: return Error::kOk;
    case KLMS_WITNESS_UNREACHABLE:
    case KLMS_WITNESS_DEADLINE:
    case KLMS_WITNESS_CONTENDED: return Error::kWitnessUnreachable;
    case KLMS_WITNESS_MISSING: return Error::kWitnessMissing;
    case KLMS_WITNESS_AUTH_FAILED: return Error::kWitnessAuthFailed;
    case KLMS_WITNESS_NOT_OURS: return Error::kWitnessMismatch;
    case KLMS_WITNESS_BACKWARDS: return Error::kWitnessWentBackwards;
    case KLMS_WITNESS_RECREATED: return Error::kWitnessRecreated;
    case KLMS_WITNESS_OTHER_CLUSTER: return Error::kWitnessOtherCluster;
    case KLMS_WITNESS_OLDER_REVISION: return Error::kWitnessOlderRevision;
    case KLMS_WITNESS_DENIED: return Error::kWitnessDenied;
    case KLMS_WITNESS_EXHAUSTED: return Error::kExhausted;
    case KLMS_WITNESS_UNACKNOWLEDGED: return Error::kExhaustionNotAcknowledged;
    default: return Error::kWitnessFailed;
  }
}

// The configuration as the module takes it, alive for one call.
struct Target {
  ResolvedEtcd resolved;
  klms_etcd_target c{};
  Error error = Error::kOk;
  std::string why;
  explicit Target(const WitnessConfig& config) {
    error = resolve_etcd(config, resolved, &why);
    c.endpoints = resolved.endpoints.c_str();
    c.prefix = resolved.prefix.c_str();
    c.cacert = resolved.cacert.c_str();
    c.cert = resolved.cert.c_str();
    c.key = resolved.key.c_str();
    c.user = resolved.user.empty() ? nullptr : resolved.user.c_str();
    c.password = resolved.password.data();
    c.password_len = resolved.password.size();
    c.timeout_ms = resolved.timeout_ms;
  }
};

std::uint64_t target_block(const WitnessConfig& config) {
  ResolvedEtcd r;
  (void)resolve_etcd(config, r, nullptr, /*with_password=*/false);
  return r.block;
}


klms_etcd_binding c_of(const FleetBinding& b) noexcept {
  klms_etcd_binding c{};
  c.cluster_id = b.cluster_id;
  c.counter_created = b.counter_created;
  c.host_created = b.host_created;
  c.revision_seen = b.revision_seen;
  c.block_end = b.block_end;
  c.term_seen = b.term_seen;
  c.host_id = b.host_id;
  return c;
}

FleetBinding of_c(const klms_etcd_binding& c) noexcept {
  FleetBinding b;
  b.cluster_id = c.cluster_id;
  b.counter_created = c.counter_created;
  b.host_created = c.host_created;
  b.revision_seen = c.revision_seen;
  b.block_end = c.block_end;
  b.term_seen = c.term_seen;
  b.host_id = c.host_id;
  return b;
}

// Runs one module call: `body(api, target, key id, text, len)` returns its status.
template <typename Body>
Error call(const WitnessConfig& config, const KeyId& key_id, std::string* message, Body&& body) noexcept {
  try {
    t_last_message.clear();
    const Module& m = module();
    if (m.api == nullptr) {
      t_last_message = m.error;
      if (message != nullptr) *message = m.error;
      return Error::kWitnessModuleMissing;
    }
    Target target(config);
    if (target.error != Error::kOk) {
      t_last_message = target.why;
      if (message != nullptr) *message = target.why;
      return target.error;
    }
    char text[512] = {0};
    const std::string id = hex(key_id);
    const int status = body(*m.api, target.c, id.c_str(), text, sizeof text);
    const Error e = error_of(status);
    if (e != Error::kOk) t_last_message = text;
    if (message != nullptr) *message = text;
    return e;
  } catch (...) {
    return Error::kOutOfMemory;
  }
}

}  // namespace

const std::string& last_message() noexcept { return t_last_message; }

Result<FleetBinding> create_key(const WitnessConfig& config, const KeyId& key_id, const KeyDescription& key,
                                std::uint64_t first_index, std::string* message) noexcept {
  klms_etcd_binding out{};
  const Error e = call(config, key_id, message, [&](const klms_witness_etcd_api& api, const klms_etcd_target& t,
                                                    const char* id, char* text, std::size_t len) {
    return api.create_key(&t, id, key.max_signatures, key.levels_digest.data(), first_index, &out, text, len);
  });
  if (e != Error::kOk) return e;
  return of_c(out);
}

Result<FleetBinding> join(const WitnessConfig& config, const KeyId& key_id, KeyDescription& key,
                          std::string* message) noexcept {
  klms_etcd_binding out{};
  const Error e = call(config, key_id, message, [&](const klms_witness_etcd_api& api, const klms_etcd_target& t,
                                                    const char* id, char* text, std::size_t len) {
    return api.join(&t, id, &out, &key.max_signatures, key.levels_digest.data(), text, len);
  });
  if (e != Error::kOk) return e;
  return of_c(out);
}

Result<Grant> reserve(const WitnessConfig& config, const KeyId& key_id, std::uint64_t max_signatures,
                      const FleetBinding& in, std::uint64_t local_next, std::uint64_t want, std::uint64_t gate,
                      std::string* message) noexcept {
  klms_etcd_binding out{};
  Grant g;
  const klms_etcd_binding c = c_of(in);
  const Error e = call(config, key_id, message, [&](const klms_witness_etcd_api& api, const klms_etcd_target& t,
                                                    const char* id, char* text, std::size_t len) {
    return api.reserve(&t, id, max_signatures, &c, local_next, want, target_block(config), gate, &g.start, &g.count,
                       &out, text, len);
  });
  if (e != Error::kOk) return e;
  g.binding = of_c(out);
  // What the module granted must fit what the file can record: never past the key, never empty,
  // never before what this file already handed out, never past the gate.
  if (g.count == 0 || g.count > want || g.start < local_next || g.start + g.count > g.binding.block_end ||
      g.binding.block_end > max_signatures || g.binding.host_id != in.host_id || g.start + g.count > gate) {
    return Error::kWitnessMismatch;
  }
  return g;
}

Error read(const WitnessConfig& config, const KeyId& key_id, const FleetBinding& in, std::uint64_t local_next,
           WitnessStatus& status) noexcept {
  klms_etcd_reading r{};
  const klms_etcd_binding c = c_of(in);
  std::string message;
  const Error e = call(config, key_id, &message, [&](const klms_witness_etcd_api& api, const klms_etcd_target& t,
                                                     const char* id, char* text, std::size_t len) {
    return api.read(&t, id, &c, local_next, &r, text, len);
  });
  try { status.message = message; } catch (...) {}
  status.fleet_counter = r.counter;
  status.fleet_host_next = r.host_next;
  status.fleet_hosts = r.hosts;
  status.fleet_revision = r.revision;
  status.high_water = r.host_next;
  return e;
}

Error leave(const WitnessConfig& config, const KeyId& key_id, const FleetBinding& in, std::string* message) noexcept {
  const klms_etcd_binding c = c_of(in);
  return call(config, key_id, message, [&](const klms_witness_etcd_api& api, const klms_etcd_target& t,
                                           const char* id, char* text, std::size_t len) {
    return api.leave(&t, id, &c, text, len);
  });
}

Result<FleetBinding> resync(const WitnessConfig& config, const KeyId& key_id, std::uint64_t max_signatures,
                            const FleetBinding& in, std::uint64_t local_next, std::uint64_t counter_at_least,
                            std::string* message) noexcept {
  klms_etcd_binding out{};
  const klms_etcd_binding c = c_of(in);
  const Error e = call(config, key_id, message, [&](const klms_witness_etcd_api& api, const klms_etcd_target& t,
                                                    const char* id, char* text, std::size_t len) {
    return api.resync(&t, id, max_signatures, &c, local_next, counter_at_least, &out, text, len);
  });
  if (e != Error::kOk) return e;
  return of_c(out);
}

Error probe(const WitnessConfig& config, std::string* message) noexcept {
  // A key id no key has: a cluster that answers says "no counter".
  KeyId nobody{};
  klms_etcd_binding none{};
  klms_etcd_reading r{};
  const Error e = call(config, nobody, message, [&](const klms_witness_etcd_api& api, const klms_etcd_target& t,
                                                    const char* id, char* text, std::size_t len) {
    return api.read(&t, id, &none, 0, &r, text, len);
  });
  return e == Error::kWitnessMissing ? Error::kOk : e;
}

}  // namespace klms::state::etcd
