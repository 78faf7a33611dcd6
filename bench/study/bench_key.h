// Keys for the benchmark: generated with a random SEED and I (never seeded: the signer refuses
// seeded keys by default), with their state file and tree cache in a private directory, and a
// state handle to take index leases from. A key that runs out of signatures is replaced.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "bench/study/config.h"
#include "lms/keygen.h"
#include "lms/signer.h"
#include "state/store.h"

namespace klms::bench {

// A fresh key request for `config` with its state file at `state_file`.
lms::KeygenRequest keygen_request(const Config& config, const std::string& state_file, unsigned threads);

// Removes a key's state file and its cache files (every level).
void remove_key_files(const std::string& state_file) noexcept;

class BenchKey {
 public:
  // Generates "<dir>/<name>-<n>.state" (n counts replacements).
  BenchKey(const Config& config, std::string dir, std::string name, unsigned threads);
  ~BenchKey();
  BenchKey(const BenchKey&) = delete;
  BenchKey& operator=(const BenchKey&) = delete;

  // kOk, or why the key could not be made.
  klms::Error status() const noexcept { return status_; }
  lms::Signer& signer() noexcept { return *key_.signer; }
  const lms::GeneratedKey& generated() const noexcept { return key_; }
  const std::string& state_file() const noexcept { return state_file_; }
  // Leases from a reservation of `batch` indices (one durable write per batch). When the key is
  // used up, a new one is generated first (untimed by the caller: call ensure_capacity() before
  // starting the clock).
  klms::Result<state::IndexLease> lease(std::uint64_t batch);
  // Makes sure the next lease() needs no new key; returns false when a new key failed.
  bool ensure_capacity();
  // A signer that reads the top tree from the cache file instead of memory (what a fresh process
  // such as `openssl pkeyutl` does), made on first use for the current key.
  lms::Signer* cache_file_signer();
  std::uint64_t generation() const noexcept { return generation_; }

 private:
  void regenerate();

  Config config_;
  std::string dir_, name_;
  unsigned threads_;
  std::uint64_t generation_ = 0;
  std::string state_file_;
  lms::GeneratedKey key_;
  std::shared_ptr<state::StateHandle> handle_;
  std::shared_ptr<lms::Signer> file_signer_;
  std::uint64_t leased_ = 0, max_ = 0;
  klms::Error status_ = klms::Error::kOk;
};

}  // namespace klms::bench
