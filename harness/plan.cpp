#include "lb/harness/plan.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lb/datasets/text.hpp"
#include "lb/harness/suite.hpp"

namespace lb::harness {

namespace {

//! The cases planned so far for the suite being planned (plan_suite, plan_program reset it).
thread_local std::uint64_t planned_cases = 0;

//! The offending piece of `id` (its field or parameter, and its value) or nullopt.
std::optional<std::pair<std::string, std::string>> bad_name_part(const BenchmarkId& id) {
  const std::pair<const char*, const std::string*> fields[] = {
      {"version", &id.version}, {"layout", &id.layout}, {"precision", &id.precision}};
  for (const auto& [field, value] : fields)
    if (!name_part_problem(*value).empty()) return std::pair{std::string(field), *value};
  for (const auto& [key, value] : id.params) {
    if (!name_part_problem(key).empty()) return std::pair{key, key};
    if (!name_part_problem(value).empty()) return std::pair{key, value};
  }
  return std::nullopt;
}

//! The preset key a name part came from, to point the error at its line: the part's own key
//! or its plural (a parameter "partition" from "partitions"), else the string as written in
//! the file, else the program's own key.
std::string key_in_preset(const Preset& preset, const std::string& part, const std::string& value,
                          std::string_view where) {
  for (const std::string& key : {part, part + "s"})
    if (preset.mentions('"' + key + '"')) return key;
  const std::string written = nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (preset.mentions(written)) return written.substr(1, written.size() - 2);
  return std::string(where);
}

//! The count past which a plan is no longer counted: kPlanCountFactor x the limit (saturating).
std::uint64_t count_bound(std::uint64_t limit) {
  return limit > std::numeric_limits<std::uint64_t>::max() / kPlanCountFactor ? std::numeric_limits<std::uint64_t>::max()
                                                                             : limit * kPlanCountFactor;
}

//! The error of a suite that planned `planned` benchmarks, more than `limit`.
PresetError plan_too_large(const Preset& preset, std::string_view key, std::string_view within,
                           const std::string& suite, std::uint64_t planned, std::uint64_t limit) {
  return preset.error_at(key,
                         fmt::format("suite {} plans {} benchmarks, more than the limit of {}; plan fewer, or set {} to "
                                     "raise the limit",
                                     suite, planned, limit, datasets::text::kMaxPlanEnv),
                         within);
}

}  // namespace

void Cases::push_back(PlannedCase c) {
  const std::uint64_t limit = datasets::text::max_plan_benchmarks();
  if (++planned_cases <= limit) return std::vector<PlannedCase>::push_back(std::move(c));
  if (planned_cases > count_bound(limit)) throw PlanTooLarge(limit, planned_cases - 1);
  // Past the limit: counted, not held.
}

PlanTooLarge::PlanTooLarge(std::uint64_t limit, std::uint64_t counted)
    : std::length_error(fmt::format("more than {} benchmarks", counted)), limit(limit), counted(counted) {}

std::string name_part_problem(std::string_view part) {
  if (part.empty()) return "it is empty";
  for (const char ch : part) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f) return fmt::format("it holds {}", c == ' ' ? "a blank" : fmt::format("the byte \\x{:02x}", c));
    if (c == '/' || c == ':') return fmt::format("it holds '{}', which separates a name's parts", ch);
  }
  return {};
}

std::string benchmark_name(const BenchmarkId& id) {
  std::string name = fmt::format("{}/{}/{}/{}/{}", id.suite, id.program, id.version, id.layout, id.precision);
  for (const auto& [key, value] : id.params) name += fmt::format("/{}:{}", key, value);
  return name;
}

const std::string& Axis::check(const Preset& preset, const std::string& value, std::string_view key,
                               std::string_view where) const {
  if (std::find(values.begin(), values.end(), value) == values.end())
    throw preset.error_at(key, fmt::format("unknown {} '{}' (expected one of: {})", name, value, fmt::join(values, ", ")),
                          where);
  return value;
}

const Axis& Program::axis(std::string_view axis) const {
  const auto it = std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == axis; });
  if (it == axes.end()) throw std::logic_error(fmt::format("program {} declares no axis '{}'", name, axis));
  return *it;
}

std::vector<PlannedBenchmark> plan_program(const std::string& suite, const Program& program, const Preset& preset,
                                           const nlohmann::json& j, std::string_view where, const Overrides& overrides,
                                           bool first) {
  if (first) planned_cases = 0;
  std::vector<PlannedCase> cases;
  try {
    cases = program.plan(preset, j, where, overrides);
  } catch (const PlanTooLarge& e) {
    throw preset.error_at(where,
                          fmt::format("suite {} plans more than {} benchmarks (counting stopped at program {}), more "
                                      "than the limit of {}; plan fewer, or set {} to raise the limit",
                                      suite, e.counted, program.name, e.limit, datasets::text::kMaxPlanEnv),
                          suite);
  }
  // Planned alone, its count is the plan's (within a suite, plan_suite judges the total).
  if (const std::uint64_t limit = datasets::text::max_plan_benchmarks(); first && planned_cases > limit)
    throw plan_too_large(preset, where, suite, suite, planned_cases, limit);
  std::vector<PlannedBenchmark> plan;
  for (PlannedCase& c : cases) {
    c.id.suite = suite;
    c.id.program = program.name;
    // Every string that becomes part of a name (a network, a partition, ...) is checked once,
    // here: a newline would make `plan` print two names, a blank or ':' an ambiguous one.
    if (const auto bad = bad_name_part(c.id))
      throw preset.error_at(
          key_in_preset(preset, bad->first, bad->second, where),
          fmt::format("{} {} cannot be part of a benchmark name: {} (use letters, digits and . _ - + | = , ...)",
                      bad->first, datasets::text::quote(bad->second), name_part_problem(bad->second)),
          where);
    std::string name = c.name();
    const int repetitions = c.run.repetitions;
    const double min_time_s = c.run.min_time_s;
    const Where where = c.run.where;
    plan.push_back({name, [name, pc = std::move(c.run)](benchmark::State& st) { run_case(st, name, pc); },
                    repetitions, min_time_s, where});
  }
  return plan;
}

std::vector<PlannedBenchmark> plan_suite(const std::string& suite, const SuitePrograms& s, const Preset& preset,
                                         const Overrides& overrides) {
  if (!preset.suites.contains(suite)) throw preset.error_at("suites", fmt::format("this preset has no '{}' suite", suite));
  const nlohmann::json& section = preset.suites[suite];
  if (s.section == Section::one_program) return plan_program(suite, s.programs.at(0), preset, section, suite, overrides);
  if (!section.is_object()) throw preset.error_at(suite, fmt::format("'{}' must be an object of programs", suite));
  Axis names{s.noun, {}};
  for (const Program& p : s.programs) names.values.push_back(p.name);
  for (const auto& item : section.items()) names.check(preset, item.key(), item.key(), suite);
  std::vector<PlannedBenchmark> plan;
  planned_cases = 0;
  for (const Program& program : s.programs)  // run order is the suite's, not the file's
    if (section.contains(program.name)) {
      auto part = plan_program(suite, program, preset, section[program.name], program.name, overrides, false);
      plan.insert(plan.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    }
  if (const std::uint64_t limit = datasets::text::max_plan_benchmarks(); planned_cases > limit)
    throw plan_too_large(preset, suite, {}, suite, planned_cases, limit);
  // A section of programs that plans nothing (none named, or --precision leaves none) is the
  // user's mistake, said as such, not a run of nothing.
  if (plan.empty()) throw preset.no_benchmark(suite, overrides.precisions);
  return plan;
}

}  // namespace lb::harness
