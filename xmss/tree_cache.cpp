#include "xmss/tree_cache.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace klms::xmss {
namespace {

constexpr std::uint8_t kMagic[8] = {'K', 'X', 'M', 'S', 'T', 'R', 'E', 'E'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kFixedHeaderBytes = 108;
constexpr std::size_t kMacBytes = 32;
// The nodes start here, after the largest header: 108 bytes, a layer signature of at most
// (133 + 20) * 32 bytes as extra, the MAC.
constexpr std::size_t kNodesOffset = 8192;
constexpr std::size_t kMaxExtraBytes = kNodesOffset - kFixedHeaderBytes - kMacBytes;
// "KLMS XMSS cache" and a zero byte: the first 16 bytes of the MAC's input, which no XMSS hash
// input begins with (those start with toByte(x, pad): zero bytes).
constexpr std::uint8_t kMacLabel[16] = {'K', 'L', 'M', 'S', ' ', 'X', 'M', 'S', 'S', ' ', 'c', 'a', 'c', 'h', 'e', 0};

bool write_all(int fd, const std::uint8_t* data, std::size_t len, off_t offset) noexcept {
  while (len > 0) {
    const ssize_t w = ::pwrite(fd, data, len, offset);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    len -= static_cast<std::size_t>(w);
    offset += w;
  }
  return true;
}

bool read_all(int fd, std::uint8_t* data, std::size_t len, off_t offset) noexcept {
  while (len > 0) {
    const ssize_t r = ::pread(fd, data, len, offset);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    data += r;
    len -= static_cast<std::size_t>(r);
    offset += r;
  }
  return true;
}

// Node `index` of `level` in heap order (root r = 1, the leaves 2^h .. 2^(h+1) - 1), as a file offset.
off_t node_offset(unsigned height, unsigned n, unsigned level, std::uint32_t index) noexcept {
  const std::uint64_t r = (std::uint64_t{1} << (height - level)) + index;
  return static_cast<off_t>(kNodesOffset + (r - 1) * n);
}

std::uint64_t file_bytes(unsigned height, unsigned n) noexcept {
  return kNodesOffset + ((std::uint64_t{2} << height) - 1) * n;
}

Bytes encode_header(const CacheIdentity& id, const std::uint8_t* root, ByteView extra) {
  const Params& p = *id.params;
  Bytes h(kFixedHeaderBytes, 0);
  std::memcpy(h.data(), kMagic, 8);
  put_u32(h.data() + 8, kVersion);
  h[12] = p.scheme == Scheme::kXmss ? 0 : 1;
  put_u32(h.data() + 16, p.oid);
  put_u32(h.data() + 20, id.layer);
  put_u64(h.data() + 24, id.tree);
  std::memcpy(h.data() + 32, id.key_id.data(), 32);
  put_u32(h.data() + 64, p.tree_height());
  put_u32(h.data() + 68, p.n);
  std::memcpy(h.data() + 72, root, p.n);
  put_u32(h.data() + 104, static_cast<std::uint32_t>(extra.size()));
  append(h, extra);
  return h;
}

bool constant_time_equal(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) noexcept {
  std::uint8_t diff = 0;
  for (std::size_t i = 0; i < n; ++i) diff |= a[i] ^ b[i];
  return diff == 0;
}

}  // namespace

CacheAuthenticator::CacheAuthenticator(const Hasher& hasher, const std::uint8_t* sk_prf) noexcept : hasher_(&hasher) {
  hasher.randomizer(sk_prf, ~std::uint64_t{0}, key_.data());
}

void CacheAuthenticator::tag(ByteView data, std::uint8_t* out32) const noexcept {
  const hashes::Backend& backend = hasher_->backend();
  hashes::PrefixState prefix;
  backend.init_prefix(prefix, kMacLabel);
  hashes::StreamState state;
  backend.stream_init(state, prefix);
  backend.stream_update(state, key_.data(), key_.size());
  backend.stream_update(state, data.data(), data.size());
  backend.stream_final(state, out32);
  wipe(&state, sizeof state);
  hashes::wipe_hash_stack(backend);  // the MAC key went through the stream's compressions
}

// ---- TreeCacheWriter ----

Result<TreeCacheWriter> TreeCacheWriter::create(const std::string& path, const Params& params) {
  std::uint8_t suffix[8];
  if (getrandom(suffix, sizeof suffix, 0) != static_cast<ssize_t>(sizeof suffix)) return Error::kCacheWriteFailed;
  TreeCacheWriter w;
  w.path_ = path;
  w.temporary_ = path + ".tmp.";
  static const char* hex = "0123456789abcdef";
  for (const std::uint8_t b : suffix) {
    w.temporary_.push_back(hex[b >> 4]);
    w.temporary_.push_back(hex[b & 15]);
  }
  w.height_ = params.tree_height();
  w.n_ = params.n;
  w.fd_ = ::open(w.temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (w.fd_ < 0) return Error::kCacheWriteFailed;
  return w;
}

TreeCacheWriter::TreeCacheWriter(TreeCacheWriter&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)), temporary_(std::move(other.temporary_)), height_(other.height_),
      n_(other.n_), failed_(other.failed_) {
  other.fd_ = -1;
  other.temporary_.clear();
}

TreeCacheWriter::~TreeCacheWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void TreeCacheWriter::put_level(unsigned level, std::uint32_t first, const std::uint8_t* slots,
                                std::uint32_t count) noexcept {
  if (fd_ < 0 || level > height_) return;
  // One level's range is contiguous in heap order: pack the n-byte nodes and write them at once.
  std::uint8_t packed[64 * 32];
  for (std::uint32_t done = 0; done < count;) {
    const std::uint32_t batch = count - done < 64 ? count - done : 64;
    for (std::uint32_t i = 0; i < batch; ++i) std::memcpy(packed + i * n_, slots + (done + i) * kSlot, n_);
    if (!write_all(fd_, packed, std::size_t{batch} * n_, node_offset(height_, n_, level, first + done))) failed_ = true;
    done += batch;
  }
}

Error TreeCacheWriter::commit(const CacheIdentity& identity, const std::uint8_t* root, ByteView extra,
                              const CacheAuthenticator& auth) {
  if (fd_ < 0 || extra.size() > kMaxExtraBytes) return Error::kCacheWriteFailed;
  Bytes header = encode_header(identity, root, extra);
  std::uint8_t mac[kMacBytes] = {};
  auth.tag(header, mac);
  append_bytes(header, mac, kMacBytes);
  header.resize(kNodesOffset, 0);
  bool ok = !failed_ && write_all(fd_, header.data(), header.size(), 0) &&
            ::ftruncate(fd_, static_cast<off_t>(file_bytes(height_, n_))) == 0 && ::fdatasync(fd_) == 0;
  ok = ::close(fd_) == 0 && ok;
  fd_ = -1;
  if (ok) ok = ::rename(temporary_.c_str(), path_.c_str()) == 0;
  if (!ok) return Error::kCacheWriteFailed;  // the destructor removes the temporary file
  temporary_.clear();
  return Error::kOk;
}

// ---- TreeCacheFile ----

Result<TreeCacheFile> TreeCacheFile::open(const std::string& path, const CacheIdentity& expected,
                                          const CacheAuthenticator& auth) {
  TreeCacheFile f;
  // O_NONBLOCK: a FIFO or device planted at the name must not block (it is then refused as not regular).
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (f.fd_ < 0) return Error::kCacheUnusable;
  struct stat st {};
  if (::fstat(f.fd_, &st) != 0 || !S_ISREG(st.st_mode)) return Error::kCacheUnusable;
  std::uint8_t fixed[kFixedHeaderBytes];
  if (!read_all(f.fd_, fixed, sizeof fixed, 0)) return Error::kCacheUnusable;
  const std::uint32_t extra_len = get_u32(fixed + 104);
  if (std::memcmp(fixed, kMagic, 8) != 0 || get_u32(fixed + 8) != kVersion || extra_len > kMaxExtraBytes) {
    return Error::kCacheUnusable;
  }
  Bytes header(fixed, fixed + kFixedHeaderBytes);
  header.resize(kFixedHeaderBytes + extra_len + kMacBytes);
  if (!read_all(f.fd_, header.data() + kFixedHeaderBytes, extra_len + kMacBytes, kFixedHeaderBytes)) {
    return Error::kCacheUnusable;
  }
  std::uint8_t mac[kMacBytes];
  auth.tag(ByteView(header.data(), kFixedHeaderBytes + extra_len), mac);
  if (!constant_time_equal(mac, header.data() + kFixedHeaderBytes + extra_len, kMacBytes)) {
    return Error::kCacheUnusable;
  }
  const Params& p = *expected.params;
  const unsigned height = p.tree_height();
  if (fixed[12] != (p.scheme == Scheme::kXmss ? 0 : 1) || get_u32(fixed + 16) != p.oid ||
      get_u32(fixed + 20) != expected.layer || get_u64(fixed + 24) != expected.tree ||
      (!expected.any_key_id && std::memcmp(fixed + 32, expected.key_id.data(), 32) != 0) ||
      get_u32(fixed + 64) != height || get_u32(fixed + 68) != p.n ||
      static_cast<std::uint64_t>(st.st_size) != file_bytes(height, p.n)) {
    return Error::kCacheUnusable;
  }
  std::memcpy(f.root_.data(), fixed + 72, 32);
  f.extra_.assign(header.begin() + kFixedHeaderBytes, header.begin() + kFixedHeaderBytes + extra_len);
  f.height_ = height;
  f.n_ = p.n;
  return f;
}

TreeCacheFile::TreeCacheFile(TreeCacheFile&& other) noexcept
    : fd_(other.fd_), root_(other.root_), extra_(std::move(other.extra_)), height_(other.height_), n_(other.n_) {
  other.fd_ = -1;
}

TreeCacheFile& TreeCacheFile::operator=(TreeCacheFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
    root_ = other.root_;
    extra_ = std::move(other.extra_);
    height_ = other.height_;
    n_ = other.n_;
  }
  return *this;
}

TreeCacheFile::~TreeCacheFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool TreeCacheFile::read_node(unsigned level, std::uint32_t index, std::uint8_t* out) const noexcept {
  if (level > height_ || index >= (std::uint32_t{1} << (height_ - level))) return false;
  return read_all(fd_, out, n_, node_offset(height_, n_, level, index));
}

}  // namespace klms::xmss
