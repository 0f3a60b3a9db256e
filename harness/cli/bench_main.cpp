//! main() of a benchmark binary with no subcommands of its own: a test's binary over its own
//! suite list (tests/fixture_program). layoutbench's is main.cpp.

#include "bench_commands.hpp"

int main(int argc, char** argv) { return lb::harness::bench_main(argc, argv); }
