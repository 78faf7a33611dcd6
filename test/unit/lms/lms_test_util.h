// Shared pieces of the LMS engine tests: private temporary directories, keys from a given SEED and
// I, and signing at a chosen index through a real state file.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lms/keygen.h"
#include "lms/params.h"
#include "lms/signer.h"
#include "state/store.h"
#include "test/support/test_data.h"

namespace klms::test {

// A 0700 directory removed (with its contents) at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::vector<lms::LevelParams> levels_from_codes(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& codes);

// Generates a key from SEED and I, with its state file (and cache) in `dir`.
lms::GeneratedKey generate_seeded(const TempDir& dir, const std::vector<lms::LevelParams>& levels, const Bytes& seed,
                                  const Bytes& identifier, const hashes::Backend* preferred = nullptr,
                                  const std::string& name = "key.state");

// Takes indices from the key's state file until `q` and signs `message` with it.
Bytes sign_at(lms::Signer& signer, const std::string& state_file, std::uint64_t q, const Bytes& message);

}  // namespace klms::test
