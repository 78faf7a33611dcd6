#include "lms/tree_cache.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace klms::lms {
namespace {

constexpr std::uint8_t kMagic[8] = {'K', 'L', 'M', 'S', 'T', 'R', 'E', 'E'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kFixedHeaderBytes = 132;
constexpr std::size_t kMacBytes = 32;
constexpr std::size_t kPage = 4096;
constexpr std::size_t kMaxExtraBytes = 64 * 1024;
constexpr std::uint32_t kMacIndex = 0xFFFFFFFF;
constexpr std::uint16_t kMacKeyJ = 0xFFFC;
constexpr std::uint16_t kMacTagJ = 0xFFFB;

std::uint64_t round_up_page(std::uint64_t v) { return (v + kPage - 1) / kPage * kPage; }

bool write_all(int fd, const std::uint8_t* data, std::size_t len, off_t offset) {
  while (len > 0) {
    const ssize_t w = pwrite(fd, data, len, offset);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    len -= static_cast<std::size_t>(w);
    offset += w;
  }
  return true;
}

bool read_all(int fd, std::uint8_t* data, std::size_t len, off_t offset) {
  while (len > 0) {
    const ssize_t r = pread(fd, data, len, offset);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    data += r;
    len -= static_cast<std::size_t>(r);
    offset += r;
  }
  return true;
}

Bytes encode_header(const CacheIdentity& id, const std::uint8_t* root, const TreeNodes& nodes, ByteView extra) {
  Bytes h(kFixedHeaderBytes, 0);
  std::memcpy(h.data(), kMagic, 8);
  put_u32(h.data() + 8, kVersion);
  put_u32(h.data() + 12, id.level);
  put_u64(h.data() + 16, id.tree_number);
  std::memcpy(h.data() + 24, id.key_id.data(), 32);
  put_u32(h.data() + 56, id.params.lms->code);
  put_u32(h.data() + 60, id.params.ots->code);
  std::memcpy(h.data() + 64, id.identifier.data(), 16);
  std::memcpy(h.data() + 80, root, id.params.lms->m);
  put_u32(h.data() + 112, nodes.stored_depth());
  put_u32(h.data() + 116, nodes.node_bytes());
  put_u64(h.data() + 120, nodes.stored_count());
  put_u32(h.data() + 128, static_cast<std::uint32_t>(extra.size()));
  append(h, extra);
  return h;
}

bool constant_time_equal(const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
  std::uint8_t diff = 0;
  for (std::size_t i = 0; i < n; ++i) diff |= a[i] ^ b[i];
  return diff == 0;
}

}  // namespace

CacheAuthenticator::CacheAuthenticator(const TreeKey& top_key) noexcept
    : hasher_(top_key.hasher), m_(top_key.params.lms->m) {
  std::uint8_t k[32];
  top_key.prf(kMacIndex, kMacKeyJ, k);
  std::memcpy(key_.data(), k, 32);
  wipe(k, sizeof k);
}

void CacheAuthenticator::tag(ByteView data, std::uint8_t* out32) const noexcept {
  hashes::StreamState state;
  hasher_.backend->stream_init(state, hasher_.prefix);
  std::uint8_t head[6 + 32];
  put_u32(head, kMacIndex);
  put_u16(head + 4, kMacTagJ);
  std::memcpy(head + 6, key_.data(), m_);
  hasher_.backend->stream_update(state, head, 6 + m_);
  wipe(head, sizeof head);
  hasher_.backend->stream_update(state, data.data(), data.size());
  hasher_.backend->stream_final(state, out32);
  wipe(&state, sizeof state);
  hashes::wipe_hash_stack(*hasher_.backend);  // the MAC key went through the stream's compressions
}

Error write_tree_cache(const std::string& path, const CacheIdentity& identity, const std::uint8_t* root,
                       const TreeNodes& nodes, ByteView extra, const CacheAuthenticator& auth) {
  if (extra.size() > kMaxExtraBytes) return Error::kInvalidArgument;
  Bytes header = encode_header(identity, root, nodes, extra);
  std::uint8_t mac[32] = {};
  auth.tag(header, mac);
  append_bytes(header, mac, kMacBytes);
  header.resize(round_up_page(header.size()), 0);

  std::uint8_t suffix[8];
  if (getrandom(suffix, sizeof suffix, 0) != static_cast<ssize_t>(sizeof suffix)) return Error::kCacheWriteFailed;
  std::string temporary = path + ".tmp.";
  static const char* hex = "0123456789abcdef";
  for (std::uint8_t b : suffix) {
    temporary.push_back(hex[b >> 4]);
    temporary.push_back(hex[b & 15]);
  }
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Error::kCacheWriteFailed;
  bool ok = write_all(fd, header.data(), header.size(), 0) &&
            write_all(fd, nodes.bytes().data(), nodes.bytes().size(), static_cast<off_t>(header.size())) &&
            fdatasync(fd) == 0;
  ok = (::close(fd) == 0) && ok;
  if (ok) ok = ::rename(temporary.c_str(), path.c_str()) == 0;
  if (!ok) {
    ::unlink(temporary.c_str());
    return Error::kCacheWriteFailed;
  }
  return Error::kOk;
}

Result<TreeCacheFile> TreeCacheFile::open(const std::string& path, const CacheIdentity& expected,
                                          const CacheAuthenticator& auth) {
  TreeCacheFile f;
  // O_NONBLOCK: a FIFO or device planted at the name must not block (it is then refused as not regular).
  f.fd_ = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (f.fd_ < 0) return Error::kCacheUnusable;
  struct stat st {};
  if (fstat(f.fd_, &st) != 0 || !S_ISREG(st.st_mode)) return Error::kCacheUnusable;

  std::uint8_t fixed[kFixedHeaderBytes];
  if (!read_all(f.fd_, fixed, sizeof fixed, 0)) return Error::kCacheUnusable;
  const LmsParams& lms = *expected.params.lms;
  const unsigned m = lms.m;
  const std::uint32_t extra_len = get_u32(fixed + 128);
  if (std::memcmp(fixed, kMagic, 8) != 0 || get_u32(fixed + 8) != kVersion || extra_len > kMaxExtraBytes) {
    return Error::kCacheUnusable;
  }
  Bytes header(fixed, fixed + kFixedHeaderBytes);
  header.resize(kFixedHeaderBytes + extra_len + kMacBytes);
  if (!read_all(f.fd_, header.data() + kFixedHeaderBytes, extra_len + kMacBytes, kFixedHeaderBytes)) {
    return Error::kCacheUnusable;
  }
  std::uint8_t mac[32];
  auth.tag(ByteView(header.data(), kFixedHeaderBytes + extra_len), mac);
  if (!constant_time_equal(mac, header.data() + kFixedHeaderBytes + extra_len, auth.tag_bytes())) {
    return Error::kCacheUnusable;
  }
  const unsigned stored_depth = lms.h < kMaxStoredDepth ? lms.h : kMaxStoredDepth;
  const std::uint64_t node_count = (std::uint64_t{2} << stored_depth) - 1;
  if (get_u32(fixed + 12) != expected.level || get_u64(fixed + 16) != expected.tree_number ||
      (!expected.any_key_id && std::memcmp(fixed + 24, expected.key_id.data(), 32) != 0) ||
      get_u32(fixed + 56) != lms.code ||
      get_u32(fixed + 60) != expected.params.ots->code ||
      std::memcmp(fixed + 64, expected.identifier.data(), 16) != 0 || get_u32(fixed + 112) != stored_depth ||
      get_u32(fixed + 116) != m || get_u64(fixed + 120) != node_count) {
    return Error::kCacheUnusable;
  }
  f.nodes_offset_ = round_up_page(kFixedHeaderBytes + extra_len + kMacBytes);
  if (static_cast<std::uint64_t>(st.st_size) != f.nodes_offset_ + node_count * m) return Error::kCacheUnusable;
  std::memcpy(f.root_.data(), fixed + 80, 32);
  f.extra_.assign(header.begin() + kFixedHeaderBytes, header.begin() + kFixedHeaderBytes + extra_len);
  f.stored_depth_ = stored_depth;
  f.m_ = m;
  return f;
}

TreeCacheFile::TreeCacheFile(TreeCacheFile&& other) noexcept
    : fd_(other.fd_), root_(other.root_), extra_(std::move(other.extra_)), stored_depth_(other.stored_depth_),
      m_(other.m_), nodes_offset_(other.nodes_offset_) {
  other.fd_ = -1;
}

TreeCacheFile& TreeCacheFile::operator=(TreeCacheFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
    root_ = other.root_;
    extra_ = std::move(other.extra_);
    stored_depth_ = other.stored_depth_;
    m_ = other.m_;
    nodes_offset_ = other.nodes_offset_;
  }
  return *this;
}

TreeCacheFile::~TreeCacheFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool TreeCacheFile::read_node(std::uint64_t r, std::uint8_t* out) const noexcept {
  if (r == 0 || r >= (std::uint64_t{2} << stored_depth_)) return false;
  return read_all(fd_, out, m_, static_cast<off_t>(nodes_offset_ + (r - 1) * m_));
}

}  // namespace klms::lms
