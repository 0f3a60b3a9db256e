// A seeded mutation driver for the fuzz targets where libFuzzer is not available (g++): it
// links with a target's LLVMFuzzerTestOneInput and takes the libFuzzer options fuzz/run.sh
// passes, so both engines run the same way.
//
//   target FILE...                      each file once (replay: regressions, seeds)
//   target [options] DIR...             seeds from the folders (read recursively), then
//                                       mutants of them until -runs or -max_total_time
// Options: -seed=N -runs=N -max_total_time=S -max_len=N -timeout=S -artifact_prefix=P
// -dict=FILE (libFuzzer's format: one "token" a line, \xNN and \" escapes); others are ignored.
//
// No coverage feedback: each input is a seed (or, half the time, an earlier mutant of this
// run) with 1 to 8 mutations: bit flips, random or "interesting" bytes, inserted and erased
// ranges, copies within the input and from other seeds, and dictionary tokens. A crash, a
// sanitizer report or a timeout writes the input to <artifact_prefix>crash-<hash> first.

#include <fcntl.h>
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

// The input being run, for the crash handlers (async-signal-safe: no allocation there).
const std::uint8_t* g_data = nullptr;
std::size_t g_size = 0;
char g_artifact[4096] = "./crash-";
std::size_t g_artifact_len = 8;

void save_current_input() {
  if (g_data == nullptr) return;
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a, so the name follows the content
  for (std::size_t i = 0; i < g_size; ++i) h = (h ^ g_data[i]) * 1099511628211ull;
  char name[sizeof g_artifact + 17];
  std::memcpy(name, g_artifact, g_artifact_len);
  for (int k = 0; k < 16; ++k) name[g_artifact_len + k] = "0123456789abcdef"[(h >> (60 - 4 * k)) & 15];
  name[g_artifact_len + 16] = '\0';
  const int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    for (std::size_t done = 0; done < g_size;) {
      const ssize_t n = write(fd, g_data + done, g_size - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    close(fd);
  }
  static const char kSaved[] = "lb_fuzz driver: input saved as ";
  (void)!write(2, kSaved, sizeof kSaved - 1);
  (void)!write(2, name, std::strlen(name));
  (void)!write(2, "\n", 1);
  g_data = nullptr;
}

void on_signal(int sig) {
  if (sig == SIGALRM) {
    static const char kTimeout[] = "lb_fuzz driver: timeout\n";
    (void)!write(2, kTimeout, sizeof kTimeout - 1);
  }
  save_current_input();
  signal(sig, SIG_DFL);
  raise(sig == SIGALRM ? SIGABRT : sig);
}

struct Options {
  std::uint64_t seed = 1;
  std::uint64_t runs = 0;  // 0: no limit
  double max_total_time = 0;
  std::size_t max_len = 4096;
  unsigned timeout = 20;
  std::vector<std::string> dicts, inputs;
};

bool option(std::string_view arg, std::string_view name, std::string& value) {
  if (!arg.starts_with(name) || arg.size() <= name.size() || arg[name.size()] != '=') return false;
  value = arg.substr(name.size() + 1);
  return true;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    std::string v;
    if (!arg.starts_with('-')) o.inputs.emplace_back(arg);
    else if (option(arg, "-seed", v)) o.seed = std::stoull(v);
    else if (option(arg, "-runs", v)) o.runs = std::stoull(v);
    else if (option(arg, "-max_total_time", v)) o.max_total_time = std::stod(v);
    else if (option(arg, "-max_len", v)) o.max_len = std::stoul(v);
    else if (option(arg, "-timeout", v)) o.timeout = static_cast<unsigned>(std::stoul(v));
    else if (option(arg, "-dict", v)) o.dicts.push_back(v);
    else if (option(arg, "-artifact_prefix", v)) {
      g_artifact_len = std::min(v.size(), sizeof g_artifact - 1);
      std::memcpy(g_artifact, v.data(), g_artifact_len);
      std::strcpy(g_artifact + g_artifact_len, "crash-");
      g_artifact_len += 6;
    } else
      std::fprintf(stderr, "lb_fuzz driver: ignoring option %s\n", argv[i]);
  }
  return o;
}

