#pragma once
//! Programs declare their axes; one planner reads a suite's preset section through them, applies
//! the command line's overrides and expands each program's loops; one function names every
//! benchmark from its place on those axes.
//!
//! A program (nbody, bfs, IDW's Shepard interpolation, ...) states once: its axes (name, type, the
//! preset key each reads, its limits, whether --sizes or --precision sets it; for the registry,
//! `layoutbench suites --json`, too), the counters it adds to the convention's
//! (lb/harness/program.hpp), its other preset keys, and its expansion: the order of its loops
//! over the axes (a sub-axis's values made from the point so far), any constraint a point must
//! meet, and the case of each point. plan_cases does the rest for every program, plan_suite for
//! every suite: finds the section in the preset, checks its program names, plans them in the
//! suite's order, names each case with benchmark_name and runs it with run_case.

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

//! What an axis's values are.
enum class AxisType {
  count,    //!< positive integers (sizes, object counts, tiles)
  integer,  //!< integers (inline sizes from 0, experiment numbers)
  number,   //!< real numbers (IDW's powers; named as {:g} writes them)
  text,     //!< strings; one of `values` where the axis lists them
};
//! The type as the registry writes it ("count", "integer", "number", "text").
std::string_view to_string(AxisType type);

//! The command line's shorthand that sets an axis besides `--axis <name>=...`.
enum class Shorthand { none, sizes, precision };

//! An axis of a program: what its values are, where the preset gives them and what the command
//! line may set. One planner (plan_cases) reads every axis that has a `key` from the program's
//! preset object, applies `--sizes`, `--precision` and `--axis` to them and expands the program's
//! loops over them. The name's first three named axes are its <version>/<layout>/<precision>, the
//! other named ones its parameters, in this order, where a case has a value on them other than
//! the axis's `unnamed` one.
struct Axis {
  std::string name;
  //! The values it has (a text axis or an enumerated count); empty: whatever the preset or the
  //! command line gives within `limits`, or what the program makes.
  std::vector<std::string> values{};
  AxisType type = AxisType::text;
  //! The key of the program's preset object that lists its values ("a.b": key b of object a,
  //! read only where a is there); empty: the program gives them (fixed `values`, or made from
  //! other axes and its settings by its loops).
  std::string key{};
  //! A preset value's problem ("" when it has none), beyond its type: the preset's error at the
  //! key's line, the command line's naming the option. A scalar key's is also asked for a value
  //! of the wrong type, and for a missing one (null), to word those errors itself.
  std::function<std::string(const nlohmann::json& value)> limits{};
  Shorthand shorthand = Shorthand::none;
  bool named = true;          //!< part of a benchmark's name
  bool scalar = false;        //!< the key holds one value, not a list (`--axis` may still give several)
  bool required = true;       //!< the key must be there (else: `fallback`, or no values)
  nlohmann::json fallback{};  //!< a scalar key's value where the object has none (IDW's block: 256)
  //! A string the key may hold instead of a list ("all" layouts, a "sweep" of tiles): no
  //! values; the program reads it from the object (Reader::object).
  std::string word{};
  //! A value names leave out, though the point has it (and `--axis` selects by it): the one
  //! every case had before the axis came (BFS's `per-level` search), so those names stay.
  std::string unnamed{};

  //! `value` if the axis has it, else a PresetError at `key` (inside `where`):
  //! "unknown <name> '<value>' (expected one of: <values>)".
  const std::string& check(const Preset& preset, const std::string& value, std::string_view key,
                           std::string_view where = {}) const;
};

