//! Springer, Sun & Masuhara 2018 (inner array inlining): what the suite's programs share, their
//! axes and inline counts. Each program lives in benches/inner/ with its axes and expansion.

#include "inner/suite.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lb::benches::inner {

std::vector<Axis> inner_axes(std::size_t max_inline, bool inline_required, std::vector<Axis> more,
                             std::vector<std::string> layout_names) {
  Axis strategies{.name = "strategy", .key = "strategies", .limits = parsed_by(lb::inner::parse_inner_strategy)};
  Axis layouts{.name = "layout", .values = std::move(layout_names), .key = "layouts",
               .limits = parsed_by(lb::inner::parse_inner_layout)};
  for (InnerStrategy s : {InnerStrategy::none, InnerStrategy::partial, InnerStrategy::full, InnerStrategy::object})
    strategies.values.emplace_back(lb::inner::to_string(s));
  std::vector<Axis> axes{strategies,
                         layouts,
                         {.name = "precision", .values = {"int"}, .shorthand = Shorthand::precision},
                         {.name = "inline",
                          .type = AxisType::integer,
                          .key = "inline_sizes",
                          .limits =
                              [max_inline](const nlohmann::json& v) {
                                const auto n = v.get<std::int64_t>();
                                return n < 0 || n > static_cast<std::int64_t>(max_inline)
                                           ? fmt::format("inline sizes must lie in [0, {}]; got {}", max_inline, n)
                                           : "";
                              },
                          .required = inline_required}};
  axes.insert(axes.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  return axes;
}

std::vector<std::size_t> inline_counts(InnerStrategy s, const std::vector<std::size_t>& inline_sizes, std::size_t max) {
  if (s == InnerStrategy::none) return {0};
  if (s != InnerStrategy::partial) return {max};
  std::vector<std::size_t> out;
  std::copy_if(inline_sizes.begin(), inline_sizes.end(), std::back_inserter(out), [&](std::size_t n) { return n <= max; });
  return out;
}

std::vector<Step> inline_steps(const Point& at, const std::vector<AxisValue>& inline_sizes, std::size_t max) {
  std::vector<std::size_t> sizes;
  for (const AxisValue& v : inline_sizes)
    sizes.push_back(static_cast<std::size_t>(std::any_cast<std::int64_t>(v.value)));
  std::vector<Step> out;
  for (std::size_t n : inline_counts(strategy_of(at), sizes, max))
    out.push_back({{"inline", {std::to_string(n), static_cast<std::int64_t>(n)}}});
  return out;
}

InnerStrategy strategy_of(const Point& at) { return lb::inner::parse_inner_strategy(at.text("strategy")); }
InnerLayout layout_of(const Point& at) { return lb::inner::parse_inner_layout(at.text("layout")); }

}  // namespace lb::benches::inner
