#include "test/unit/lms/lms_test_util.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>

namespace klms::test {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string root = std::string(base != nullptr ? base : "/tmp") + "/klms-test-XXXXXX";
  std::vector<char> buf(root.begin(), root.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = buf.data();
  ::chmod(path_.c_str(), 0700);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::vector<lms::LevelParams> levels_from_codes(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& codes) {
  std::vector<lms::LevelParams> levels;
  for (auto [l, o] : codes) {
    lms::LevelParams p{lms::find_lms(l), lms::find_ots(o)};
    EXPECT_NE(p.lms, nullptr) << std::hex << l;
    EXPECT_NE(p.ots, nullptr) << std::hex << o;
    levels.push_back(p);
  }
  return levels;
}

lms::GeneratedKey generate_seeded(const TempDir& dir, const std::vector<lms::LevelParams>& levels, const Bytes& seed,
                                  const Bytes& identifier, const hashes::Backend* preferred, const std::string& name) {
  lms::KeygenRequest request;
  request.levels = levels;
  if (seed.size() > 32 || identifier.size() != 16) throw std::invalid_argument("bad seed or identifier length");
  std::memcpy(request.seed.data(), seed.data(), seed.size());
  std::memcpy(request.identifier.data(), identifier.data(), 16);
  request.seeded = true;
  request.state_file = dir.file(name);
  request.preferred_backend = preferred;
  // These tests sign at any index, the last ones too; the exhaustion gate has its own tests
  // (test/unit/state/exhaustion_test.cpp, docs/state.md §5): T = 0 turns it off for this key.
  request.state_options.low_signatures_warning = 0;
  auto key = lms::generate_key(request);
  if (!key) throw std::runtime_error(std::string("generate_key: ") + klms::describe(key.error()));
  return std::move(*key);
}

Bytes sign_at(lms::Signer& signer, const std::string& state_file, std::uint64_t q, const Bytes& message) {
  auto handle = state::StateHandle::open(state_file, lms::key_id_of(signer.public_key()), state::StateOptions{});
  if (!handle) throw std::runtime_error(std::string("open state: ") + klms::describe(handle.error()));
  auto info = (*handle)->info();
  if (!info) throw std::runtime_error(std::string("state info: ") + klms::describe(info.error()));
  if (info->next > q) throw std::runtime_error("index already past q");
  for (;;) {
    auto lease = (*handle)->take(q - info->next + 1);
    if (!lease) throw std::runtime_error(std::string("take: ") + klms::describe(lease.error()));
    if (lease->index() > q) throw std::runtime_error("index already past q");
    if (lease->index() == q) {
      auto sig = signer.sign(std::move(*lease), message);
      if (!sig) throw std::runtime_error(std::string("sign: ") + klms::describe(sig.error()));
      return std::move(*sig);
    }
  }
}

}  // namespace klms::test
