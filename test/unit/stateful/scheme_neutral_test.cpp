// The stateful layer with a scheme that is not HSS: a toy scheme, beside the real one (HSS, through
// test/unit/lms/signing_session_test.cpp and every recipe), whose "signature" is u64 index ||
// SHA-256(message). It proves the layer needs nothing but stateful/scheme.h: key generation creates
// the state file bound to the scheme's tagged parameters digest and hands out its signer; sessions
// sign distinct indices through the real state store; a second parameter set of the same public key
// is refused by the store; the remaining count is the store's. Results are read from the state file
// with the store's own inspect_state_file, never through the layer.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <mutex>

#include "base/endian.h"
#include "hashes/backend.h"
#include "state/store.h"
#include "stateful/keygen.h"
#include "stateful/signing_session.h"
#include "test/unit/lms/lms_test_util.h"

namespace klms::stateful {
namespace {

constexpr std::string_view kTag = "TOY";

// The toy scheme's parameter set: only its number of indices.
Bytes parameters_of(std::uint64_t max) {
  Bytes p(8);
  endian::store_be64(p.data(), max);
  return p;
}

class ToyOperation final : public Operation {
 public:
  ToyOperation(const void* signer, std::uint64_t q) : signer_(signer), q_(q) {}
  Error update(ByteView data) noexcept override {
    if (finished_) return Error::kLeaseConsumed;
    message_.insert(message_.end(), data.begin(), data.end());
    return Error::kOk;
  }
  bool owned_by_this_process() const noexcept override { return true; }
  const void* signer_;
  std::uint64_t q_;
  Bytes message_;
  bool finished_ = false;
};

class ToySigner final : public Signer {
 public:
  explicit ToySigner(std::uint64_t max) : max_(max) {}
  Error load_top_tree() override { return Error::kOk; }
  Result<std::unique_ptr<Operation>> begin_signature(state::IndexLease&& lease) override {
    if (!lease.valid()) return Error::kLeaseConsumed;
    const std::uint64_t q = lease.consume();
    if (q >= max_) return Error::kExhausted;
    return std::unique_ptr<Operation>(std::make_unique<ToyOperation>(this, q));
  }
  Result<Bytes> finish_signature(std::unique_ptr<Operation> operation) override {
    auto* op = dynamic_cast<ToyOperation*>(operation.get());
    if (op == nullptr || op->signer_ != this) return Error::kInvalidArgument;
    Bytes out(8 + 32);
    endian::store_be64(out.data(), op->q_);
    hashes::sha256_digest(op->message_.data(), op->message_.size(), out.data() + 8);
    return out;
  }
  std::size_t signature_bytes() const noexcept override { return 40; }

 private:
  std::uint64_t max_;
};

struct ToyKey final : PrivateKey {
  std::uint64_t max = 0;
  std::size_t signature_bytes() const noexcept override { return 40; }
  TreeShape top_tree() const override { return {max, "TOY"}; }
  std::string tree_cache_file(const std::string& state_path, std::size_t layer) const override {
    return state_path + ".cache" + (layer == 0 ? "" : ".level" + std::to_string(layer + 1));
  }
  Result<std::shared_ptr<Signer>> make_signer(ByteView, const std::string&, const BuildOptions&) const override {
    return std::shared_ptr<Signer>(std::make_shared<ToySigner>(max));
  }
};

class ToyBuild final : public KeyBuild {
 public:
  ToyBuild(ToyKey key, Bytes public_key) : key_(std::move(key)), public_key_(std::move(public_key)) {}
  const PrivateKey& private_key() const noexcept override { return key_; }
  const Bytes& public_key() const noexcept override { return public_key_; }
  Result<std::shared_ptr<Signer>> make_signer() override { return key_.make_signer(public_key_, key_.state_file, {}); }
  ToyKey key_;
  Bytes public_key_;
};

class ToyScheme final : public Scheme {
 public:
  explicit ToyScheme(std::uint64_t max) : max_(max) {}
  std::string_view family() const noexcept override { return "TOY"; }
  Error check() const noexcept override { return max_ == 0 ? Error::kInvalidArgument : Error::kOk; }
  ParamsDigest params_digest() const noexcept override { return tagged_params_digest(kTag, parameters_of(max_)); }
  bool params_in_key_id() const noexcept override { return false; }
  std::uint64_t max_signatures() const noexcept override { return max_; }
  KeySizes sizes() const noexcept override { return {16, 16, 32, 40}; }
  std::string key_shape() const override { return "a toy key"; }
  TreeShape top_tree() const override { return {max_, "TOY"}; }
  std::string tree_cache_file(const std::string& state_path, std::size_t) const override { return state_path + ".cache"; }
  Result<std::unique_ptr<KeyBuild>> build_key(const KeySeed& seed, const std::string& state_file,
                                              const BuildOptions&) const override {
    ToyKey key;
    key.max = max_;
    key.state_file = state_file;
    key.seeded = seed.seeded;
    // The public key: SHA-256 of seed || identifier (a toy, not a signature scheme).
    Bytes both(seed.seed.begin(), seed.seed.end());
    both.insert(both.end(), seed.identifier.begin(), seed.identifier.end());
    Bytes public_key(32);
    hashes::sha256_digest(both.data(), both.size(), public_key.data());
    return std::unique_ptr<KeyBuild>(std::make_unique<ToyBuild>(std::move(key), std::move(public_key)));
  }
  Error verify(ByteView, ByteView, ByteView) const override { return Error::kInvalidArgument; }

