// The etcd fleet witness module (docs/fleet.md): klms-witness-etcd.so, loaded by the state store
// with dlopen only when a state file names an etcd witness (state/witness_etcd.cpp).
//
// Every call runs on a thread of its own and the caller waits at most target->timeout_ms: a member
// that accepts a connection and answers nothing, or a cluster without quorum, must not hang a
// signer. Past the deadline the call is refused (KLMS_WITNESS_DEADLINE); a deadline only ever
// refuses (docs/state.md §14). A transaction abandoned at its deadline may still commit: that only
// moves the cluster's records forward, which the next call reads; nothing was handed out.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "state/witness_module_abi.h"
#include "witness/etcd/etcd_kv.h"
#include "witness/etcd/fleet.h"

namespace {

using klms::witness::etcd::Client;
using klms::witness::etcd::Failure;
using klms::witness::etcd::Fleet;

struct Outcome {
  int status = KLMS_WITNESS_OK;
  std::string message;
};

// The target's strings, owned by the job (the caller's may be gone when an abandoned call ends).
struct OwnedTarget {
  std::string endpoints, prefix, cacert, cert, key, user, password;
  klms_etcd_target target{};
  explicit OwnedTarget(const klms_etcd_target& t) {
    auto copy = [](const char* s) { return std::string(s != nullptr ? s : ""); };
    endpoints = copy(t.endpoints);
    prefix = copy(t.prefix);
    cacert = copy(t.cacert);
    cert = copy(t.cert);
    key = copy(t.key);
    user = copy(t.user);
    if (t.password != nullptr) password.assign(t.password, t.password_len);
    target = t;
    target.endpoints = endpoints.c_str();
    target.prefix = prefix.c_str();
    target.cacert = cacert.c_str();
    target.cert = cert.c_str();
    target.key = key.c_str();
    target.user = user.empty() ? nullptr : user.c_str();
    target.password = password.data();
    target.password_len = password.size();
  }
  ~OwnedTarget() { std::fill(password.begin(), password.end(), '\0'); }
};

int bounded(const klms_etcd_target* target, const char* key_id, char* message, std::size_t message_len,
            std::function<void(Fleet&)> work) noexcept {
  auto write_message = [&](const std::string& text) {
    if (message != nullptr && message_len != 0) std::snprintf(message, message_len, "%s", text.c_str());
  };
  if (target == nullptr || key_id == nullptr) {
    write_message("no etcd target");
    return KLMS_WITNESS_UNREACHABLE;
  }
  struct Job {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    Outcome outcome;
    OwnedTarget owned;
    std::string key_id;
    std::function<void(Fleet&)> work;
    Job(const klms_etcd_target& t, const char* k, std::function<void(Fleet&)> w) : owned(t), key_id(k), work(std::move(w)) {}
  };
  try {
    const unsigned timeout_ms = target->timeout_ms == 0 ? 1 : target->timeout_ms;
    const auto start = Client::Clock::now();
    const auto deadline = start + std::chrono::milliseconds(timeout_ms);
    // The call's own deadline comes first, so that its reason (the last endpoint's error) is the
    // message; this wait is the backstop for a request that overran it.
    const auto inner = start + std::chrono::milliseconds(timeout_ms - std::min(timeout_ms / 4, 1000u));
    auto job = std::make_shared<Job>(*target, key_id, std::move(work));
    std::thread([job, inner]() {
      Outcome result;
      try {
        Client client(job->owned.target, inner);
        Fleet fleet(client, job->owned.prefix, job->key_id);
        job->work(fleet);
      } catch (const Failure& f) {
        result.status = f.status;
        result.message = f.message;
      } catch (const std::bad_alloc&) {
        result.status = KLMS_WITNESS_TPM_ERROR;
        result.message = "out of memory";
      } catch (const std::exception& e) {
        result.status = KLMS_WITNESS_TPM_ERROR;
        result.message = e.what();
      } catch (...) {
        result.status = KLMS_WITNESS_TPM_ERROR;
        result.message = "unexpected failure";
      }
      std::lock_guard lock(job->mutex);
      job->outcome = std::move(result);
      job->done = true;
      job->done_cv.notify_all();
    }).detach();
    std::unique_lock lock(job->mutex);
    if (!job->done_cv.wait_until(lock, deadline + std::chrono::milliseconds(50), [&] { return job->done; })) {
      write_message("the etcd cluster at " + job->owned.endpoints + " did not answer within " +
                    std::to_string(timeout_ms) + " ms (etcd_timeout_ms)");
      return KLMS_WITNESS_DEADLINE;
    }
    write_message(job->outcome.message);
    return job->outcome.status;
  } catch (...) {
    write_message("cannot start the etcd call");
    return KLMS_WITNESS_TPM_ERROR;
  }
}

// The results below are written only when a call returns OK, and only by the caller's thread:
// each work function fills a job-owned copy that is copied out after the wait.
template <typename T>
struct Box {
  std::mutex mutex;
  T value{};
};

int api_create_key(const klms_etcd_target* t, const char* key_id, std::uint64_t max_signatures,
                   const std::uint8_t levels_digest[32], std::uint64_t first_index, klms_etcd_binding* out, char* m,
                   std::size_t n) {
  auto box = std::make_shared<Box<klms_etcd_binding>>();
  Fleet::KeyDescription key;
  key.max_signatures = max_signatures;
  if (levels_digest != nullptr) std::memcpy(key.levels_digest.data(), levels_digest, 32);
  const int rc = bounded(t, key_id, m, n, [box, key, first_index](Fleet& f) {
    auto b = f.create_key(key, first_index);
    std::lock_guard g(box->mutex);
    box->value = b;
  });
  if (rc == KLMS_WITNESS_OK && out != nullptr) { std::lock_guard g(box->mutex); *out = box->value; }
  return rc;
}

int api_join(const klms_etcd_target* t, const char* key_id, klms_etcd_binding* out, std::uint64_t* max_signatures,
             std::uint8_t levels_digest[32], char* m, std::size_t n) {
  struct Joined {
    klms_etcd_binding binding{};
    Fleet::KeyDescription key;
  };
  auto box = std::make_shared<Box<Joined>>();
  const int rc = bounded(t, key_id, m, n, [box](Fleet& f) {
    Joined j;
    j.binding = f.join(j.key);
    std::lock_guard g(box->mutex);
    box->value = j;
  });
  if (rc == KLMS_WITNESS_OK) {
    std::lock_guard g(box->mutex);
    if (out != nullptr) *out = box->value.binding;
    if (max_signatures != nullptr) *max_signatures = box->value.key.max_signatures;
    if (levels_digest != nullptr) std::memcpy(levels_digest, box->value.key.levels_digest.data(), 32);
  }
  return rc;
}

int api_reserve(const klms_etcd_target* t, const char* key_id, std::uint64_t max_signatures,
                const klms_etcd_binding* in, std::uint64_t local_next, std::uint64_t want, std::uint64_t block,
                std::uint64_t gate, std::uint64_t* start, std::uint64_t* count, klms_etcd_binding* out, char* m,
                std::size_t n) {
  if (in == nullptr) return KLMS_WITNESS_TPM_ERROR;
  auto box = std::make_shared<Box<klms::witness::etcd::Grant>>();
  const klms_etcd_binding binding = *in;
  const int rc = bounded(t, key_id, m, n, [=](Fleet& f) {
    auto g = f.reserve(max_signatures, binding, local_next, want, block, gate);
    std::lock_guard lock(box->mutex);
    box->value = g;
  });
  if (rc == KLMS_WITNESS_OK) {
    std::lock_guard g(box->mutex);
    if (start != nullptr) *start = box->value.start;
    if (count != nullptr) *count = box->value.count;
    if (out != nullptr) *out = box->value.binding;
  }
  return rc;
}

int api_read(const klms_etcd_target* t, const char* key_id, const klms_etcd_binding* in, std::uint64_t local_next,
             klms_etcd_reading* out, char* m, std::size_t n) {
  if (in == nullptr) return KLMS_WITNESS_TPM_ERROR;
  auto box = std::make_shared<Box<klms_etcd_reading>>();
  const klms_etcd_binding binding = *in;
  const int rc = bounded(t, key_id, m, n, [=](Fleet& f) {
    klms_etcd_reading r{};
    try {
      f.read(binding, local_next, r);
    } catch (...) {
      std::lock_guard g(box->mutex);
      box->value = r;
      throw;
    }
    std::lock_guard g(box->mutex);
    box->value = r;
  });
  if (rc != KLMS_WITNESS_DEADLINE && out != nullptr) { std::lock_guard g(box->mutex); *out = box->value; }
  return rc;
}

int api_leave(const klms_etcd_target* t, const char* key_id, const klms_etcd_binding* in, char* m, std::size_t n) {
  if (in == nullptr) return KLMS_WITNESS_TPM_ERROR;
  const klms_etcd_binding binding = *in;
  return bounded(t, key_id, m, n, [=](Fleet& f) { f.leave(binding); });
}

int api_resync(const klms_etcd_target* t, const char* key_id, std::uint64_t max_signatures,
               const klms_etcd_binding* in, std::uint64_t local_next, std::uint64_t counter_at_least,
               klms_etcd_binding* out, char* m, std::size_t n) {
  if (in == nullptr) return KLMS_WITNESS_TPM_ERROR;
  auto box = std::make_shared<Box<klms_etcd_binding>>();
  const klms_etcd_binding binding = *in;
  const int rc = bounded(t, key_id, m, n, [=](Fleet& f) {
    auto b = f.resync(max_signatures, binding, local_next, counter_at_least);
    std::lock_guard g(box->mutex);
    box->value = b;
  });
  if (rc == KLMS_WITNESS_OK && out != nullptr) { std::lock_guard g(box->mutex); *out = box->value; }
  return rc;
}

int api_delete_key(const klms_etcd_target* t, const char* key_id, const klms_etcd_binding* in, char* m, std::size_t n) {
  if (in == nullptr) return KLMS_WITNESS_TPM_ERROR;
  const klms_etcd_binding binding = *in;
  return bounded(t, key_id, m, n, [=](Fleet& f) { f.delete_key(binding); });
}

const klms_witness_etcd_api kApi = {KLMS_WITNESS_ETCD_ABI_VERSION, api_create_key, api_join, api_reserve, api_read,
                                    api_leave, api_resync, api_delete_key};

}  // namespace

extern "C" __attribute__((visibility("default"))) const klms_witness_etcd_api* klms_witness_etcd_v1(void) {
  return &kApi;
}
