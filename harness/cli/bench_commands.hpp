#pragma once
//! The subcommands every benchmark binary has, over the suites it links (lb/harness/suite.hpp's
//! suites()): list-devices, build-info, gpu-decision, suites, plan, run. layoutbench adds its
//! tools (main.cpp); a binary of a test's own suite list has these alone (bench_main.cpp).

#include <functional>

namespace CLI {
class App;
}

namespace lb::harness {

//! A binary's own subcommands, added to `app` after the bench commands; returns what runs the
//! one chosen (its exit code), -1 where none of them was chosen.
using ToolCommands = std::function<std::function<int()>(CLI::App& app)>;

//! main() of a benchmark binary: parses the command line (help: exit 0; a syntax error: one
//! line, exit 2), runs the chosen subcommand (an error: "layoutbench: error: <message>", exit
//! 2) and checks that standard output was written whole.
int bench_main(int argc, char** argv, const ToolCommands& tools = {});

}  // namespace lb::harness
