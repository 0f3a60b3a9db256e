#pragma once
//! What the subcommands share: the validators of integer and choice options, parsing with
//! syntax errors in the project's form (`layoutbench: error: ...`, exit 2), and the phase a
//! command is in, named when the host runs out of memory.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace lb::tools {

//! A non-negative decimal integer, for every integer option: CLI11 alone reads "-1" into an
//! unsigned option as 2^64 - 1, and "010" as octal 8. Refused naming the option:
//! "--inline: '-1' is not a non-negative integer".
const CLI::Validator& non_negative_integer();

//! A value that is not empty, for the options where "" would silently mean "not given" (--tile,
//! a tree, a skip file, a second output): "--tile: '' is empty; give a value or leave the option out".
const CLI::Validator& not_empty();

//! One of `names` ("float", "double"): "--precision: 'half' is not one of float, double".
CLI::Validator one_of(const std::vector<std::string>& names);

//! Parses the command line. Help is printed (exit code 0); a syntax error is one line,
//! "layoutbench: error: <message> (see `layoutbench [<subcommand>] --help`)", exit code 2.
//! Returns the exit code when the program should stop here, else -1.
int parse_command_line(CLI::App& app, int argc, char** argv);

//! `code` once standard output is flushed and was written whole; a failed write (a full
//! disk, `> /dev/full`, a closed pipe) is "layoutbench: error: cannot write to standard
//! output (<why>)" and exit code 2, so a pipeline never takes a cut output for a whole one.
//! main() ends every subcommand through it.
int stdout_checked(int code);

//! What a command is doing, with the size of what it allocates, named when the host runs
//! out of memory (a std::bad_alloc says nothing): "out of host memory while loading the
//! points of p.csv (a 1.2 GiB file)". Phases nest; the innermost one is named. A phase left
//! by an exception is remembered (until the next phase begins) for the top-level handler,
//! which runs once the phases are unwound.
class Phase {
 public:
  explicit Phase(std::string what);
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  int uncaught_;
};

//! The error for a std::bad_alloc: "out of host memory while <phase>" (the innermost phase
//! the exception left, or the innermost one still open).
std::string out_of_memory_message();

//! "512 B", "3.4 MiB", "12.0 GiB": a size for a phase or a message.
std::string bytes_text(double bytes);

//! The size of the file at `path` as bytes_text ("a 3.4 MiB file"), or "" if unknown.
std::string file_size_text(const std::string& path);

}  // namespace lb::tools
