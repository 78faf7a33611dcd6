#include "bench/study/xmss_compare.h"

#include <sys/random.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/secret.h"
#include "bench/study/config.h"
#include "bench/study/counting_backend.h"
#include "bench/study/stats.h"
#include "bench/study/stopwatch.h"
#include "lms/lms_sign.h"
#include "lms/merkle_tree.h"
#include "lms/verify.h"
#include "xmss/keygen.h"
#include "xmss/signer.h"
#include "xmss/verify.h"

namespace klms::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Bytes = std::vector<std::uint8_t>;

void random_bytes(std::uint8_t* out, std::size_t len) {
  while (len > 0) {
    const ssize_t got = getrandom(out, len, 0);
    if (got <= 0) continue;
    out += got;
    len -= static_cast<std::size_t>(got);
  }
}

Bytes make_message(std::size_t bytes) {
  Bytes m(bytes);
  for (std::size_t i = 0; i < bytes; ++i) m[i] = static_cast<std::uint8_t>(i * 167 + 13);
  return m;
}

// Compression-function calls for one whole input of `len` bytes (the 16-byte prefix included):
// SHA-256 64-byte blocks with 9 bytes of padding, LSH-256 128-byte blocks with at least one, the
// Tandem-DM hashes 16-byte blocks with 9, SHAKE256 its 136-byte rate with at least one.
unsigned blocks(hashes::HashFamily family, std::size_t len) noexcept {
  switch (family) {
    case hashes::HashFamily::kSha256: return static_cast<unsigned>((len + 8) / 64 + 1);
    case hashes::HashFamily::kLsh256: return static_cast<unsigned>(len / 128 + 1);
    case hashes::HashFamily::kShake256: return static_cast<unsigned>(len / 136 + 1);
    default: return static_cast<unsigned>((len + 8) / 16 + 1);
  }
}

struct Counted {
  double hashes = 0, blocks = 0;
  std::vector<LengthCount> by_length;  // messages already divided by the op count
};

Counted take_counts(hashes::HashFamily family, double ops) {
  Counted c;
  for (LengthCount l : hash_counts()) {
    c.hashes += static_cast<double>(l.messages) / ops;
    c.blocks += static_cast<double>(l.messages) * blocks(family, l.input_bytes) / ops;
    c.by_length.push_back(l);
  }
  reset_hash_counts();
  return c;
}

struct Series {
  std::vector<double> wall, cpu;
  void add(const Stopwatch& s) {
    wall.push_back(s.wall_us());
    cpu.push_back(s.cpu_us_elapsed());
  }
};

struct Result {
  std::string series, scheme, set, backend, implementation, op, note;
  unsigned h = 0, log_w = 0;
  std::optional<Summary> wall, cpu;
  long long bytes = -1;
  std::optional<Counted> counts;
};

// One scheme behind a common face: keygen on a backend, sign at an index, verify.
class Scheme {
 public:
  virtual ~Scheme() = default;
  virtual const char* scheme() const = 0;
  virtual std::string set() const = 0;
  virtual bool keygen(const hashes::Backend& b) = 0;  // timed by the caller
  virtual bool sign(std::uint32_t idx, const Bytes& message, Bytes& signature) = 0;
  virtual bool verify(const hashes::Backend& b, const Bytes& message, const Bytes& signature) = 0;
  virtual std::size_t public_key_bytes() const = 0;
  virtual std::size_t signature_bytes() const = 0;
  virtual void drop() = 0;  // frees the key
};

class LmsScheme final : public Scheme {
 public:
  explicit LmsScheme(lms::LevelParams p) : params_(p) {}
  const char* scheme() const override { return "LMS"; }
  std::string set() const override { return std::string(params_.lms->name) + "/" + std::string(params_.ots->name); }
  bool keygen(const hashes::Backend& b) override {
    lms::Identifier id;
    std::uint8_t seed[32];
    random_bytes(id.data(), id.size());
    random_bytes(seed, sizeof seed);
    key_ = lms::make_tree_key(params_, id, seed, &b);
    lms::BuildOptions build;
    build.threads = 1;  // XMSS builds its tree on one thread: compare like for like
    auto tree = lms::build_tree(key_, build);
    if (!tree) return false;
    nodes_ = std::move(*tree);
    public_key_ = lms::lms_public_key(key_, nodes_.root());
    return true;
  }
  bool sign(std::uint32_t q, const Bytes& message, Bytes& signature) override {
    const unsigned h = params_.lms->h;
    const std::size_t m = params_.lms->m;
    std::uint8_t path[32 * 25];
    std::uint64_t r = (std::uint64_t{1} << h) + q;
    for (unsigned j = 0; j < h; ++j, r >>= 1) std::memcpy(path + j * m, nodes_.node(r ^ 1), m);
    signature.assign(params_.signature_bytes(), 0);
    lms::lms_sign_message(key_, q, klms::ByteView(message), path, signature.data());
    return true;
  }
  bool verify(const hashes::Backend& b, const Bytes& message, const Bytes& signature) override {
    auto view = lms::parse_lms_public_key(public_key_);
    if (!view) return false;
    return lms::lms_verify(*view, message, signature, &b) == klms::Error::kOk;
  }
  std::size_t public_key_bytes() const override { return params_.public_key_bytes(); }
  std::size_t signature_bytes() const override { return params_.signature_bytes(); }
  void drop() override { nodes_ = lms::TreeNodes(); }

