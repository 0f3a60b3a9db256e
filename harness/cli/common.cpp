#include "common.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lb/datasets/text.hpp"

namespace lb::tools {

const CLI::Validator& non_negative_integer() {
  static const CLI::Validator validator(
      [](std::string& text) {
        std::size_t value = 0;
        return datasets::text::parse_size(text, value)
                   ? std::string()
                   : fmt::format("{} is not a non-negative integer", datasets::text::quote(text));
      },
      "", "non-negative integer");
  return validator;
}

const CLI::Validator& not_empty() {
  static const CLI::Validator validator(
      [](std::string& text) { return text.empty() ? "'' is empty; give a value or leave the option out" : ""; }, "",
      "not empty");
  return validator;
}

CLI::Validator one_of(const std::vector<std::string>& names) {
  return CLI::Validator(
      [names](std::string& text) {
        for (const auto& name : names)
          if (text == name) return std::string();
        return fmt::format("{} is not one of {}", datasets::text::quote(text), fmt::join(names, ", "));
      },
      "", "one of");
}

int parse_command_line(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    return -1;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string command = "layoutbench";
    for (const CLI::App* sub : app.get_subcommands()) command += " " + sub->get_name();
    std::fprintf(stderr, "layoutbench: error: %s (see `%s --help`)\n", e.what(), command.c_str());
    return 2;
  }
}

int stdout_checked(int code) {
  errno = 0;
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) || !std::cout;
  if (!failed || code != 0) return code;  // a command that failed has said why already
  const int why = errno;
  std::fprintf(stderr, "layoutbench: error: cannot write to standard output (%s)\n",
               why != 0 ? std::strerror(why) : "an earlier write failed");
  return 2;
}

namespace {
struct Phases {
  std::vector<std::string> open;
  std::string left_by_exception;
};
Phases& phases() {
  static Phases p;
  return p;
}
}  // namespace

Phase::Phase(std::string what) : uncaught_(std::uncaught_exceptions()) {
  phases().left_by_exception.clear();
  phases().open.push_back(std::move(what));
}

Phase::~Phase() {
  Phases& p = phases();
  if (std::uncaught_exceptions() > uncaught_ && p.left_by_exception.empty()) p.left_by_exception = p.open.back();
  p.open.pop_back();
}

std::string out_of_memory_message() {
  const Phases& p = phases();
  const std::string phase = !p.left_by_exception.empty() ? p.left_by_exception
                            : p.open.empty()                ? std::string()
                                                            : p.open.back();
  return phase.empty() ? "out of host memory (std::bad_alloc)" : fmt::format("out of host memory while {}", phase);
}

std::string bytes_text(double bytes) {
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

std::string file_size_text(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? std::string() : fmt::format("a {} file", bytes_text(static_cast<double>(size)));
}

}  // namespace lb::tools
