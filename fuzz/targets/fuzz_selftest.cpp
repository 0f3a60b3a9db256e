// The wiring's own target (fuzz/test_wiring.sh): a "loader" that breaks the rule on purpose,
// throwing a foreign exception for the input "throw" and an error that does not name the
// file for "vague", so the test sees fuzz/run.sh fail on both. The inputs are compared by
// hash, so the fuzzer cannot find them by watching comparisons (a clean run stays clean).

#include <functional>
#include <stdexcept>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static lb::fuzz::InputFile file;
  const std::string& path = file.write(data, size);
  const std::size_t hash = std::hash<std::string_view>{}({reinterpret_cast<const char*>(data), size});
  const auto is = [&](std::string_view magic) { return hash == std::hash<std::string_view>{}(magic); };
  lb::fuzz::expect_clean<std::runtime_error>(path, [&] {
    if (is("throw")) throw std::logic_error("a foreign exception");
    if (is("vague")) throw std::runtime_error("something is wrong");
    if (size % 2 == 1) throw std::runtime_error(path + ":1: a clean error");
  });
  return 0;
}
