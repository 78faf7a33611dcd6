// The levels binding (the LevelsBinding suite of klms_lms_tests, docs/state.md §16): trust on first
// use of a version-1 state file that had already signed would let an altered key file bind it and
// make a top-level leaf sign a second child public key. Failed on an earlier version of the code;
// passes since used unbound files of multi-level keys need an explicit binding.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "state/file_format.h"
#include "lms/verify.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::lms {
namespace {

using test::Bytes;

const Bytes kSeed(32, 0x51);
const Bytes kId(16, 0x52);

std::vector<LevelParams> two_levels() {
  return {{lms_for(HashFamily::kSha256, 32, 5), ots_for(HashFamily::kSha256, 32, 8)},
          {lms_for(HashFamily::kSha256, 32, 5), ots_for(HashFamily::kSha256, 32, 8)}};
}

// What the top-level one-time key of an HSS signature signed: its leaf q and the child public key.
struct TopLevelUse {
  std::uint32_t q = 0;
  Bytes child_public_key;
};
TopLevelUse top_level_use(const std::vector<LevelParams>& levels_of_signer, const Bytes& sig) {
  TopLevelUse u;
  const std::size_t top = levels_of_signer[0].signature_bytes();
  const std::size_t child = levels_of_signer[1].public_key_bytes();
  EXPECT_GE(sig.size(), 4 + top + child);
  u.q = static_cast<std::uint32_t>(sig[4]) << 24 | static_cast<std::uint32_t>(sig[5]) << 16 |
        static_cast<std::uint32_t>(sig[6]) << 8 | sig[7];
  u.child_public_key.assign(sig.begin() + static_cast<std::ptrdiff_t>(4 + top),
                            sig.begin() + static_cast<std::ptrdiff_t>(4 + top + child));
  return u;
}

// Rewrites the state file in place as the previous release (format 1, no levels digest) left it:
// the current slot's fields, version 1, in both blocks. Same inode: nothing looks copied.
void make_version_1(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  state::format::FileImage image{};
  ASSERT_EQ(::pread(fd, image.data(), image.size(), 0), static_cast<ssize_t>(image.size()));
  auto current = state::format::select_current(image, image.size());
  ASSERT_TRUE(current);
  state::format::Slot old = current->slot;
  old.version = state::format::kLegacyFormatVersion;
  old.levels_digest = {};
  state::format::Block block;
  state::format::encode_slot(old, block);
  for (unsigned b = 0; b < state::format::kSlotCount; ++b) {
    ASSERT_EQ(::pwrite(fd, block.data(), block.size(), static_cast<off_t>(state::format::block_offset(b))),
              static_cast<ssize_t>(block.size()));
  }
  ::fsync(fd);
  ::close(fd);
  auto info = state::read_state_file(path);
  ASSERT_TRUE(info);
  ASSERT_EQ(info->format_version, 1u);
  ASSERT_FALSE(info->levels_bound());
}

// Flaw: trust on first use of a version-1 file that already signed (state/handle.cpp
// take_index, "bind a version-1 file"). The previous release signed index 0 with the genuine lower
// levels; after the upgrade, the first key to reserve binds ITS levels. A key file with an altered
// level-2 OTS type does so at index 1 — under the same top-level leaf 0, which now signs a second,
// different child public key. Both signatures verify under the one public key: a top-level
// one-time key used twice (a forgery path).
TEST(LevelsBinding, AnAlteredKeyBindingAUsedVersion1FileNeverReusesATopLevelLeaf) {
  test::TempDir dir;
  const auto genuine_levels = two_levels();
  auto key = test::generate_seeded(dir, genuine_levels, kSeed, kId);
  const std::string path = key.private_key.state_file;
  const state::KeyId id = key_id_of(key.public_key);
  const state::LevelsDigest genuine = levels_digest_of(genuine_levels);

  // The previous release: index 0 signed by the genuine key.
  const Bytes m0 = {'m', '0'};
  Bytes sig0;
  {
    auto h = state::StateHandle::open(path, state::KeyBinding{id, genuine, false}, {});
    ASSERT_TRUE(h) << describe(h.error());
    auto lease = (*h)->take(1);
    ASSERT_TRUE(lease);
    ASSERT_EQ(lease->index(), 0u);
    auto s = key.signer->sign(std::move(*lease), m0);
    ASSERT_TRUE(s) << describe(s.error());
    sig0 = *s;
  }
  make_version_1(path);

  // A key file whose level-2 LM-OTS type was changed (W8 -> W4): same public key, same state file.
  HssPrivateKey altered = key.private_key;
  altered.levels[1].ots = ots_for(HashFamily::kSha256, 32, 4);
  const state::LevelsDigest forged = levels_digest_of(altered.levels);
  auto altered_signer = Signer::create(altered, key.public_key, SignerOptions{});
  ASSERT_TRUE(altered_signer);
  auto h = state::StateHandle::open(path, state::KeyBinding{id, forged, false}, {});
  if (!h) {
    SUCCEED() << "refused: " << describe(h.error());
    return;
  }
  auto lease = (*h)->take(1);
  if (!lease) {
    SUCCEED() << "refused: " << describe(lease.error());
    return;
  }
  const std::uint64_t q1 = lease->index();
  const Bytes m1 = {'m', '1'};
  auto sig1 = (*altered_signer)->sign(std::move(*lease), m1);
  ASSERT_TRUE(sig1) << describe(sig1.error());
  ASSERT_EQ(hss_verify(key.public_key, m0, sig0), Error::kOk);
  ASSERT_EQ(hss_verify(key.public_key, m1, *sig1), Error::kOk) << "the altered key's signature verifies";

  const TopLevelUse a = top_level_use(genuine_levels, sig0);
  const TopLevelUse b = top_level_use(altered.levels, *sig1);
  EXPECT_FALSE(a.q == b.q && a.child_public_key != b.child_public_key)
      << "top-level leaf " << a.q << " signed two different child public keys (indices 0 and " << q1
      << "): one-time key reuse";
}

}  // namespace
}  // namespace klms::lms
