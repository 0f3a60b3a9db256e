#pragma once
//! A recorded access trace (host only): which field of the record, at which byte address,
//! how many bytes, load or store, in program order. recording.hpp records one while a body
//! runs on the host over a mapping; kdlg.hpp computes Kofler et al.'s memory distances and
//! field partition from it (docs/kdlg.md).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace lb::layout {

enum class AccessKind : std::uint8_t { load, store };

//! The field index of an access to global memory outside the record array (another array the
//! body reads or writes): it counts towards memory distances but belongs to no field.
inline constexpr std::size_t kOtherMemory = std::numeric_limits<std::size_t>::max();

//! One global-memory access of a body: `bytes` bytes from `address` (a host address, so
//! distinct arrays never share a byte), to field `field` (record order) or kOtherMemory.
struct Access {
  std::size_t field;
  std::uintptr_t address;
  std::size_t bytes;
  AccessKind kind;
  bool operator==(const Access&) const = default;
};

//! One kernel's accesses in program order (one thread's body, or several threads' bodies in
//! the order they were replayed: the caller's choice, see docs/kdlg.md).
struct KernelTrace {
  std::string kernel;
  std::vector<Access> accesses;
};

}  // namespace lb::layout