//! A text axis's `limits` from a parser that throws std::invalid_argument: its message is the
//! value's problem ("" when it parses).
template <class Parse>
std::function<std::string(const nlohmann::json&)> parsed_by(Parse parse) {
  return [parse](const nlohmann::json& v) {
    try {
      parse(v.get<std::string>());
      return std::string{};
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
  };
}

//! One axis's value at a point: its text (in the name, and as --axis gives it) and the value
//! itself: std::size_t (count), std::int64_t (integer), double (number), std::string (text), or
//! what a program's step made (a Kofler layout choice).
struct AxisValue {
  std::string text;
  std::any value{};
};

//! A place on a program's axes: each axis the loops have set so far with its value.
class Point {
 public:
  bool has(std::string_view axis) const { return find(axis) != nullptr; }
  //! The axis's text; a std::logic_error where the point has none (the program's own mistake).
  const std::string& text(std::string_view axis) const { return at(axis).text; }
  template <class T>
  const T& get(std::string_view axis) const {
    const T* v = std::any_cast<T>(&at(axis).value);
    if (v == nullptr) throw std::logic_error("axis '" + std::string(axis) + "' holds another type");
    return *v;
  }
  void set(const std::string& axis, AxisValue value);
  const AxisValue* find(std::string_view axis) const;

 private:
  const AxisValue& at(std::string_view axis) const;
  std::vector<std::pair<std::string, AxisValue>> values_;
};

//! What one loop sets at a point for one of its values: the axis and its value, or several axes
//! at once (a Kofler layout choice with its tile or partition; an IDW CPU baseline's version
//! with its layout), or nothing (an axis that does not apply at this point).
using Step = std::vector<std::pair<std::string, AxisValue>>;

class Reader;

//! Where a loop's values come from at a point: the point so far and the program's axes as read.
using Steps = std::function<std::vector<Step>(const Point& at, const Reader& read)>;

//! One level of a program's expansion: for each value of `axis`, the loops `nested` one after
//! another (none: the point is a case). The values are the axis's own (Reader::steps: the
//! command line's, its key's or its fixed values) unless `steps` makes them: a sub-axis whose
//! values depend on the point (IDW's layouts of a precision, inline counts of a strategy).
//! Wherever they come from, a value the command line leaves out is skipped.
struct Loop {
  std::string axis;
  std::vector<Loop> nested{};  // not "inner": the generic layers name no suite (test_generic_layers.py)
  Steps steps{};
};
//! Loop{axis, nested}, and the same with its own steps.
Loop over(std::string axis, std::vector<Loop> nested = {});
Loop over(std::string axis, Steps steps, std::vector<Loop> nested = {});

//! What a program makes of its preset object for the planner: its loops (whose steps may use
//! what it read of its settings), the constraint a point must meet beyond its axes (IDW's
//! version_overrides; none: every point) and each point's case.
struct Expansion {
  std::vector<Loop> loops;
  std::function<ProgramCase(const Point&)> make;
  std::function<bool(const Point&)> admits{};
};

struct Program {
  std::string name;                   //!< its key in the suite's preset object
  std::vector<Axis> axes;             //!< in name order (see Axis)
  std::vector<std::string> counters;  //!< the ones it adds to the convention's
  //! Its preset keys that are no axis's (steps, seed, partitions, version_overrides, ...).
  std::vector<std::string> settings;
  //! Reads its settings through the reader (a PresetError at a mistake's line) and returns its
  //! expansion; called after its axes are read.
  std::function<Expansion(const Reader& read)> expand;
  //! The axis named `axis` (a std::logic_error where it has none) or nullptr (find_axis).
  const Axis& axis(std::string_view axis) const;
  const Axis* find_axis(std::string_view axis) const;
  //! The axis `shorthand` sets, or nullptr.
  const Axis* axis_of(Shorthand shorthand) const;
};

//! A program's preset object read through its axes, with the command line's overrides.
class Reader {
 public:
  Reader(const Program& program, const Preset& preset, nlohmann::json object, std::string_view where,
         const Overrides& overrides, std::vector<std::pair<std::string, std::vector<AxisValue>>> given);
  const Preset& preset() const { return preset_; }
  //! The program's object, each key of an axis the command line sets holding its values.
  const nlohmann::json& object() const { return object_; }
  std::string_view where() const { return where_; }
  const Overrides& overrides() const { return overrides_; }
  //! The axis's values: an open axis's the command line's where it gives them, else its key's
  //! (read and checked once: a PresetError at the key's line; an enumerated axis's narrowed to
  //! those the command line gives), else its fixed `values`; empty where the key holds its
  //! `word` or is absent.
  const std::vector<AxisValue>& values(std::string_view axis) const;
  //! The same as steps, one per value: a loop's values when it has no steps of its own.
  std::vector<Step> steps(std::string_view axis) const;
  //! Whether `text` is a value the command line lets `axis` take (any, where it gives none).
  bool allows(std::string_view axis, std::string_view text) const;
  //! An axis's value as its type names it: count, integer and number from a JSON number.
  static AxisValue value_of(const Axis& axis, const nlohmann::json& v);

 private:
  struct Read {
    std::vector<AxisValue> values;
  };
  const Read& read(std::string_view axis) const;
  const Program& program_;
  const Preset& preset_;
  nlohmann::json object_;
  std::string where_;
  const Overrides& overrides_;
  mutable std::map<std::string, Read, std::less<>> read_;             // each axis read once
  std::map<std::string, std::vector<AxisValue>, std::less<>> given_;  // the command line's values
};

//! How a suite's preset section holds its programs.
enum class Section {
  programs,     //!< an object of programs by name (kofler, inner)
  one_program,  //!< the section is its one program's object (idw, kriging)
};

//! One program's cases from its object `j` of the preset (found under `where`), not yet named
//! by suite and program: its keys checked; the command line's overrides applied (an axis the
//! program lacks: one error listing its axes; an open axis's values replace the preset's, each
//! within its limits; an enumerated axis's narrow it; every case keeps only values given on an
//! axis the command line sets, where it has a value on it); its keyed axes read; its loops
//! expanded in order; each point its constraint admits made into a case; a name planned by two
//! of its loops kept once.
std::vector<PlannedCase> plan_cases(const Program& program, const Preset& preset, const nlohmann::json& j,
                                    std::string_view where, const Overrides& overrides);

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
//! names) and run by run_case. A value of `--axis`, `--sizes` or `--precision` that no program
//! of the section has is one error naming the values they have; a section that plans nothing
//! is one error.
std::vector<PlannedBenchmark> plan_suite(const std::string& suite, const SuitePrograms& programs, const Preset& preset,
                                         const Overrides& overrides);

}  // namespace lb::harness
