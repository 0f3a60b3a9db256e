#pragma once
//! One interface for every program of every paper (the RAJAPerf / nvbench pattern). A program
//! says how to set up one variant, run it once, poison its outputs, check them against its
//! reference, and what one run does (declared Work). The harness does the rest the same way for
//! all: the memory-fit check, set-up, poisoning, one validated run, the timed loop (GPU: CUDA
//! events with L2 flushed; CPU: a steady clock) and the counters derived from Work and the
//! device's measured ceilings, under one naming convention:
//!
//!   <unit>, <unit>_per_s           the program's own unit (interactions, estimates, keys, ...)
//!                                  and its rate over the whole timed run (t)
//!   bytes_read, bytes_written,     DRAM bytes an ideal cache would move per run (left out when
//!   bytes_per_s                    the program declares none); bytes_per_s = their sum / t_w
//!   memory_bound_s                 (bytes_read + bytes_written) / measured copy bandwidth
//!   pct_copy_bandwidth             100 * memory_bound_s / t_w
//!   compute_bound_s                the slowest unit at its measured rate (FP32 FMA, FP32 special
//!   pct_compute_bound              function, FP64 FMA); 100 * compute_bound_s / t_w
//!   bound_s, pct_of_bound          the larger bound; 100 * bound_s / t_w
//!   footprint_bytes                device (or host) bytes the variant's data takes
//! A program whose timed region also moves data over the host<->device bus declares those
//! bytes (Work::bus_h2d_bytes, bus_d2h_bytes); the bus then bounds the whole run (t), and:
//!   bus_h2d_bytes, bus_d2h_bytes   per run
//!   bus_bound_s, pct_bus_bandwidth the slower direction at the measured pinned rate (the two
//!                                  directions can overlap); 100 * bus_bound_s / t
//!   bound_s, pct_of_bound          end to end: the bound that binds of device memory, compute
//!                                  and bus (the largest); 100 * bound_s / t
//!   device_bound_s,                device only: the larger of the memory and compute bounds;
//!   pct_of_device_bound            100 * device_bound_s / t_w (what bound_s and pct_of_bound
//!                                  are for a program that declares no bus bytes)
//! plus the validation's counters (max_abs_err, max_rel_err, tolerance, checked, unvalidated)
//! and whatever a program adds (Variant::add_counters). t_w is the time the declared bytes and
//! FLOPs are spent in: t, unless the variant measures a part of its run (Variant::work_seconds;
//! e.g. the device part, without host solves and transfers); without it, no percentages.
//! CPU cases get no bounds from the GPU's ceilings.

#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include <benchmark/benchmark.h>

#include "lb/harness/ceilings.hpp"
#include "lb/harness/memory_fit.hpp"

