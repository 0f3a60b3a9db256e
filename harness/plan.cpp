#include "lb/harness/plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <set>

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

std::string_view to_string(AxisType type) {
  switch (type) {
    case AxisType::count:
      return "count";
    case AxisType::integer:
      return "integer";
    case AxisType::number:
      return "number";
    case AxisType::text:
      break;
  }
  return "text";
}

void Point::set(const std::string& axis, AxisValue value) {
  for (auto& [name, v] : values_)
    if (name == axis) {
      v = std::move(value);
      return;
    }
  values_.emplace_back(axis, std::move(value));
}

const AxisValue* Point::find(std::string_view axis) const {
  for (const auto& [name, v] : values_)
    if (name == axis) return &v;
  return nullptr;
}

const AxisValue& Point::at(std::string_view axis) const {
  if (const AxisValue* v = find(axis)) return *v;
  throw std::logic_error(fmt::format("the point has no value on axis '{}'", axis));
}

Loop over(std::string axis, std::vector<Loop> nested) { return {std::move(axis), std::move(nested), {}}; }
Loop over(std::string axis, Steps steps, std::vector<Loop> nested) {
  return {std::move(axis), std::move(nested), std::move(steps)};
}

const Axis* Program::find_axis(std::string_view axis) const {
  const auto it = std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.name == axis; });
  return it == axes.end() ? nullptr : &*it;
}

const Axis& Program::axis(std::string_view axis) const {
  if (const Axis* a = find_axis(axis)) return *a;
  throw std::logic_error(fmt::format("program {} declares no axis '{}'", name, axis));
}

const Axis* Program::axis_of(Shorthand shorthand) const {
  const auto it = std::find_if(axes.begin(), axes.end(), [&](const Axis& a) { return a.shorthand == shorthand; });
  return it == axes.end() ? nullptr : &*it;
}