Bytes read_file(const fs::path& path, std::size_t max_len) {
  std::ifstream in(path, std::ios::binary);
  Bytes bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (max_len && bytes.size() > max_len) bytes.resize(max_len);
  return bytes;
}

//! libFuzzer's dictionary format: `"token"` or `name="token"` a line, # comments.
std::vector<Bytes> read_dict(const std::string& path) {
  std::vector<Bytes> tokens;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t open = line.find('"'), close = line.rfind('"');
    if (line.empty() || line[0] == '#' || open == std::string::npos || close <= open) continue;
    Bytes token;
    for (std::size_t i = open + 1; i < close; ++i) {
      if (line[i] == '\\' && i + 1 < close && line[i + 1] == 'x' && i + 3 < close) {
        token.push_back(static_cast<std::uint8_t>(std::stoi(line.substr(i + 2, 2), nullptr, 16)));
        i += 3;
      } else if (line[i] == '\\' && i + 1 < close) {
        token.push_back(static_cast<std::uint8_t>(line[++i]));
      } else {
        token.push_back(static_cast<std::uint8_t>(line[i]));
      }
    }
    tokens.push_back(std::move(token));
  }
  return tokens;
}

class Mutator {
 public:
  Mutator(std::uint64_t seed, std::size_t max_len, const std::vector<Bytes>& seeds, std::vector<Bytes> dict)
      : rng_(seed), max_len_(max_len), seeds_(seeds), dict_(std::move(dict)) {}

  Bytes mutate(Bytes b) {
    const int count = 1 + static_cast<int>(below(8));
    for (int k = 0; k < count; ++k) once(b);
    if (b.size() > max_len_) b.resize(max_len_);
    return b;
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng_() % n); }

 private:
  static constexpr std::uint8_t kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, '\n', '\r', '\t', ' ', ',', '#', '-',
                                                  '+', '.', 'e', '0', '9', '"', ':', '{', '}', '[', ']'};

  void insert(Bytes& b, const Bytes& what) { b.insert(b.begin() + static_cast<std::ptrdiff_t>(below(b.size() + 1)), what.begin(), what.end()); }

  void once(Bytes& b) {
    switch (below(b.empty() ? 3 : 9)) {
      case 0:  // a dictionary token (or an interesting byte)
        if (!dict_.empty()) insert(b, dict_[below(dict_.size())]);
        else insert(b, Bytes{kInteresting[below(std::size(kInteresting))]});
        break;
      case 1:  // a piece of another seed
        if (const Bytes& other = seeds_[below(seeds_.size())]; !other.empty()) {
          const std::size_t from = below(other.size()), len = 1 + below(std::min<std::size_t>(other.size() - from, 64));
          insert(b, Bytes(other.begin() + static_cast<std::ptrdiff_t>(from), other.begin() + static_cast<std::ptrdiff_t>(from + len)));
        }
        break;
      case 2:
        insert(b, Bytes{kInteresting[below(std::size(kInteresting))]});
        break;
      case 3:
        b[below(b.size())] ^= static_cast<std::uint8_t>(1u << below(8));
        break;
      case 4:
        b[below(b.size())] = static_cast<std::uint8_t>(below(256));
        break;
      case 5:
        b[below(b.size())] = kInteresting[below(std::size(kInteresting))];
        break;
      case 6: {  // erase a range
        const std::size_t from = below(b.size()), len = 1 + below(std::min<std::size_t>(b.size() - from, 16));
        b.erase(b.begin() + static_cast<std::ptrdiff_t>(from), b.begin() + static_cast<std::ptrdiff_t>(from + len));
        break;
      }
      case 7: {  // repeat a range in place
        const std::size_t from = below(b.size()), len = 1 + below(std::min<std::size_t>(b.size() - from, 64));
        const Bytes piece(b.begin() + static_cast<std::ptrdiff_t>(from), b.begin() + static_cast<std::ptrdiff_t>(from + len));
        const std::size_t times = 1 + below(4);
        for (std::size_t t = 0; t < times; ++t) b.insert(b.begin() + static_cast<std::ptrdiff_t>(from), piece.begin(), piece.end());
        break;
      }
      default:  // swap two bytes
        std::swap(b[below(b.size())], b[below(b.size())]);
        break;
    }
  }

  std::mt19937_64 rng_;
  std::size_t max_len_;
  const std::vector<Bytes>& seeds_;
  std::vector<Bytes> dict_;
};

