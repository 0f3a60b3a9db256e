#pragma once
//! The synthetic program's host side (Fig. 10a): its input image and the check of a run's
//! output, shared by the GPU variant (benches/inner/synthetic_variant.cu) and the CPU tests.
//! Both are host work per benchmark (an image of 1M objects is ~280 MB), so they run on every
//! core (OpenMP over objects and over 1 MB chunks of a blob) and no expected image is built:
//! the check compares each element with input + value and then the whole blobs with the input
//! image (check_synthetic_output), which says what a comparison with an expected image says.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "lb/inner/synthetic.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/inner_array.hpp"

namespace lb::inner {

//! Every byte of an image outside the data before the run (padding, unused slots).
inline constexpr unsigned char kSyntheticSentinel = 0xA5;

namespace detail {

inline constexpr std::size_t kImageChunk = std::size_t(1) << 20;

//! f(begin, end) over [0, bytes) in chunks, in parallel.
template <class F>
void for_each_chunk(std::size_t bytes, F f) {
  const auto chunks = static_cast<std::int64_t>((bytes + kImageChunk - 1) / kImageChunk);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t begin = static_cast<std::size_t>(c) * kImageChunk;
    f(begin, std::min(bytes, begin + kImageChunk));
  }
}

//! The first byte where a and b differ, or `bytes` (chunks of `chunk` bytes compared in parallel).
inline std::size_t first_difference(const std::byte* a, const std::byte* b, std::size_t bytes,
                                    std::size_t chunk = kImageChunk) {
  const auto chunks = static_cast<std::int64_t>((bytes + chunk - 1) / chunk);
  std::int64_t first = chunks;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t begin = static_cast<std::size_t>(c) * chunk;
    if (std::memcmp(a + begin, b + begin, std::min(bytes, begin + chunk) - begin) != 0) first = std::min(first, c);
  }
  if (first == chunks) return bytes;
  std::size_t x = static_cast<std::size_t>(first) * chunk;
  while (a[x] == b[x]) ++x;
  return x;
}

}  // namespace detail

//! A storage of mapping M for the inputs' sizes (partial: `inline_count` slots inline), every
//! byte the sentinel, then the headers, the values and the inputs' elements.
template <class M>
std::unique_ptr<layout::HostStorage<M>> synthetic_image(const SyntheticInputs& in, std::size_t inline_count) {
  const layout::ArrayLengths lengths = {in.sizes};
  auto s = std::make_unique<layout::HostStorage<M>>(M(lengths, inline_count), layout::uninitialized);
  for (std::size_t b = 0; b < M::blob_count; ++b) {  // every byte, first touched on every core
    std::byte* const blob = s->blob(b);
    detail::for_each_chunk(s->mapping().blob_bytes(b), [&](std::size_t begin, std::size_t end) {
      std::memset(blob + begin, kSyntheticSentinel, end - begin);
    });
  }
  const auto v = s->view();
  s->mapping().write_headers(v.blobs, lengths);
  const auto objects = static_cast<std::int64_t>(in.sizes.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < objects; ++i) {
    v.template get<Value>(i) = in.values[i];
    for (std::uint32_t k = 0; k < in.sizes[i]; ++k) v.template get<Elements>(i, k) = in.elements[in.first[i] + k];
  }
  return s;
}

struct SyntheticCheck {
  bool ok = false;
  std::string message;  //!< the first wrong element (in object order), else the first changed byte
};

//! Checks a run's output `got` against the image `input` it started from: element k of object
//! i must be the input's plus object i's value, every other byte (values, headers, padding,
//! unused slots) unchanged. `got` is scratch: its correct elements are put back to the input's
//! on the way, so that one comparison of whole blobs with `input` then finds any byte changed
//! outside the elements (an expected image differs from `input` in the elements alone: the
//! same verdict and the same first byte). No fmt: nvcc compiles the variant that includes it.
template <class M>
SyntheticCheck check_synthetic_output(layout::HostStorage<M>& got, const layout::HostStorage<M>& input,
                                      const SyntheticInputs& in) {
  const auto g = got.view();
  const auto objects = static_cast<std::int64_t>(in.sizes.size());
  // (object << 32) | element of the first wrong element: objects are scanned in parallel, the
  // smallest wins, and that object's scan stopped there without putting anything back at it.
  constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t first = kNone;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (std::int64_t i = 0; i < objects; ++i) {
    const int value = in.values[i];
    for (std::uint32_t k = 0; k < in.sizes[i]; ++k) {
      int& e = g.template get<Elements>(i, k);
      const int was = in.elements[in.first[i] + k];
      if (e != was + value) {
        first = std::min(first, (static_cast<std::uint64_t>(i) << 32) | k);
        break;
      }
      e = was;
    }
  }
  SyntheticCheck check;
  if (first != kNone) {
    const std::size_t i = first >> 32;
    const std::uint32_t k = first & 0xFFFFFFFFu;
    const int was = in.elements[in.first[i] + k];
    check.message = "object " + std::to_string(i) + " element " + std::to_string(k) + ": got " +
                    std::to_string(g.template get<Elements>(i, k)) + ", expected " + std::to_string(was + in.values[i]) +
                    " (input " + std::to_string(was) + " + value " + std::to_string(in.values[i]) + ")";
    return check;
  }
  for (std::size_t b = 0; b < M::blob_count; ++b) {
    const std::size_t bytes = got.mapping().blob_bytes(b);
    if (const std::size_t x = detail::first_difference(got.blob(b), input.blob(b), bytes); x < bytes) {
      check.message = "blob " + std::to_string(b) + " byte " + std::to_string(x) +
                      " changed outside the arrays' elements (a value, header, padding or unused slot)";
      return check;
    }
  }
  check.ok = true;
  return check;
}

}  // namespace lb::inner