namespace {

//! An AxisValue's value as JSON (what the preset would hold).
nlohmann::json json_of(const Axis& axis, const AxisValue& v) {
  switch (axis.type) {
    case AxisType::count:
      return std::any_cast<std::size_t>(v.value);
    case AxisType::integer:
      return std::any_cast<std::int64_t>(v.value);
    case AxisType::number:
      return std::any_cast<double>(v.value);
    case AxisType::text:
      break;
  }
  return std::any_cast<std::string>(v.value);
}

//! Whether a scalar JSON value is of the axis's type (a count: a positive integer).
bool of_type(AxisType type, const nlohmann::json& v) {
  switch (type) {
    case AxisType::count:
      return v.is_number_unsigned() && v.get<std::uint64_t>() >= 1;
    case AxisType::integer:
      return v.is_number_integer();
    case AxisType::number:
      return v.is_number();
    case AxisType::text:
      break;
  }
  return v.is_string();
}

std::string_view type_words(AxisType type) {
  switch (type) {
    case AxisType::count:
      return "a positive integer";
    case AxisType::integer:
      return "an integer";
    case AxisType::number:
      return "a number";
    case AxisType::text:
      break;
  }
  return "a string";
}

//! The command line's `text` as the axis's type, or nullopt.
std::optional<nlohmann::json> parse_as(AxisType type, const std::string& text) {
  switch (type) {
    case AxisType::count: {
      std::size_t n = 0;
      if (datasets::text::parse_size(text, n) && n >= 1) return nlohmann::json(n);
      return std::nullopt;
    }
    case AxisType::integer: {
      std::int64_t n = 0;
      const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (!text.empty() && ec == std::errc{} && ptr == text.data() + text.size()) return nlohmann::json(n);
      return std::nullopt;
    }
    case AxisType::number: {
      double x = 0;
      if (datasets::text::parse_double(text, x) && std::isfinite(x)) return nlohmann::json(x);
      return std::nullopt;
    }
    case AxisType::text:
      break;
  }
  return nlohmann::json(text);
}

//! What the command line sets on one axis of a program: the option as the user wrote it
//! ("--sizes", "--axis tile"), the axis, and the values as typed.
struct Request {
  std::string option;
  const Axis* axis;
  std::vector<std::string> texts;
};

//! The command line's requests of `program`: --axis in the order given, then --sizes and
//! --precision. An axis the program lacks (or a shorthand that sets none of its axes) is one
//! error listing its axes; an axis set twice, one naming both.
std::vector<Request> requests(const Program& program, const Overrides& overrides) {
  std::vector<std::string> names;
  for (const Axis& a : program.axes) names.push_back(a.name);
  const std::string listed = fmt::format("{} has the axes {}", program.name, fmt::join(names, ", "));
  std::vector<Request> out;
  auto add = [&](std::string option, const Axis* axis, std::vector<std::string> texts) {
    for (const Request& r : out)
      if (r.axis == axis)
        throw std::invalid_argument(
            fmt::format("{} and {} both set {}'s axis '{}': give it once", r.option, option, program.name, axis->name));
    out.push_back({std::move(option), axis, std::move(texts)});
  };
  for (const auto& [name, texts] : overrides.axes) {
    const Axis* axis = program.find_axis(name);
    if (axis == nullptr)
      throw std::invalid_argument(fmt::format("--axis {}: {} has no axis '{}' ({})", name, program.name, name, listed));
    add("--axis " + name, axis, texts);
  }
  const std::pair<const char*, Shorthand> shorthands[] = {{"--sizes", Shorthand::sizes},
                                                          {"--precision", Shorthand::precision}};
  for (const auto& [option, shorthand] : shorthands) {
    std::vector<std::string> texts;
    if (shorthand == Shorthand::sizes)
      for (std::size_t n : overrides.sizes) texts.push_back(std::to_string(n));
    else
      texts = overrides.precisions;
    if (texts.empty()) continue;
    const Axis* axis = program.axis_of(shorthand);
    if (axis == nullptr)
      throw std::invalid_argument(fmt::format("{}: {} has no axis that {} sets ({}; give --axis NAME=...)", option,
                                              program.name, option, listed));
    add(option, axis, std::move(texts));
  }
  return out;
}

//! The values a request gives the program's axis: each of the axis's type (else an error naming
//! the option), within its limits (an open axis: else an error naming the option and the
//! program), given once; those an enumerated axis lacks are left out.
std::vector<AxisValue> requested_values(const Program& program, const Request& r) {
  const Axis& axis = *r.axis;
  std::vector<AxisValue> out;
  std::set<std::string> seen;
  for (const std::string& text : r.texts) {
    const auto v = parse_as(axis.type, text);
    if (!v)
      throw std::invalid_argument(
          fmt::format("{}: {} is not {}", r.option, datasets::text::quote(text), type_words(axis.type)));
    AxisValue value = Reader::value_of(axis, *v);
    if (!seen.insert(value.text).second)
      throw std::invalid_argument(fmt::format("{}: {} is given twice; give each value once", r.option, value.text));
    if (!axis.values.empty()) {
      if (std::find(axis.values.begin(), axis.values.end(), value.text) == axis.values.end()) continue;
    } else if (axis.limits) {
      if (const std::string problem = axis.limits(*v); !problem.empty())
        throw std::invalid_argument(fmt::format("{}: {} (for {})", r.option, problem, program.name));
    }
    out.push_back(std::move(value));
  }
  return out;
}

//! The top-level preset keys of `program`'s object: its axes' (the object of a key "a.b": a),
//! then its settings, each once.
std::vector<std::string> object_keys(const Program& program) {
  std::vector<std::string> keys;
  auto add = [&](const std::string& k) {
    if (!k.empty() && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  for (const Axis& a : program.axes) add(a.key.substr(0, a.key.find('.')));
  for (const std::string& k : program.settings) add(k);
  return keys;
}

//! The name of a point: the program's first three named axes are its version, layout and
//! precision (each point has them), the other named ones its parameters where it has them
//! (and the value is not the axis's `unnamed` one).
BenchmarkId id_of(const Program& program, const Point& point) {
  BenchmarkId id;
  std::string* first[] = {&id.version, &id.layout, &id.precision};
  std::size_t k = 0;
  for (const Axis& a : program.axes) {
    if (!a.named) continue;
    if (k < 3) {
      *first[k++] = point.text(a.name);
      continue;
    }
    if (const AxisValue* v = point.find(a.name); v && (a.unnamed.empty() || v->text != a.unnamed))
      id.params.emplace_back(a.name, v->text);
  }
  return id;
}

//! Expands `loops` from `at` into `cases`: each step the command line allows, each leaf the
//! constraint admits, each name once.
void expand(const Program& program, const Expansion& e, const std::vector<Loop>& loops, const Point& at,
            const Reader& read, Cases& cases, std::set<std::string>& names) {
  for (const Loop& loop : loops) {
    for (const Step& step : loop.steps ? loop.steps(at, read) : read.steps(loop.axis)) {
      if (!std::all_of(step.begin(), step.end(), [&](const auto& s) { return read.allows(s.first, s.second.text); }))
        continue;
      Point next = at;
      for (const auto& [axis, value] : step) next.set(axis, value);
      if (!loop.nested.empty()) {
        expand(program, e, loop.nested, next, read, cases, names);
        continue;
      }
      if (e.admits && !e.admits(next)) continue;
      BenchmarkId id = id_of(program, next);
      if (!names.insert(benchmark_name(id)).second) continue;  // two loops' point, planned once
      cases.push_back({std::move(id), e.make(next)});
    }
  }
}

}  // namespace

namespace {

//! Where `axis`'s key is in `object`: the object holding it (null: a key "a.b" whose a is not an
//! object there) and the key's own name.
template <class Json>
std::pair<Json*, std::string> key_in(Json& object, const Axis& axis) {
  const std::size_t dot = axis.key.find('.');
  if (dot == std::string::npos) return {&object, axis.key};
  const std::string parent = axis.key.substr(0, dot);
  Json* holder = object.contains(parent) && object[parent].is_object() ? &object[parent] : nullptr;
  return {holder, axis.key.substr(dot + 1)};
}

}  // namespace

Reader::Reader(const Program& program, const Preset& preset, nlohmann::json object, std::string_view where,
               const Overrides& overrides, std::vector<std::pair<std::string, std::vector<AxisValue>>> given)
    : program_(program), preset_(preset), object_(std::move(object)), where_(where), overrides_(overrides) {
  // The object holds what the command line gives, for a program that reads a key itself (a
  // scalar key only where one value keeps it a scalar).
  auto substitute = [&](const Axis& axis, const std::vector<AxisValue>& values) {
    const auto [holder, key] = key_in(object_, axis);
    if (axis.key.empty() || holder == nullptr || values.empty() || (axis.scalar && values.size() != 1)) return;
    nlohmann::json list = nlohmann::json::array();
    for (const AxisValue& v : values) list.push_back(json_of(axis, v));
    (*holder)[key] = axis.scalar ? list[0] : list;
  };
  for (auto& [name, values] : given) {
    const Axis& axis = program.axis(name);
    if (axis.values.empty()) {  // an open axis: its values are the command line's
      substitute(axis, values);
      read_.emplace(name, Read{values});
    }
    given_.emplace(name, std::move(values));
  }
  for (const auto& [name, values] : given_) {
    const Axis& axis = program.axis(name);
    if (axis.values.empty() || axis.key.empty()) continue;
    // An enumerated axis the preset lists: its list narrowed to the values given (none left:
    // the key as it is, every point on it then left out by allows).
    read(name);
    Read& r = read_.find(name)->second;
    std::erase_if(r.values, [&](const AxisValue& v) { return !allows(name, v.text); });
    if (!r.values.empty()) substitute(axis, r.values);
  }
}

AxisValue Reader::value_of(const Axis& axis, const nlohmann::json& v) {
  switch (axis.type) {
    case AxisType::count: {
      const auto n = v.get<std::size_t>();
      return {std::to_string(n), n};
    }
    case AxisType::integer: {
      const auto n = v.get<std::int64_t>();
      return {std::to_string(n), n};
    }
    case AxisType::number: {
      const auto x = v.get<double>();
      return {fmt::format("{:g}", x), x};
    }
    case AxisType::text:
      break;
  }
  auto s = v.get<std::string>();
  return {s, s};
}

const Reader::Read& Reader::read(std::string_view name) const {
  if (const auto it = read_.find(name); it != read_.end()) return it->second;
  const Axis& axis = program_.axis(name);
  Read r;
  if (axis.key.empty()) {
    for (const std::string& v : axis.values) r.values.push_back(value_of(axis, *parse_as(axis.type, v)));
    return read_.emplace(std::string(name), std::move(r)).first->second;
  }
  // The object holding the key: the program's, or for "a.b" its object a (absent: no values).
  const std::size_t dot = axis.key.find('.');
  const auto [holder, key] = key_in(object_, axis);
  const std::string within = dot == std::string::npos ? std::string(where_) : axis.key.substr(0, dot);
  auto problem_of = [&](const nlohmann::json& v) {
    if (axis.limits) return axis.limits(v);
    const std::string text = value_of(axis, v).text;
    if (axis.values.empty() || std::find(axis.values.begin(), axis.values.end(), text) != axis.values.end())
      return std::string{};
    return fmt::format("unknown {} '{}' (expected one of: {})", axis.name, text, fmt::join(axis.values, ", "));
  };
  if (holder == nullptr || !holder->contains(key)) {
    if (holder != nullptr && axis.scalar && !axis.fallback.is_null()) {
      r.values.push_back(value_of(axis, axis.fallback));
    } else if (holder != nullptr && axis.required) {
      std::string problem = axis.scalar && axis.limits ? axis.limits(nlohmann::json()) : "";
      if (problem.empty()) problem = fmt::format("'{}' needs '{}'", within, key);
      throw preset_.error_at(within, problem);
    }
    return read_.emplace(std::string(name), std::move(r)).first->second;
  }
  const nlohmann::json& v = (*holder)[key];
  if (!axis.word.empty() && v.is_string() && v.get<std::string>() == axis.word)  // the program reads it
    return read_.emplace(std::string(name), std::move(r)).first->second;
  if (axis.scalar) {
    std::string problem = axis.limits ? axis.limits(v) : "";
    if (problem.empty() && !of_type(axis.type, v)) problem = fmt::format("'{}' must be {}", key, type_words(axis.type));
    if (problem.empty()) problem = problem_of(v);
    if (!problem.empty()) throw preset_.error_at(key, problem, within);
    r.values.push_back(value_of(axis, v));
  } else {
    nlohmann::json list;
    switch (axis.type) {
      case AxisType::count:
        list = preset_.list_at<std::size_t>(*holder, key.c_str(), within);
        break;
      case AxisType::integer:
        list = preset_.list_at<std::int64_t>(*holder, key.c_str(), within);
        break;
      case AxisType::number:
        list = preset_.list_at<double>(*holder, key.c_str(), within);
        break;
      case AxisType::text:
        list = preset_.list_at<std::string>(*holder, key.c_str(), within);
        break;
    }
    for (const nlohmann::json& e : list) {
      if (const std::string problem = problem_of(e); !problem.empty()) throw preset_.error_at(key, problem, within);
      r.values.push_back(value_of(axis, e));
    }
  }
  return read_.emplace(std::string(name), std::move(r)).first->second;
}

const std::vector<AxisValue>& Reader::values(std::string_view axis) const { return read(axis).values; }

std::vector<Step> Reader::steps(std::string_view axis) const {
  std::vector<Step> out;
  for (const AxisValue& v : values(axis)) out.push_back({{std::string(axis), v}});
  return out;
}

bool Reader::allows(std::string_view axis, std::string_view text) const {
  const auto it = given_.find(axis);
  if (it == given_.end()) return true;
  return std::any_of(it->second.begin(), it->second.end(), [&](const AxisValue& a) { return a.text == text; });
}

std::vector<PlannedCase> plan_cases(const Program& program, const Preset& preset, const nlohmann::json& j,
                                    std::string_view where, const Overrides& overrides) {
  preset.check_keys(j, where, object_keys(program));
  std::vector<std::pair<std::string, std::vector<AxisValue>>> given;
  for (const Request& r : requests(program, overrides)) given.emplace_back(r.axis->name, requested_values(program, r));
  const Reader read(program, preset, j, where, overrides, std::move(given));
  for (const Axis& a : program.axes)  // every key checked at its line, used or not
    if (!a.key.empty()) read.values(a.name);
  const Expansion e = program.expand(read);
  Cases cases;  // counted against the plan limit
  std::set<std::string> names;
  expand(program, e, e.loops, Point{}, read, cases, names);
  return std::vector<PlannedCase>(std::move(cases));
}

std::vector<PlannedBenchmark> plan_program(const std::string& suite, const Program& program, const Preset& preset,
                                           const nlohmann::json& j, std::string_view where, const Overrides& overrides,
                                           bool first) {
  if (first) planned_cases = 0;
  std::vector<PlannedCase> cases;
  try {
    cases = plan_cases(program, preset, j, where, overrides);
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

namespace {

//! The command line's overrides as a user types them, for the error of a plan of nothing.
std::string overrides_text(const Overrides& o) {
  std::vector<std::string> parts;
  if (!o.sizes.empty()) parts.push_back(fmt::format("--sizes {}", fmt::join(o.sizes, ",")));
  if (!o.precisions.empty()) parts.push_back(fmt::format("--precision {}", fmt::join(o.precisions, ",")));
  for (const auto& [axis, values] : o.axes) parts.push_back(fmt::format("--axis {}={}", axis, fmt::join(values, ",")));
  return fmt::format("{}", fmt::join(parts, " "));
}

//! Every program the section names can take what the command line sets (else requests'
//! error), and every value it gives an enumerated axis is one some program has: else one error
//! naming the values they have.
void check_requests(const std::string& suite, const std::vector<const Program*>& programs, const Overrides& overrides) {
  std::vector<std::vector<Request>> all;
  for (const Program* p : programs) all.push_back(requests(*p, overrides));
  for (std::size_t k = 0; !all.empty() && k < all.front().size(); ++k) {
    std::vector<std::string> known;
    bool enumerated = true;
    for (const auto& r : all) {
      enumerated = enumerated && !r[k].axis->values.empty();
      for (const std::string& v : r[k].axis->values)
        if (std::find(known.begin(), known.end(), v) == known.end()) known.push_back(v);
    }
    if (!enumerated) continue;
    const Request& r = all.front()[k];
    for (const std::string& text : r.texts) {
      const auto v = parse_as(r.axis->type, text);
      const std::string canonical = v ? Reader::value_of(*r.axis, *v).text : text;
      if (std::find(known.begin(), known.end(), canonical) == known.end())
        throw std::invalid_argument(fmt::format("{}: unknown {} '{}' (suite {}'s programs have: {})", r.option,
                                                r.axis->name, text, suite, fmt::join(known, ", ")));
    }
  }
}

}  // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> parse_axis_options(
    const std::vector<std::string>& texts) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const std::string& text : texts) {
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument(
          fmt::format("--axis {} is not NAME=VALUES (e.g. --axis layout=aos,soa)", datasets::text::quote(text)));
    const std::string name = text.substr(0, eq), list = text.substr(eq + 1);
    if (std::any_of(out.begin(), out.end(), [&](const auto& a) { return a.first == name; }))
      throw std::invalid_argument(
          fmt::format("--axis {} is given twice; give an axis once, its values comma-separated", name));
    if (list.empty()) throw std::invalid_argument(fmt::format("--axis {}: an empty list of values", name));
    std::vector<std::string> values;
    for (std::size_t from = 0;;) {
      const std::size_t comma = std::min(list.find(',', from), list.size());
      std::string value = list.substr(from, comma - from);
      if (value.empty())
        throw std::invalid_argument(fmt::format("--axis {}: an empty value in {}", name, datasets::text::quote(list)));
      if (std::find(values.begin(), values.end(), value) != values.end())
        throw std::invalid_argument(
            fmt::format("--axis {}: {} is given twice; give each value once", name, datasets::text::quote(value)));
      values.push_back(std::move(value));
      if (comma == list.size()) break;
      from = comma + 1;
    }
    out.emplace_back(name, std::move(values));
  }
  return out;
}

std::vector<PlannedBenchmark> plan_suite(const std::string& suite, const SuitePrograms& s, const Preset& preset,
                                         const Overrides& overrides) {
  if (!preset.suites.contains(suite)) throw preset.error_at("suites", fmt::format("this preset has no '{}' suite", suite));
  const nlohmann::json& section = preset.suites[suite];
  std::vector<const Program*> named;
  if (s.section == Section::one_program) {
    named.push_back(&s.programs.at(0));
  } else {
    if (!section.is_object()) throw preset.error_at(suite, fmt::format("'{}' must be an object of programs", suite));
    Axis names{s.noun, {}};
    for (const Program& p : s.programs) names.values.push_back(p.name);
    for (const auto& item : section.items()) names.check(preset, item.key(), item.key(), suite);
    for (const Program& program : s.programs)  // run order is the suite's, not the file's
      if (section.contains(program.name)) named.push_back(&program);
  }
  check_requests(suite, named, overrides);
  std::vector<PlannedBenchmark> plan;
  if (s.section == Section::one_program) {
    plan = plan_program(suite, *named.front(), preset, section, suite, overrides);
  } else {
    planned_cases = 0;
    for (const Program* program : named) {
      auto part = plan_program(suite, *program, preset, section[program->name], program->name, overrides, false);
      plan.insert(plan.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
    }
    if (const std::uint64_t limit = datasets::text::max_plan_benchmarks(); planned_cases > limit)
      throw plan_too_large(preset, suite, {}, suite, planned_cases, limit);
  }
  // A section that plans nothing (no program named, or the command line leaves none) is the
  // user's mistake, said as such, not a run of nothing.
  if (plan.empty()) {
    std::vector<std::string> programs;
    for (const Program* p : named) programs.push_back(p->name);
    throw preset.no_benchmark(suite, programs, overrides_text(overrides));
  }
  return plan;
}

}  // namespace lb::harness
