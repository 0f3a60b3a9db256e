// The bitonic sort under access recording: each of its three kernels' one launch at
// kBitonicRecordedRecords records, every block replayed on the host (recorders.hpp).

#include <string>

#include "lb/kofler/recorders.hpp"
#include "lb/kofler/sort_body.hpp"
#include "lb/layout/host_storage.hpp"
#include "lb/layout/recording.hpp"

namespace lb::kofler {

BitonicRecordedRun bitonic_recorded_run() {
  using M = SortAoS;
  const std::size_t n = kBitonicRecordedRecords, chunks = n / kSortChunk;
  layout::HostStorage<M> in(M{n}), out(M{n});
  for (std::size_t i = 0; i < n; ++i) in.view().store(i, to_value(sort_input(i)));
  BitonicRecordedRun run;
  for (const BitonicPass& p : bitonic_schedule(n)) {
    layout::KernelTrace trace;
    const layout::RecordingView<M> rin(in.view(), trace.accesses), rout(out.view(), trace.accesses);
    switch (p.kind) {
      case BitonicPass::sort_chunks:
        trace.kernel = "sort_chunks";
        for (std::size_t b = 0; b < chunks; ++b) bitonic_replay_sort_chunks(rin, rout, b);
        break;
      case BitonicPass::merge_global:
        trace.kernel = "merge_global (stride " + std::to_string(p.stride) + ")";
        for (std::size_t b = 0; b < n / 2 / kSortGlobalThreads; ++b) bitonic_replay_merge_global(rout, p.size, p.stride, b);
        break;
      case BitonicPass::merge_shared:
        trace.kernel = "merge_shared";
        for (std::size_t b = 0; b < chunks; ++b) bitonic_replay_merge_shared(rout, p.size, b);
        break;
    }
    run.program.kernels.push_back(std::move(trace));
  }
  for (std::size_t i = 0; i < n; ++i) run.output.push_back(to_plain(out.view().load(i)));
  run.program.program = "bitonic";
  run.program.field_names = kSortFieldNames;
  run.program.field_bytes = layout::field_bytes<SortRecord>();
  run.program.problem = std::to_string(n) + " records: one launch of each kernel (" +
                        std::to_string(run.program.kernels.size()) +
                        " passes), all blocks one after another, each phase by phase in thread order";
  return run;
}

RecordedProgram record_bitonic() { return bitonic_recorded_run().program; }

}  // namespace lb::kofler
