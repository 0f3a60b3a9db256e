#pragma once
//! The synthetic kernels of the decision tree's training on the GPU (tree_synthetic.cu),
//! instantiated for m = 1 .. kMaxFields over AoSMapping, SoAMapping and Pow2AoSoAMapping
//! (every tile of the sweep at run time): a mapping missing there is a link error.

#include <cuda_runtime_api.h>

#include "lb/kofler/tree_synthetic.hpp"
#include "lb/layout/aos.hpp"
#include "lb/layout/aosoa.hpp"
#include "lb/layout/soa.hpp"
#include "lb/layout/view.hpp"

namespace lb::kofler::tree {

//! The three mapping families of the training, for a record of M fields.
template <std::size_t M>
using AoS = layout::AoSMapping<SyntheticRecord<M>>;
template <std::size_t M>
using SoA = layout::SoAMapping<SyntheticRecord<M>>;
template <std::size_t M>
using Tiled = layout::Pow2AoSoAMapping<SyntheticRecord<M>>;

//! init_record over every record (values = false: field 0 only, the poison).
template <class Mapping>
void synthetic_init(const layout::View<Mapping>& v, bool values, cudaStream_t stream);
//! The timed kernel: geometry.threads() threads, each thread_body over n = iterations.
template <class Mapping>
void synthetic_run(const layout::View<Mapping>& v, const Geometry& geometry, int block, cudaStream_t stream);
//! Adds the checksum of `words` 4-byte words at `data` (device) to *out (device), in order-free
//! 64-bit sums.
void synthetic_checksum(const float* data, std::size_t words, Checksum* out, cudaStream_t stream);

}  // namespace lb::kofler::tree
