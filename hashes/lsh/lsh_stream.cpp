// Block buffering for streaming LSH and a generic one-shot, shared by every implementation.
// LSH pads with 0x80 and zeros and has no length field, so a full buffer can be compressed at once:
// the final block always holds at least the 0x80 byte.
#include <cstring>

#include "base/endian.h"
#include "hashes/lsh/lsh_internal.h"

namespace klms::hashes::lsh_detail {
namespace {

template <class Word>
void store_le(std::uint8_t* out, Word w) noexcept {
  if constexpr (sizeof(Word) == 8) {
    endian::store_le64(out, w);
  } else {
    endian::store_le32(out, w);
  }
}

// h[l] = cv[l] ^ cv[l+8], little-endian, truncated to out_bytes.
template <class Word>
void write_output(const Word cv[16], std::uint8_t* out, std::size_t out_bytes) noexcept {
  std::uint8_t full[8 * sizeof(Word)];
  for (int l = 0; l < 8; ++l) store_le<Word>(full + l * sizeof(Word), static_cast<Word>(cv[l] ^ cv[l + 8]));
  std::memcpy(out, full, out_bytes);
}

template <class Word, class Context, std::size_t kBlock, class CompressFn>
void stream_update(Context& ctx, const std::uint8_t* data, std::size_t len, CompressFn compress) noexcept {
  if (len == 0) return;
  if (ctx.buffered > 0) {
    const std::size_t take = len < kBlock - ctx.buffered ? len : kBlock - ctx.buffered;
    std::memcpy(ctx.buffer + ctx.buffered, data, take);
    ctx.buffered += take;
    data += take;
    len -= take;
    if (ctx.buffered < kBlock) return;
    compress(ctx.cv, ctx.buffer, 1);
    ctx.buffered = 0;
  }
  const std::size_t whole = len / kBlock;
  if (whole > 0) {
    compress(ctx.cv, data, whole);
    data += whole * kBlock;
    len -= whole * kBlock;
  }
  if (len > 0) {
    std::memcpy(ctx.buffer, data, len);
    ctx.buffered = len;
  }
}

template <class Word, class Context, std::size_t kBlock, class CompressFn>
void stream_final(Context& ctx, std::uint8_t* out, CompressFn compress) noexcept {
  const std::size_t used = static_cast<std::size_t>(ctx.buffered);
  ctx.buffer[used] = 0x80;
  std::memset(ctx.buffer + used + 1, 0, kBlock - used - 1);
  compress(ctx.cv, ctx.buffer, 1);
  ctx.buffered = 0;
  write_output<Word>(ctx.cv, out, static_cast<std::size_t>(ctx.output_bytes));
}

template <class Word, std::size_t kBlock, class CompressFn>
void digest_generic(CompressFn compress, const Word iv[16], const std::uint8_t* prefix, std::size_t prefix_len,
                    const std::uint8_t* in, std::size_t len, std::uint8_t* out, std::size_t out_bytes) noexcept {
  Word cv[16];
  std::memcpy(cv, iv, sizeof(cv));
  std::uint8_t block[kBlock];
  if (prefix_len > 0 && prefix_len + len >= kBlock) {
    std::memcpy(block, prefix, prefix_len);
    std::memcpy(block + prefix_len, in, kBlock - prefix_len);
    compress(cv, block, 1);
    in += kBlock - prefix_len;
    len -= kBlock - prefix_len;
    prefix_len = 0;
  }
  const std::size_t whole = len / kBlock;
  if (whole > 0) {
    compress(cv, in, whole);
    in += whole * kBlock;
    len -= whole * kBlock;
  }
  std::memset(block, 0, kBlock);
  if (prefix_len > 0) std::memcpy(block, prefix, prefix_len);
  if (len > 0) std::memcpy(block + prefix_len, in, len);
  block[prefix_len + len] = 0x80;
  compress(cv, block, 1);
  write_output<Word>(cv, out, out_bytes);
}

}  // namespace

void lsh256_stream_update(Lsh256Context& ctx, const std::uint8_t* data, std::size_t len,
                          Lsh256CompressFn compress) noexcept {
  stream_update<std::uint32_t, Lsh256Context, kLsh256BlockBytes>(ctx, data, len, compress);
}

void lsh256_stream_final(Lsh256Context& ctx, std::uint8_t* out, Lsh256CompressFn compress) noexcept {
  stream_final<std::uint32_t, Lsh256Context, kLsh256BlockBytes>(ctx, out, compress);
}

void lsh256_digest_generic(Lsh256CompressFn compress, const std::uint32_t iv[16], const std::uint8_t* prefix,
                           std::size_t prefix_len, const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                           std::size_t out_bytes) noexcept {
  digest_generic<std::uint32_t, kLsh256BlockBytes>(compress, iv, prefix, prefix_len, in, len, out, out_bytes);
}

void lsh512_stream_update(Lsh512Context& ctx, const std::uint8_t* data, std::size_t len,
                          Lsh512CompressFn compress) noexcept {
  stream_update<std::uint64_t, Lsh512Context, kLsh512BlockBytes>(ctx, data, len, compress);
}

void lsh512_stream_final(Lsh512Context& ctx, std::uint8_t* out, Lsh512CompressFn compress) noexcept {
  stream_final<std::uint64_t, Lsh512Context, kLsh512BlockBytes>(ctx, out, compress);
}

void lsh512_digest_generic(Lsh512CompressFn compress, const std::uint64_t iv[16], const std::uint8_t* in,
                           std::size_t len, std::uint8_t* out, std::size_t out_bytes) noexcept {
  digest_generic<std::uint64_t, kLsh512BlockBytes>(compress, iv, nullptr, 0, in, len, out, out_bytes);
}

}  // namespace klms::hashes::lsh_detail
