#pragma once
//! Records moved between a host array in record order (RecordValue: the layout-neutral form)
//! and a device view of any mapping, laid out or gathered by a kernel on the device. Only the
//! n records asked for cross the bus, through a bounded device stage (kRecordStageBytes), and
//! no host copy of the whole layout is built: a view whose capacity far exceeds its live
//! records (SAMPO's agents) costs what its records cost. Definitions in device_records.cuh,
//! which a program's .cu includes and instantiates for its mappings.

#include <cuda_runtime_api.h>

#include <cstddef>

#include "lb/layout/view.hpp"

namespace lb::layout {

//! Device bytes the transfers below hold while they run (one chunk of records).
inline constexpr std::size_t kRecordStageBytes = std::size_t(32) << 20;

//! Stores records[0, n) into the view's records 0..n-1 (n <= view.size(); every other byte
//! of the view stays as it was), then synchronises `stream`. `stage_bytes` (tests: several
//! chunks from a small case) bounds the stage.
template <class M>
void upload_records(const View<M>& view, const RecordValue<typename M::record>* records, std::size_t n,
                    cudaStream_t stream, std::size_t stage_bytes = kRecordStageBytes);

//! Loads the view's records 0..n-1 (n <= view.size()) into records[0, n), then synchronises
//! `stream`.
template <class M>
void download_records(const View<M>& view, RecordValue<typename M::record>* records, std::size_t n,
                      cudaStream_t stream, std::size_t stage_bytes = kRecordStageBytes);

}  // namespace lb::layout
