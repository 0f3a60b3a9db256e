#include "lb/harness/plan.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lb/harness/suite.hpp"

namespace lb::harness {

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
                                           const nlohmann::json& j, std::string_view where, const Overrides& overrides) {
  std::vector<PlannedBenchmark> plan;
  for (PlannedCase& c : program.plan(preset, j, where, overrides)) {
    c.id.suite = suite;
    c.id.program = program.name;
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
  for (const Program& program : s.programs)  // run order is the suite's, not the file's
    if (section.contains(program.name)) {
      auto part = plan_program(suite, program, preset, section[program.name], program.name, overrides);
      plan.insert(plan.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    }
  // A section of programs that plans nothing (none named, or --precision leaves none) is the
  // user's mistake, said as such, not a run of nothing.
  if (plan.empty()) throw preset.no_benchmark(suite, overrides.precisions);
  return plan;
}

}  // namespace lb::harness
