#include "bench/study/bench_key.h"

#include <algorithm>
#include <sys/random.h>
#include <unistd.h>

#include <cstring>

#include "bench/study/variant_backends.h"
#include "lms/private_key.h"

namespace klms::bench {
namespace {

void random_bytes(std::uint8_t* out, std::size_t len) {
  while (len > 0) {
    const ssize_t got = ::getrandom(out, len, 0);
    if (got <= 0) continue;  // EINTR; the kernel pool is always ready after boot
    out += got;
    len -= static_cast<std::size_t>(got);
  }
}

}  // namespace

lms::KeygenRequest keygen_request(const Config& config, const std::string& state_file, unsigned threads) {
  lms::KeygenRequest r;
  r.levels = config.params;
  random_bytes(r.seed.data(), config.params.front().lms->m);
  random_bytes(r.identifier.data(), r.identifier.size());
  r.seeded = false;
  r.state_file = state_file;
  r.build.threads = threads;
  r.preferred_backend = config.backend;
  // Benchmark keys sign to their end: T = 0, no exhaustion gate (docs/state.md §5).
  r.state_options.low_signatures_warning = 0;
  return r;
}

// generate_key's steps with the tree built by the family's real backend and the signer running on
// a study variant (see is_study_variant).
klms::Result<lms::GeneratedKey> generate_for_variant(const Config& config, const std::string& state_file,
                                                   unsigned threads) {
  const hashes::Backend& real = hashes::fastest_backend(config.backend->family);
  const lms::KeygenRequest request = keygen_request(config, state_file, threads);
  lms::HssPrivateKey key;
  key.levels = request.levels;
  key.seed = request.seed;
  key.identifier = request.identifier;
  key.state_file = state_file;
  auto tree = lms::build_tree(lms::top_tree_key(key, &real), request.build);
  if (!tree) return tree.error();
  klms::Bytes public_key = lms::hss_public_key(key, tree->root());
  if (klms::Error e = state::create_state_file(state_file, lms::key_id_of(public_key), lms::max_signatures(key.levels),
                                               request.state_options);
      e != klms::Error::kOk) {
    return e;
  }
  lms::SignerOptions options;
  options.cache_path = state_file + ".cache";
  options.preferred_backend = config.backend;
  options.build.threads = threads;
  auto signer = lms::Signer::create(key, public_key, options, std::make_unique<lms::TreeNodes>(std::move(*tree)));
  if (!signer) return signer.error();
  lms::GeneratedKey out{std::move(key), std::move(public_key), std::move(*signer)};
  return out;
}

void remove_key_files(const std::string& state_file) noexcept {
  ::unlink(state_file.c_str());
  const std::string cache = state_file + ".cache";
  ::unlink(cache.c_str());
  for (unsigned level = 2; level <= lms::kMaxLevels; ++level) {
    ::unlink((cache + ".level" + std::to_string(level)).c_str());
  }
}

BenchKey::BenchKey(const Config& config, std::string dir, std::string name, unsigned threads)
    : config_(config), dir_(std::move(dir)), name_(std::move(name)), threads_(threads) {
  regenerate();
}

BenchKey::~BenchKey() {
  file_signer_.reset();
  key_.signer.reset();
  handle_.reset();
  if (!state_file_.empty()) remove_key_files(state_file_);
}

void BenchKey::regenerate() {
  file_signer_.reset();
  key_.signer.reset();
  handle_.reset();
  if (!state_file_.empty()) remove_key_files(state_file_);
  state_file_ = dir_ + "/" + name_ + "-" + std::to_string(generation_++) + ".state";
  leased_ = 0;
  max_ = lms::max_signatures(config_.params);
  auto made = is_study_variant(*config_.backend) ? generate_for_variant(config_, state_file_, threads_)
                                                 : lms::generate_key(keygen_request(config_, state_file_, threads_));
  if (!made) {
    status_ = made.error();
    return;
  }
  key_ = std::move(*made);
  auto handle = state::StateHandle::open(state_file_, lms::key_id_of(key_.public_key), {});
  if (!handle) {
    status_ = handle.error();
    return;
  }
  handle_ = *handle;
  status_ = klms::Error::kOk;
}

bool BenchKey::ensure_capacity() {
  if (status_ == klms::Error::kOk && leased_ < max_) return true;
  regenerate();
  return status_ == klms::Error::kOk;
}

klms::Result<state::IndexLease> BenchKey::lease(std::uint64_t batch) {
  if (!ensure_capacity()) return status_;
  // A reservation may not reach beyond the key's last index (docs/state.md §8): a
  // small tree (h = 5: 32 signatures) gets what is left of it, then a fresh key.
  auto lease = handle_->take(std::min(batch, max_ - leased_));
  if (lease) ++leased_;
  return lease;
}

lms::Signer* BenchKey::cache_file_signer() {
  if (status_ != klms::Error::kOk) return nullptr;
  if (!file_signer_) {
    lms::SignerOptions options;
    options.cache_path = state_file_ + ".cache";
    options.preferred_backend = config_.backend;
    options.build.threads = threads_;
    auto s = lms::Signer::create(key_.private_key, key_.public_key, options);
    if (!s) return nullptr;
    file_signer_ = *s;
  }
  return file_signer_.get();
}

}  // namespace klms::bench
