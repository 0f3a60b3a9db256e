#pragma once
//! Programs declare their axes; one planner expands a suite's preset section over them and one
//! function names every benchmark from its place on those axes.
//!
//! A program (nbody, bfs, IDW's Shepard interpolation, ...) states once: its axes with the
//! values it has (for the registry, `layoutbench suites --json`, and for the one-line error a
//! preset naming another value gets), the counters it adds to the convention's
//! (lb/harness/program.hpp), and its planner, which reads its preset object and returns its
//! cases, each an id on the axes and how to run it. plan_suite does the rest for every suite:
//! finds the suite's section in the preset, checks its program names, plans them in the
//! suite's order, names each case with benchmark_name and runs it with run_case.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lb/harness/preset.hpp"
#include "lb/harness/program.hpp"

namespace lb::harness {

struct Overrides;
struct PlannedBenchmark;

//! Where one benchmark sits on its program's axes (the planner fills in suite and program). Its name (benchmark_name) is
//!   <suite>/<program>/<version>/<layout>/<precision>{/<key>:<value>}
//! e.g. kofler/nbody/gpu/tiled/float/tile:64/size:16384,
//!      inner/bfs/partial/soa/int/inline:3/graph:road-like,
//!      idw/shepard/tiled/soa/float/p:2/size:10240/block:256,
//!      kriging/ok/gpu-exp7/dense/double/scale:1/wells:10.
struct BenchmarkId {  // default member initializers: a designated initializer may name only some
  std::string suite{}, program{}, version{}, layout{}, precision{};
  std::vector<std::pair<std::string, std::string>> params{};  //!< in name order
};

//! The one benchmark namer.
std::string benchmark_name(const BenchmarkId& id);

//! One planned benchmark before it is named: its id, and what runs it.
struct PlannedCase {
  BenchmarkId id;
  ProgramCase run;
  std::string name() const { return benchmark_name(id); }
};

//! A planner's cases: a vector whose every push_back counts against the suite's plan limit
//! (lb::datasets::text::max_plan_benchmarks: LB_MAX_BENCHMARKS, else 100,000). Past the
//! limit it holds nothing more but goes on counting, so the error can state the plan's size
//! (plan_program, plan_suite: a PresetError); counting stops at kPlanCountFactor times the
//! limit, so a preset planning billions is refused after a bounded count.
class Cases : public std::vector<PlannedCase> {
 public:
  void push_back(PlannedCase c);
};

//! How far past the limit a plan is counted (each case counted is still made, then dropped).
inline constexpr std::uint64_t kPlanCountFactor = 10;

//! Thrown by Cases::push_back when counting stops (plan_program makes it a PresetError).
struct PlanTooLarge : std::length_error {
  std::uint64_t limit, counted;
  PlanTooLarge(std::uint64_t limit, std::uint64_t counted);
};

//! Every part of a benchmark's name passes this grammar (results/README.md, "Benchmark
//! names"): non-empty printable ASCII without blanks, '/' or ':' (they separate the parts, a
//! newline would split a name in `plan`'s output, a NUL cut it). "" when `part` is one, else
//! the problem.
std::string name_part_problem(std::string_view part);

//! An axis of a program and the values it has; no values: whatever the preset gives within the
//! program's limits (sizes, counts).
struct Axis {
  std::string name;
  std::vector<std::string> values;
  //! `value` if the program has it, else a PresetError at `key` (inside `where`):
  //! "unknown <name> '<value>' (expected one of: <values>)".
  const std::string& check(const Preset& preset, const std::string& value, std::string_view key,
                           std::string_view where = {}) const;
};

//! Plans one program's cases from its object `j` of the preset (found under the key `where`).
using ProgramPlanner = std::vector<PlannedCase> (*)(const Preset& preset, const nlohmann::json& j,
                                                   std::string_view where, const Overrides& overrides);

struct Program {
  std::string name;                   //!< its key in the suite's preset object
  std::vector<Axis> axes;             //!< in name order: the first three are the name's
                                      //!< <version>/<layout>/<precision> (inner: strategy, ...)
  std::vector<std::string> counters;  //!< the ones it adds to the convention's
  ProgramPlanner plan;
  //! The axis named `axis` (a program's planner checks preset values against it).
  const Axis& axis(std::string_view axis) const;
};

//! How a suite's preset section holds its programs.
enum class Section {
  programs,     //!< an object of programs by name (kofler, inner)
  one_program,  //!< the section is its one program's object (idw, kriging)
};

//! One program's benchmarks from its object `j` of the preset (found under `where`), named as
//! in `suite`: what plan_suite does for each program (and tests for one).
//! Every name part passes name_part_problem, else a PresetError at the line of the preset key
//! it came from; more than the plan limit (Cases) is a PresetError at the program's line.
//! `first`: the suite's first program (its count of planned cases starts again).
std::vector<PlannedBenchmark> plan_program(const std::string& suite, const Program& program, const Preset& preset,
                                           const nlohmann::json& j, std::string_view where, const Overrides& overrides,
                                           bool first = true);

//! A suite's programs, in run order, and how its preset section holds them.
struct SuitePrograms {
  Section section = Section::programs;
  //! What an unknown key of an object of programs is called in its error: "Kofler program"
  //! gives "unknown Kofler program 'x' (expected one of: nbody, ...)".
  std::string noun;
  std::vector<Program> programs;
};

//! The one planner: `suite`'s section of the preset expanded over its programs (in the suite's
//! order, not the file's), each case named (benchmark_name, with the suite's and the program's
//! names) and run by run_case.
std::vector<PlannedBenchmark> plan_suite(const std::string& suite, const SuitePrograms& programs, const Preset& preset,
                                         const Overrides& overrides);

}  // namespace lb::harness
