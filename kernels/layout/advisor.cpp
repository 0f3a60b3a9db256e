#include "lb/layout/advisor.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "lb/layout/choice.hpp"

namespace lb::layout {

Advice advise(const std::vector<std::string>& names, const std::vector<std::size_t>& bytes,
              const std::vector<KernelTrace>& kernels, std::uint64_t epsilon, const DecisionTree* tree) {
  if (names.size() != bytes.size())
    throw std::invalid_argument(fmt::format("{} field names for {} field sizes", names.size(), bytes.size()));
  Advice a{names, bytes, epsilon, program_kdlg(bytes, kernels), {}, {}, {}, tree ? tree->source : ""};
  a.partition = kdlg_partition(a.kdlg, epsilon);
  for (const auto& fields : a.partition.clusters) {
    ClusterAdvice c{fields, 0, cluster_diameter(a.kdlg, fields), std::nullopt};
    for (std::size_t f : fields) c.bytes += bytes[f];
    if (tree) c.layout = tree->class_for(c.bytes);
    a.clusters.push_back(c);
  }
  if (tree) a.whole = tree->class_for(std::accumulate(bytes.begin(), bytes.end(), std::uint64_t{0}));
  return a;
}

namespace {

std::string cluster_text(const Advice& a, const ClusterAdvice& c) {
  std::string names;
  for (std::size_t f : c.fields) names += (names.empty() ? "" : "+") + a.field_names[f];
  return names;
}

}  // namespace

std::string advice_text(const Advice& a) {
  std::string out = "fields (sigma, bytes):";
  for (std::size_t f = 0; f < a.field_names.size(); ++f) out += fmt::format(" {} {}", a.field_names[f], a.field_bytes[f]);
  out += "\ndelta (distinct bytes between accesses; inf: never near within a kernel):";
  // Columns headed by the field names, or by the fields' numbers where a name is long (SAMPO's).
  const std::size_t n = a.kdlg.field_count();
  std::size_t label = 0;
  for (const auto& name : a.field_names) label = std::max(label, name.size());
  const bool numbered = label > 8;
  std::vector<std::string> heads;
  for (std::size_t f = 0; f < n; ++f) heads.push_back(numbered ? std::to_string(f) : a.field_names[f]);
  if (numbered) label += std::to_string(n).size() + 1;
  std::size_t width = 1;
  for (std::size_t f = 0; f < n; ++f) {
    width = std::max(width, heads[f].size());
    for (std::size_t g = 0; g < n; ++g) width = std::max(width, distance_text(a.kdlg.delta(f, g)).size());
  }
  out += fmt::format("\n  {:>{}}", "", label);
  for (const auto& h : heads) out += fmt::format(" {:>{}}", h, width);
  for (std::size_t f = 0; f < n; ++f) {
    out += fmt::format("\n  {:>{}}", numbered ? fmt::format("{} {}", f, a.field_names[f]) : a.field_names[f], label);
    for (std::size_t g = 0; g < n; ++g) out += fmt::format(" {:>{}}", distance_text(a.kdlg.delta(f, g)), width);
  }
  out += fmt::format("\nclusters (epsilon {} B): {}\n", a.epsilon, partition_name(a.partition, a.field_names));
  for (const ClusterAdvice& c : a.clusters) {
    out += fmt::format("  {}: sigma {} B, diameter {}", cluster_text(a, c), c.bytes, distance_text(c.diameter));
    if (c.layout) out += ", layout " + cluster_layout_text(*c.layout);
    out += "\n";
  }
  out += "merges:";
  if (a.partition.merges.empty()) out += " none";
  for (const KdlgMerge& m : a.partition.merges)
    out += fmt::format("\n  joined {} and {} at delta {}", a.field_names[m.a], a.field_names[m.b], m.delta);
  out += "\n";
  if (!a.whole) return out + "no tree given: clusters only\n";
  const std::uint64_t sigma = std::accumulate(a.field_bytes.begin(), a.field_bytes.end(), std::uint64_t{0});
  out += fmt::format("tree {}:\n  kdlg-tree: ", a.tree);
  for (std::size_t k = 0; k < a.clusters.size(); ++k)
    out += fmt::format("{}{} {}", k ? " | " : "", cluster_text(a, a.clusters[k]), cluster_layout_text(*a.clusters[k].layout));
  return out + fmt::format("\n  tiled-tree: one cluster, sigma {} B, layout {}\n", sigma, cluster_layout_text(*a.whole));
}

nlohmann::json advice_json(const Advice& a) {
  nlohmann::json fields = nlohmann::json::array(), delta = nlohmann::json::array(), clusters = nlohmann::json::array(),
                 merges = nlohmann::json::array();
  for (std::size_t f = 0; f < a.field_names.size(); ++f) {
    fields.push_back({{"name", a.field_names[f]}, {"bytes", a.field_bytes[f]}});
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t g = 0; g < a.field_names.size(); ++g) {
      const std::uint64_t d = a.kdlg.delta(f, g);
      row.push_back(d == kInfiniteDistance ? nlohmann::json("inf") : nlohmann::json(d));
    }
    delta.push_back(row);
  }
  for (const ClusterAdvice& c : a.clusters) {
    nlohmann::json names = nlohmann::json::array();
    for (std::size_t f : c.fields) names.push_back(a.field_names[f]);
    nlohmann::json cj = {{"fields", names}, {"bytes", c.bytes}, {"diameter", distance_text(c.diameter)}};
    if (c.layout) cj["layout"] = cluster_layout_text(*c.layout);
    clusters.push_back(cj);
  }
  for (const KdlgMerge& m : a.partition.merges)
    merges.push_back({{"a", a.field_names[m.a]}, {"b", a.field_names[m.b]}, {"delta", m.delta}});
  nlohmann::json out = {{"fields", fields},     {"epsilon", a.epsilon},
                        {"delta", delta},       {"partition", partition_name(a.partition, a.field_names)},
                        {"clusters", clusters}, {"merges", merges}};
  if (a.whole) {
    out["tree"] = a.tree;
    out["whole_record_layout"] = cluster_layout_text(*a.whole);
  } else {
    out["tree"] = nullptr;
  }
  return out;
}

}  // namespace lb::layout