 private:
  std::uint64_t max_;
};

KeygenRequest request_for(const std::string& state_file) {
  KeygenRequest r;
  r.seed.seed.assign(16, 0x11);
  r.seed.identifier.assign(16, 0x22);
  r.state_file = state_file;
  r.state_options.low_signatures_warning = 0;  // signs to the end: the gate has its own tests
  return r;
}

Bytes sign(const SigningKey& key, const std::string& state_file, const Bytes& message) {
  SessionStart start = SigningSession::begin(key, state_file, SessionOptions{});
  if (!start.session) throw std::runtime_error(std::string("begin: ") + describe(start.session.error()));
  EXPECT_EQ(start.session->update(message), Error::kOk);
  auto signature = start.session->finish();
  if (!signature) throw std::runtime_error(std::string("finish: ") + describe(signature.error()));
  return std::move(*signature);
}

TEST(StatefulLayer, AnotherSchemeGeneratesBindsAndSignsThroughTheStateStore) {
  test::TempDir dir;
  const ToyScheme scheme(8);
  const std::string path = dir.file("toy.state");
  auto generated = generate_key(scheme, request_for(path));
  ASSERT_TRUE(generated) << describe(generated.error());
  const Bytes public_key = generated->key->public_key();

  auto info = state::inspect_state_file(path);
  ASSERT_TRUE(info) << describe(info.error());
  EXPECT_EQ(info->key_id, key_id_of(public_key));
  EXPECT_EQ(info->max_signatures, 8u);
  EXPECT_EQ(info->levels_digest, tagged_params_digest(kTag, parameters_of(8))) << "bound to the tagged digest";
  EXPECT_EQ(info->next, 0u);

  ToyKey key = dynamic_cast<const ToyKey&>(generated->key->private_key());
  KeptSigning kept;
  kept.keep_own_signer(generated->signer);
  const SigningKey signing{&key, public_key, key_binding(scheme, public_key), &kept};
  const Bytes message = {'t', 'o', 'y'};
  std::uint64_t expected = 0;
  for (; expected < 3; ++expected) {
    const Bytes signature = sign(signing, path, message);
    ASSERT_EQ(signature.size(), 40u);
    EXPECT_EQ(endian::load_be64(signature.data()), expected) << "one index per signature, in order";
  }
  EXPECT_EQ(state::inspect_state_file(path)->next, 3u);
  SessionStep step = SessionStep::kBegin;
  auto remaining = remaining_signatures(signing, path, state::StateOptions{}, step);
  ASSERT_TRUE(remaining) << describe(remaining.error());
  EXPECT_EQ(*remaining, 5u);
}

TEST(StatefulLayer, AnotherParameterSetOfTheSamePublicKeyIsRefusedByTheStore) {
  test::TempDir dir;
  const ToyScheme scheme(8);
  const std::string path = dir.file("toy.state");
  auto generated = generate_key(scheme, request_for(path));
  ASSERT_TRUE(generated) << describe(generated.error());
  const Bytes public_key = generated->key->public_key();
  ToyKey key = dynamic_cast<const ToyKey&>(generated->key->private_key());
  KeptSigning kept;
  // The same public key with another parameter set (16 indices): a key file altered to sign more.
  const ToyScheme altered(16);
  const SigningKey signing{&key, public_key, key_binding(altered, public_key), &kept};
  SessionStart start = SigningSession::begin(signing, path, SessionOptions{});
  ASSERT_FALSE(start.session);
  EXPECT_EQ(start.step, SessionStep::kOpenState);
  EXPECT_EQ(start.session.error(), Error::kStateParamsMismatch);
  EXPECT_EQ(state::inspect_state_file(path)->next, 0u) << "nothing spent";
}

TEST(StatefulLayer, KeyGenerationChecksBeforeBuildingAndNeverOverwritesAStateFile) {
  test::TempDir dir;
  const std::string path = dir.file("toy.state");
  EXPECT_EQ(generate_key(ToyScheme(0), request_for(path)).error(), Error::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(path)) << "a refused parameter set creates nothing";
  ASSERT_TRUE(generate_key(ToyScheme(8), request_for(path)));
  EXPECT_EQ(generate_key(ToyScheme(8), request_for(path)).error(), Error::kStateExists);
  EXPECT_EQ(generate_key(ToyScheme(8), request_for("relative.state")).error(), Error::kStatePathInvalid);
}

// A signer is asked to finish only what it began: an operation of another signer is refused.
TEST(StatefulLayer, HssSignerRefusesAnOperationItDidNotBegin) {
  test::TempDir dir;
  const ToyScheme scheme(8);
  auto generated = generate_key(scheme, request_for(dir.file("toy.state")));
  ASSERT_TRUE(generated);
  auto lms_key = test::generate_seeded(dir, {{lms::lms_for(lms::HashFamily::kSha256, 32, 5),
                                              lms::ots_for(lms::HashFamily::kSha256, 32, 8)}},
                                       test::Bytes(32, 0x42), test::Bytes(16, 0x17));
  auto toy_op = std::make_unique<ToyOperation>(nullptr, 0);
  stateful::Signer& hss = *lms_key.signer;
  EXPECT_EQ(hss.finish_signature(std::move(toy_op)).error(), Error::kInvalidArgument);
  EXPECT_EQ(hss.finish_signature(nullptr).error(), Error::kInvalidArgument);
}

}  // namespace
}  // namespace klms::stateful
