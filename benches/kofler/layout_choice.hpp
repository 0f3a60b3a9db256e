#pragma once
//! The Kofler programs' preset objects: the layouts a program runs over, read through the
//! layout library (lb/layout/choice.hpp) with the preset's lists and errors at its lines, and
//! the axes every Kofler program declares. The dispatch from a choice to a mapping value is the
//! layout library's (lb/layout/choice_mapping.hpp), named here for the programs.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kofler/suite.hpp"
#include "lb/harness/plan.hpp"
#include "lb/harness/preset.hpp"
#include "lb/harness/suite.hpp"
#include "lb/harness/trial.hpp"
#include "lb/layout/choice.hpp"
#include "lb/layout/choice_mapping.hpp"

namespace lb::benches::kofler {

using layout::LayoutChoice;
using layout::tile_values;
using layout::Tiles;
using layout::tiles_of;
using layout::with_mapping;
namespace kind = layout::kind;

//! The suite's input that gives the method's tree layouts their decision tree: `--kofler-tree
//! FILE`, the kofler-tree suite's fit on the same GPU where harness/run.py finds one.
inline constexpr const char* kTreeInput = "kofler-tree";

//! The kofler suite's declaration of that input (benches/suites.cpp).
SuiteInput tree_input();

//! The decision tree given as the tree input of `overrides`, read and checked once per
//! process and path (an error names the file); none given: nullptr.
const layout::DecisionTree* decision_tree(const Overrides& overrides);

//! What the method's layouts of `program` (lb::kofler::record_program's name) are made from:
//! its KDLG partition at ε = 128 B from its recorded accesses (recorded once per process, when
//! a preset first asks; the recorded fields must be `field_names`), its record's field bytes
//! (`field_bytes`: the record laid out, which for LavaMD's double differs from the float it
//! is recorded at) and the decision_tree of `overrides` (none: the tree's layouts are planned
//! all the same, each failing when made with the error naming the option).
layout::MethodSource method_source(std::string program, std::vector<std::string> field_names,
                                   std::vector<std::size_t> field_bytes, const Overrides& overrides);

//! The σ of each field of Rec, record order.
template <class Rec>
std::vector<std::size_t> record_field_bytes() {
  std::vector<std::size_t> out;
  for (std::size_t f = 0; f < Rec::field_count; ++f) out.push_back(Rec::size_of(f));
  return out;
}

//! layout::read_choices over a program's object `j` of `preset` (at `where`, for errors), the
//! method's layouts from `method` (none: asking for them is an error): a mistake is a PresetError at its line. The program lists
//! the keys it reads ("layouts", "tiles", "compile_time_tiles", "partitions", "kdlg_tiles")
//! among its keys for Preset::check_keys.
std::vector<LayoutChoice> layout_choices(const Preset& preset, const nlohmann::json& j, std::string_view where,
                                         std::size_t size, const std::vector<std::string>& field_names,
                                         const std::vector<std::size_t>& compile_time_tiles,
                                         const std::vector<std::string>& compile_time_partitions,
                                         const layout::MethodSource* method = nullptr);

//! A layout loop's values at one size: layout_choices over the program's object as the planner
//! gives it (the command line's layouts, tiles, ... in it), each a step setting "layout" (its
//! value the LayoutChoice), the choice's parameters (tile, partition, tiles) and, for tiled-ct
//! and split-ct, the compile_time_tile or compile_time_partition it instantiates. One compound
//! step, not loops over the layout, tile and partition axes: the layout library orders the
//! choices by kind (split and split-ct partition by partition), sweeps tiles up to the size and
//! makes the method's partitions from the recorded accesses, which the plans' order keeps.
std::vector<Step> layout_steps(const Reader& read, std::size_t size, const std::vector<std::string>& field_names,
                               const std::vector<std::size_t>& compile_time_tiles,
                               const std::vector<std::string>& compile_time_partitions,
                               const layout::MethodSource* method = nullptr);

//! Makes a program's variant of a layout (its make_<program>_variant over the size's case).
using MakeVariant = std::function<std::unique_ptr<Variant>(const LayoutChoice&)>;

//! The planned case of `layout`: `make(layout)` labelled with the layout's label (what the tree
//! chose); a layout that is unavailable (a tree's, or kdlg-tree-plus, without a tree) fails
//! when made, with its message, before `make` runs. kdlg-tree-plus is made by its trial on the
//! run's GPU timer (made_by_trial).
ProgramCase kofler_run(const LayoutChoice& layout, Where where, MemoryNeed memory, MakeVariant make);

//! kdlg-tree-plus made by its trial (docs/advisor.md, "The extended value"): each of its
//! trial_candidates made by `make` and tried (trial_of), one at a time, a candidate of an
//! earlier one's code (layout::same_code) sharing that one's trial; the candidate trial_choice
//! picks (AoS the reference) made again, its made_label the trial_label.
std::unique_ptr<Variant> made_by_trial(const kind::KdlgTreePlus& k, const MakeVariant& make, const TrialTiming& timing);

//! kdlg-tree-plus' label: "chosen=<candidate>;runs_as=<its code>;trial_us=<candidate>:<median>
//! [<min>,<max>]|...;tree_gpu=<the tree's GPU>", each candidate's trial in µs, "as <candidate>"
//! for one sharing another's trial, "invalid" for one that failed validation.
std::string trial_label(const std::vector<LayoutChoice>& candidates, const std::vector<TrialOutcome>& outcomes,
                        std::size_t chosen, std::string_view tree_gpu);

//! A Kofler program's axes, in name order: "version" and "precision" (the values given: fixed
//! unless the program reads them from its object), "layout" (key "layouts": the kinds a program
//! of these compile-time tiles and partitions takes, layout::ProgramKinds, whose error a preset
//! asking for another gets: split-ct only with compile-time partitions), the run-time "tile"
//! ("tiles": a list or "sweep"), what the program instantiates ("compile_time_tile":
//! "compile_time_tiles"; "compile_time_partition" where it has some), the "partition" any the
//! preset gives or the method makes, kdlg-tiles' "tiles" (t1,t2,...: its clusters of several
//! fields' tiles) and the tiles it sweeps ("kdlg_tile": "kdlg_tiles"), and "size" ("sizes", set
//! by --sizes; positive). A program adjusts what differs (axis_named).
std::vector<Axis> kofler_axes(std::vector<std::string> versions, std::vector<std::string> precisions,
                              const std::vector<std::size_t>& compile_time_tiles,
                              std::vector<std::string> compile_time_partitions = {});

//! The axis `name` of `axes`, to adjust (std::logic_error where it is not there).
Axis& axis_named(std::vector<Axis>& axes, std::string_view name);

}  // namespace lb::benches::kofler