 private:
  lms::LevelParams params_;
  lms::TreeKey key_;
  lms::TreeNodes nodes_;
  klms::Bytes public_key_;
};

class XmssScheme final : public Scheme {
 public:
  explicit XmssScheme(xmss::Params p) : params_(p) {}
  const char* scheme() const override { return "XMSS"; }
  std::string set() const override {
    return params_.oid != 0 ? std::string(params_.name)
                            : std::string(params_.kxmss ? "K-XMSS(study) h=" : "XMSS(study) h=") +
                                  std::to_string(params_.h) + " w=" + std::to_string(params_.w());
  }
  bool keygen(const hashes::Backend& b) override {
    SecretArray<3 * xmss::kMaxN> seeds;
    random_bytes(seeds.data(), seeds.size());
    key_.reset();
    const std::size_t n = params_.n;
    const klms::ByteView all(seeds.data(), 3 * n);
    xmss::BuildOptions build;
    build.threads = 1;  // the study compares one core's work, as for LMS
    auto k = xmss::generate_key_from_seeds(params_, all.first(n), all.subspan(n, n), all.subspan(2 * n, n), build, &b);
    if (!k) return false;
    public_key_ = k->public_key;
    xmss::SignerOptions options;
    options.backend = &b;
    options.build = build;
    auto signer = xmss::Signer::create(std::move(k->key), options, std::move(k->top_tree));
    if (!signer) return false;
    key_ = std::move(*signer);
    view_ = {&params_, klms::ByteView(public_key_).subspan(4, n), klms::ByteView(public_key_).subspan(4 + n, n)};
    return true;
  }
  bool sign(std::uint32_t idx, const Bytes& message, Bytes& signature) override {
    auto s = key_->sign(idx, message);
    if (!s) return false;
    signature = std::move(*s);
    return true;
  }
  bool verify(const hashes::Backend& b, const Bytes& message, const Bytes& signature) override {
    return xmss::verify(view_, b, message, signature) == klms::Error::kOk;
  }
  std::size_t public_key_bytes() const override { return params_.public_key_bytes(); }
  std::size_t signature_bytes() const override { return params_.signature_bytes(); }
  void drop() override { key_.reset(); }

 private:
  xmss::Params params_;
  std::unique_ptr<xmss::Signer> key_;
  Bytes public_key_;
  xmss::PublicKeyView view_;
};

std::string series_of(const hashes::Backend& b) {
  return b.name == "lsh256-serial" ? "one-message" : "many-message";
}