namespace lb::harness {

//! What one run of a variant does, declared by the program from its algorithm (not measured).
struct Work {
  std::string unit;        //!< the program's own unit, a counter name: "interactions", "keys"
  double units = 0;        //!< per run
  double bytes_read = 0;   //!< per run, what the algorithm must read from DRAM at least
  double bytes_written = 0;
  double fp32_fma = 0;     //!< FP32 FMA-pipe instructions per run (an add or mul counts as one)
  double fp32_special = 0; //!< FP32 special-function instructions (rcp, rsqrt, exp2, ...)
  double fp64_fma = 0;     //!< FP64 instructions per run
  double bus_h2d_bytes = 0;  //!< per run, host -> device over the bus inside the timed region
  double bus_d2h_bytes = 0;  //!< per run, device -> host
};

//! The outcome of checking one run against the program's reference.
struct Check {
  bool ok = false;
  std::string message;      //!< why not, naming the first bad output
  bool unvalidated = false; //!< the tolerance could not fail a wrong program (reported, not hidden)
  std::map<std::string, double> counters;  //!< e.g. max_rel_err, tolerance, checked
};

//! One variant of one program at one size. The harness calls, in order: setup, then poison +
//! prepare + run + validate once, then prepare + run per timed iteration.
class Variant {
 public:
  virtual ~Variant() = default;
  //! Allocate and fill inputs (not timed).
  virtual void setup(cudaStream_t stream) = 0;
  //! Fill every output with values no correct run leaves (NaN, sentinels), so a run that skips
  //! an output fails validation.
  virtual void poison(cudaStream_t stream) = 0;
  //! Restore what a run changes in its inputs (a sort's keys, a simulation's state) before
  //! every run; not timed.
  virtual void prepare(cudaStream_t) {}
  //! The timed work. GPU variants enqueue it on `stream`; CPU variants ignore the stream.
  virtual void run(cudaStream_t stream) = 0;
  //! A variant whose timed region is not one stream's span (e.g. host work between its own
  //! CUDA events) times itself: it returns true here and the seconds of one run from
  //! run_timed, which the harness then calls instead of run.
  virtual bool times_itself() const { return false; }
  virtual double run_timed(cudaStream_t) { return 0; }
  //! Check the outputs of the last run against the reference.
  virtual Check validate(cudaStream_t stream) = 0;
  virtual Work work() const = 0;
  virtual double footprint_bytes() const = 0;
  //! Fraction of the declared work one run performs (a CPU run timed on a sample of its
  //! points): times are divided by it.
  virtual double sampled_fraction() const { return 1.0; }
  //! After each timed loop (one per repetition), in this order: a non-empty message fails the
  //! benchmark (no counters), e.g. device-side launches that failed while timed.
  virtual std::string after_timing() { return {}; }
  //! The mean seconds of that loop's runs spent in the declared Work, given the mean seconds
  //! of one run: all of them, unless the timed region also holds work that Work leaves out
  //! (host work, transfers) and the variant measures its part, over the loop's runs (it then
  //! starts over for the next loop). NaN: not measured (no percentages of the bounds).
  virtual double work_seconds(double seconds) { return seconds; }
  //! Program-specific counters, given the mean seconds of one (scaled) run.
  virtual void add_counters(benchmark::State&, double /*seconds*/) const {}

  //! What making it decided that its name does not say (which layout a trial chose:
  //! lb/harness/trial.hpp), set by its maker: run_case labels the result with it, after the
  //! case's label.
  std::string made_label;
};

enum class Where { gpu, cpu };

//! One planned benchmark of a program: its name, where it runs, what it needs (checked before
//! set-up) and how to make it.
struct ProgramCase {
  Where where = Where::gpu;
  MemoryNeed memory;
  std::function<std::unique_ptr<Variant>()> make;
  //! Google Benchmark's repetitions and minimum time for this case; 0: the preset's. A suite of
  //! many short cases (a training grid) sets them from its own preset object.
  int repetitions = 0;
  double min_time_s = 0;
  //! The result's label (Google Benchmark's, the JSON's "label"), when it records more than
  //! the name does (e.g. what a layout chosen at planning time chose). Empty: none.
  std::string label = {};
};

//! The counters the convention above derives from Work, the mean seconds of one run, the
//! seconds the Work is spent in (work_seconds; NaN: not measured) and the ceilings (a zero
//! ceiling or zero work leaves that bound out).
std::map<std::string, double> rate_counters(const Work& work, double seconds, double work_seconds,
                                            const Ceilings& ceilings);
//! The same, the work spent over the whole run.
std::map<std::string, double> rate_counters(const Work& work, double seconds, const Ceilings& ceilings);

//! Runs one case inside a Google Benchmark loop: fit check, set-up, poison, one run, validation
//! (a failed check skips the benchmark with its message), the timed loop, counters. GPU cases
//! time with the process's GpuTimer; `ceilings` are the process's (env()) unless given, none
//! for CPU cases.
//! The run every variant gets before it is timed (run_case's, and each candidate's of a trial):
//! set-up, poison, prepare, one run (its own timing where it times itself), `wait` for it (a
//! GPU's stream; empty on the host), and the check of its outputs.
Check validation_run(Variant& v, cudaStream_t stream, const std::function<void()>& wait);

void run_case(benchmark::State& state, const std::string& name, const ProgramCase& c);
void run_case(benchmark::State& state, const std::string& name, const ProgramCase& c, const Ceilings& ceilings,
              cudaStream_t stream);

}  // namespace lb::harness