void run_one(const Bytes& input, unsigned timeout) {
  // A copy of exactly the input's size, so AddressSanitizer sees a read past its end.
  auto* copy = static_cast<std::uint8_t*>(std::malloc(std::max<std::size_t>(input.size(), 1)));
  if (!input.empty()) std::memcpy(copy, input.data(), input.size());
  g_data = copy;
  g_size = input.size();
  alarm(timeout);
  LLVMFuzzerTestOneInput(copy, input.size());
  alarm(0);
  g_data = nullptr;
  std::free(copy);
}

}  // namespace

// g++ links UBSan as a runtime of its own, which does not call ASan's death callback: make
// its reports abort, so on_signal saves the input.
extern "C" const char* __ubsan_default_options() { return "abort_on_error=1:print_stacktrace=1"; }

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM}) signal(sig, on_signal);
  __sanitizer_set_death_callback(save_current_input);
  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };

  const bool replay = !o.inputs.empty() && std::none_of(o.inputs.begin(), o.inputs.end(),
                                                         [](const std::string& p) { return fs::is_directory(p); });
  if (replay) {
    for (const auto& path : o.inputs) {
      std::fprintf(stderr, "Running: %s\n", path.c_str());
      run_one(read_file(path, 0), o.timeout);
    }
    std::fprintf(stderr, "Executed %zu inputs in %.0f second(s)\n", o.inputs.size(), seconds());
    return 0;
  }

  std::vector<Bytes> seeds;
  for (const auto& dir : o.inputs)
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file()) seeds.push_back(read_file(e.path(), o.max_len));
  std::sort(seeds.begin(), seeds.end());  // the directory's order is not the same everywhere
  if (seeds.empty()) seeds.push_back({});
  std::vector<Bytes> dict;
  for (const auto& d : o.dicts) {
    auto tokens = read_dict(d);
    dict.insert(dict.end(), tokens.begin(), tokens.end());
  }
  std::fprintf(stderr, "lb_fuzz driver: seed %llu, %zu seed inputs, %zu dictionary tokens\n",
               static_cast<unsigned long long>(o.seed), seeds.size(), dict.size());

  std::uint64_t runs = 0;
  for (const Bytes& s : seeds) run_one(s, o.timeout), ++runs;
  Mutator mutator(o.seed, o.max_len, seeds, std::move(dict));
  std::vector<Bytes> recent;  // earlier mutants, so mutations stack beyond 8
  while ((o.runs == 0 || runs < o.runs) && (o.max_total_time <= 0 || seconds() < o.max_total_time)) {
    const bool stack = !recent.empty() && mutator.below(2) == 0;
    Bytes input = mutator.mutate(stack ? recent[mutator.below(recent.size())] : seeds[mutator.below(seeds.size())]);
    run_one(input, o.timeout);
    ++runs;
    if (recent.size() < 256) recent.push_back(std::move(input));
    else recent[mutator.below(recent.size())] = std::move(input);
  }
  std::fprintf(stderr, "Done %llu runs in %.0f second(s)\n", static_cast<unsigned long long>(runs), seconds());
  return 0;
}