// Every measurement of one scheme on one backend.
std::vector<Result> measure(const Options& o, Scheme& s, const hashes::Backend& b, unsigned h, unsigned log_w) {
  std::vector<Result> out;
  auto base = [&](const std::string& op) {
    Result r;
    r.series = series_of(b);
    r.scheme = s.scheme();
    r.set = s.set();
    r.backend = std::string(b.name);
    r.implementation = std::string(b.implementation);
    r.op = op;
    r.h = h;
    r.log_w = log_w;
    return r;
  };
  const Bytes message = make_message(o.message_bytes);
  const std::uint64_t leaves = std::uint64_t{1} << h;

  // Key generation: the tree on one thread (no files: neither scheme writes any here).
  Series keygen;
  const auto budget = std::chrono::duration<double>(o.keygen_budget_seconds);
  const auto start = Clock::now();
  const unsigned warmup = h <= 10 ? 1 : 0;
  for (unsigned rep = 0; rep < warmup + o.keygen_reps; ++rep) {
    s.drop();
    Stopwatch w(Stopwatch::Cpu::kThread);
    const bool ok = s.keygen(b);
    w.stop();
    if (!ok) {
      Result r = base("keygen");
      r.note = "error: key generation failed";
      out.push_back(r);
      return out;
    }
    if (rep >= warmup) keygen.add(w);
    if (rep >= warmup && Clock::now() - start > budget) break;
  }
  Result kg = base("keygen");
  kg.wall = summarize(keygen.wall);
  kg.cpu = summarize(keygen.cpu);
  kg.note = "the whole tree, one thread, in memory";

  // Signing and verification: the same message at successive indices.
  std::vector<Bytes> signatures;
  Series sign, verify;
  Bytes sig;
  for (unsigned rep = 0; rep < o.warmup + o.reps; ++rep) {
    const auto idx = static_cast<std::uint32_t>(rep % leaves);
    Stopwatch w(Stopwatch::Cpu::kThread);
    s.sign(idx, message, sig);
    w.stop();
    if (rep >= o.warmup) sign.add(w);
    if (signatures.size() < 64) signatures.push_back(sig);
  }
  bool all_verified = true;
  for (unsigned rep = 0; rep < o.warmup + o.reps; ++rep) {
    const Bytes& v = signatures[rep % signatures.size()];
    Stopwatch w(Stopwatch::Cpu::kThread);
    all_verified &= s.verify(b, message, v);
    w.stop();
    if (rep >= o.warmup) verify.add(w);
  }
  Result sg = base("sign");
  sg.wall = summarize(sign.wall);
  sg.cpu = summarize(sign.cpu);
  sg.note = "from the in-memory tree; r / C and the message hash included";
  Result vf = base("verify");
  vf.wall = summarize(verify.wall);
  vf.cpu = summarize(verify.cpu);
  if (!all_verified) vf.note = "error: a signature did not verify";

  // Hash calls, counted on a key made with the counting wrapper, up to h = 12 (a taller tree would
  // be built once more just to count: its calls are 2^h times a leaf's plus 2^h - 1 nodes, and
  // signing and verification add h tree hashes, so the h = 10 counts tell the story).
  s.drop();
  reset_hash_counts();
  const hashes::Backend& counting = counting_backend(b);
  if (h <= 12 && s.keygen(counting)) {
    kg.counts = take_counts(b.family, 1);
    reset_hash_counts();
    constexpr unsigned kCounted = 32;
    std::vector<Bytes> counted_sigs;
    for (unsigned k = 0; k < kCounted; ++k) {
      s.sign(static_cast<std::uint32_t>(k % leaves), message, sig);
      counted_sigs.push_back(sig);
    }
    sg.counts = take_counts(b.family, kCounted);
    for (const Bytes& v : counted_sigs) all_verified &= s.verify(counting, message, v);
    vf.counts = take_counts(b.family, kCounted);
    if (!all_verified) vf.note = "error: a signature did not verify";
  }
  s.drop();
  out.push_back(kg);
  out.push_back(sg);
  out.push_back(vf);
  Result pk = base("size:public-key");
  pk.bytes = static_cast<long long>(s.public_key_bytes());
  Result ss = base("size:signature");
  ss.bytes = static_cast<long long>(s.signature_bytes());
  out.push_back(pk);
  out.push_back(ss);
  return out;
}

void csv_header(std::FILE* f) {
  std::fputs("series,scheme,params,backend,implementation,h,log_w,w,op,reps,median_us,p10_us,p90_us,cpu_median_us,"
             "cpu_p10_us,cpu_p90_us,bytes,hashes_per_op,blocks_per_op,note\n",
             f);
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

void csv_row(std::FILE* f, const Result& r) {
  std::fprintf(f, "%s,%s,\"%s\",%s,%s,%u,%u,%u,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,\"%s\"\n", r.series.c_str(),
               r.scheme.c_str(), r.set.c_str(), r.backend.c_str(), r.implementation.c_str(), r.h, r.log_w,
               1u << r.log_w, r.op.c_str(), r.wall ? std::to_string(r.wall->count).c_str() : "",
               r.wall ? num(r.wall->median).c_str() : "", r.wall ? num(r.wall->p10).c_str() : "",
               r.wall ? num(r.wall->p90).c_str() : "", r.cpu ? num(r.cpu->median).c_str() : "",
               r.cpu ? num(r.cpu->p10).c_str() : "", r.cpu ? num(r.cpu->p90).c_str() : "",
               r.bytes >= 0 ? std::to_string(r.bytes).c_str() : "", r.counts ? num(r.counts->hashes).c_str() : "",
               r.counts ? num(r.counts->blocks).c_str() : "", r.note.c_str());
}

void profile_header(std::FILE* f) {
  std::fputs("series,scheme,params,backend,h,log_w,op,input_bytes,path,hashes_per_op,blocks_per_hash\n", f);
}

void profile_rows(std::FILE* f, const Result& r, hashes::HashFamily family, double ops) {
  if (!r.counts) return;
  for (const LengthCount& l : r.counts->by_length) {
    std::fprintf(f, "%s,%s,\"%s\",%s,%u,%u,%s,%zu,%s,%s,%u\n", r.series.c_str(), r.scheme.c_str(), r.set.c_str(),
                 r.backend.c_str(), r.h, r.log_w, r.op.c_str(), l.input_bytes, hash_path_name(l.path),
                 num(static_cast<double>(l.messages) / ops).c_str(), blocks(family, l.input_bytes));
  }
}

struct FileCloser {
  void operator()(std::FILE* f) const noexcept {
    if (f != nullptr) std::fclose(f);
  }
};

}  // namespace

int run_xmss_compare(const Options& o) {
  std::vector<std::string> names = o.backends;
  if (names.size() == 1 && names[0] == "all") names = {"lsh256-simd"};
  std::string error;
  const auto backends = resolve_backends(names, error);
  if (backends.empty()) {
    std::fprintf(stderr, "klms-bench: %s\n", error.empty() ? "no backend" : error.c_str());
    return 2;
  }
  std::unique_ptr<std::FILE, FileCloser> csv, profile;
  if (!o.csv.empty()) {
    csv.reset(std::fopen(o.csv.c_str(), "w"));
    if (!csv) return 1;
    csv_header(csv.get());
  }
  if (!o.profile_csv.empty()) {
    profile.reset(std::fopen(o.profile_csv.c_str(), "w"));
    if (!profile) return 1;
    profile_header(profile.get());
  }
  if (o.table) {
    std::printf("%-12s %-6s %-13s %3s %4s %-8s %12s %12s %10s %10s\n", "series", "scheme", "backend", "h", "w",
                "op", "median_us", "cpu_med_us", "hashes", "blocks");
  }
  for (unsigned h : o.heights) {
    for (unsigned log_w : o.winternitz) {
      for (const hashes::Backend* b : backends) {
        const lms::LmsParams* lp = lms::lms_for(b->family, 32, h);
        const lms::OtsParams* op = lms::ots_for(b->family, 32, log_w);
        const auto xp = xmss::params_for(b->family, 32, h, log_w);
        if (lp == nullptr || op == nullptr || !xp) {
          std::fprintf(stderr, "klms-bench: no LMS/XMSS pair for %s h=%u W=%u (XMSS has w = 4, 16, 256: W = 2, 4, 8)\n",
                       std::string(b->name).c_str(), h, log_w);
          return 2;
        }
        LmsScheme lms_scheme(lms::LevelParams{lp, op});
        XmssScheme xmss_scheme(*xp);
        for (Scheme* s : {static_cast<Scheme*>(&lms_scheme), static_cast<Scheme*>(&xmss_scheme)}) {
          std::fprintf(stderr, "[xmss-compare] %s %s h=%u W=%u on %s\n", s->scheme(), s->set().c_str(), h, log_w,
                       std::string(b->name).c_str());
          for (const Result& r : measure(o, *s, *b, h, log_w)) {
            if (csv) csv_row(csv.get(), r);
            if (profile) profile_rows(profile.get(), r, b->family, r.op == "keygen" ? 1 : 32);
            if (o.table) {
              std::printf("%-12s %-6s %-13s %3u %4u %-8s %12s %12s %10s %10s %s\n", r.series.c_str(), r.scheme.c_str(),
                          r.backend.c_str(), r.h, 1u << r.log_w, r.op.c_str(),
                          r.wall ? num(r.wall->median).c_str() : (r.bytes >= 0 ? std::to_string(r.bytes).c_str() : ""),
                          r.cpu ? num(r.cpu->median).c_str() : "", r.counts ? num(r.counts->hashes).c_str() : "",
                          r.counts ? num(r.counts->blocks).c_str() : "", r.note.c_str());
            }
          }
        }
      }
    }
  }
  return 0;
}

}  // namespace klms::bench
