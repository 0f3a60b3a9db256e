// Every loader of outside input (points and wells CSV, SNAP edge lists, presets, decision
// trees) reads through one bounded reader: a device (/dev/zero) is refused before any read, an
// endless pipe at the size limit (256 MiB where LB_MAX_INPUT_BYTES is not set), quickly and in
// one line, and a failed read is an error, never a short input.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>
#include <streambuf>
#include <thread>

#include <fmt/format.h>

#include "lb/datasets/graph.hpp"
#include "lb/datasets/points.hpp"
#include "lb/datasets/text.hpp"
#include "lb/datasets/wells.hpp"
#include "lb/harness/preset.hpp"
#include "lb/layout/decision_tree.hpp"
#include "scoped_env.hpp"
#include "temp_files.hpp"

namespace {

using namespace lb::datasets;
namespace fs = std::filesystem;

//! A FIFO a thread writes `head` and then `line` into forever, until the reader closes it
//! (SIGPIPE is ignored meanwhile: the write fails with EPIPE and the thread ends).
class EndlessFifo {
 public:
  EndlessFifo(fs::path path, std::string head, std::string line) : path_(std::move(path)) {
    old_sigpipe_ = ::signal(SIGPIPE, SIG_IGN);
    if (::mkfifo(path_.c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed");
    writer_ = std::thread([path = path_, head = std::move(head), line = std::move(line)] {
      const int fd = ::open(path.c_str(), O_WRONLY);  // waits for the reader
      if (fd < 0) return;
      std::string block;
      while (block.size() < (1u << 16)) block += line;
      bool ok = ::write(fd, head.data(), head.size()) == static_cast<ssize_t>(head.size());
      while (ok) ok = ::write(fd, block.data(), block.size()) > 0;
      ::close(fd);
    });
  }
  ~EndlessFifo() {
    // A reader that never opened the FIFO leaves the writer waiting in open(): be one.
    const int fd = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
    writer_.join();
    ::signal(SIGPIPE, old_sigpipe_);
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
  std::thread writer_;
  sighandler_t old_sigpipe_;
};

struct Loader {
  const char* name;
  std::function<void(const std::string&)> load;
  std::string head, line;  //!< a valid start and a valid line to repeat without end
};

const Loader kLoaders[] = {
    {"points", [](const std::string& p) { load_points_csv(p); }, "x,y,value\n", "1,2,3\n"},
    {"wells", [](const std::string& p) { load_wells_csv(p); }, "x,y,top\n", "1,2,3\n"},
    {"graph", [](const std::string& p) { load_snap_edge_list(p); }, "# edges\n", "1\t2\n"},
    {"preset", [](const std::string& p) { lb::harness::load_preset(p); }, "{\"suites\": {\"idw\": {\"sizes\": [", "1, "},
    {"tree", [](const std::string& p) { lb::layout::read_decision_tree(p); }, "{\"intervals\": [", "{}, "},
};

void PrintTo(const Loader& loader, std::ostream* out) { *out << loader.name; }

class EveryLoader : public TempFilesTest, public ::testing::WithParamInterface<Loader> {
 protected:
  //! The loader's error for `path` ("" when it accepts the file).
  std::string error_of(const std::string& path) {
    try {
      GetParam().load(path);
    } catch (const InputError& e) {
      return e.what();
    } catch (const lb::harness::PresetError& e) {
      return e.what();
    } catch (const std::invalid_argument& e) {  // the tree's errors
      return e.what();
    }
    return "";
  }

  //! Loads `path` under a 64 KiB limit: one line naming the file and the limit, in seconds.
  void expect_refused_at_the_limit(const std::string& path) {
    const ScopedEnv limit(text::kMaxInputEnv, "64K");
    const auto start = std::chrono::steady_clock::now();
    const std::string message = error_of(path);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_NE(message.find("input size limit of 64 KiB (65536 bytes); set LB_MAX_INPUT_BYTES"), std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_LT(seconds, 10.0);
  }
};

TEST_P(EveryLoader, ADeviceIsRefusedBeforeAnyRead) {
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  const ScopedEnv unset(text::kMaxInputEnv, nullptr);  // the default limit: 2 GiB for data
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of("/dev/zero"), "/dev/zero: is a device, not a file");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

TEST_P(EveryLoader, AnEndlessPipeIsRefusedAtTheSizeLimit) {
  const EndlessFifo fifo(dir_ / "endless", GetParam().head, GetParam().line);
  expect_refused_at_the_limit(fifo.path());
}

class EndlessPipe : public TempFilesTest {};

TEST_F(EndlessPipe, IsRefusedAtTheStreamLimitWithoutLbMaxInputBytes) {
  const ScopedEnv unset(text::kMaxInputEnv, nullptr);
  const EndlessFifo fifo(dir_ / "endless", "x,y,value\n", "1,2,3\n");
  try {
    load_points_csv(fifo.path());
    FAIL() << "an endless pipe was read to its end";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), fifo.path() + ": larger than the input size limit of 256 MiB (268435456 bytes); "
                                                   "set LB_MAX_INPUT_BYTES to raise it");
  }
}

TEST_P(EveryLoader, ARegularFileOverTheLimitIsRefusedByItsSize) {
  std::string text = GetParam().head;
  while (text.size() <= 1024) text += GetParam().line;
  const std::string path = write("big.txt", text);
  const ScopedEnv limit(text::kMaxInputEnv, "1K");
  const std::string message = error_of(path);
  EXPECT_NE(message.find(fmt::format("{}: {} bytes, larger than the input size limit of 1 KiB", path, text.size())),
            std::string::npos)
      << message;
}

TEST_P(EveryLoader, AReadErrorIsAnErrorNotAShortInput) {
  // Reading /proc/self/mem from its start fails with EIO (address 0 is not mapped).
  if (!fs::exists("/proc/self/mem")) GTEST_SKIP() << "no /proc/self/mem";
  const std::string message = error_of("/proc/self/mem");
  EXPECT_EQ(message.rfind("/proc/self/mem: read error (", 0), 0u) << message;
}

INSTANTIATE_TEST_SUITE_P(Loaders, EveryLoader, ::testing::ValuesIn(kLoaders),
                         [](const auto& info) { return std::string(info.param.name); });

//! Gives `good` bytes, then fails as libstdc++'s filebuf does on a read error (it throws from
//! underflow; the istream turns that into badbit).
class FailingBuffer : public std::streambuf {
 public:
  explicit FailingBuffer(std::string good) : good_(std::move(good)) {}

 protected:
  int_type underflow() override {
    if (given_) throw std::ios_base::failure("device gone");
    given_ = true;
    setg(good_.data(), good_.data(), good_.data() + good_.size());
    return traits_type::to_int_type(good_[0]);
  }

 private:
  std::string good_;
  bool given_ = false;
};

TEST(ReadBounded, AStreamFailingMidwayIsAReadError) {
  FailingBuffer buffer(std::string(100000, '1'));
  std::istream in(&buffer);
  try {
    const std::string text = text::read_bounded(in, "input.txt", 1 << 20);
    FAIL() << "a failed read gave " << text.size() << " bytes of input";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("input.txt: read error", 0), 0u) << e.what();
  }
}

TEST(ReadBounded, TheLimitIsInclusive) {
  std::istringstream exact(std::string(1000, 'a'));
  EXPECT_EQ(text::read_bounded(exact, "exact", 1000).size(), 1000u);
  std::istringstream over(std::string(1001, 'a'));
  EXPECT_THROW(text::read_bounded(over, "over", 1000), InputError);
  std::istringstream empty("");
  EXPECT_EQ(text::read_bounded(empty, "empty", 1000), "");
}

TEST(ReadBounded, TheLimitComesFromTheEnvironmentOrTheLoadersDefault) {
  {
    const ScopedEnv unset(text::kMaxInputEnv, nullptr);
    EXPECT_EQ(text::max_input_bytes(text::kMaxDataBytes), std::uint64_t{2} << 30);
    EXPECT_EQ(text::max_input_bytes(text::kMaxPresetBytes), std::uint64_t{4} << 20);
  }
  for (auto [value, bytes] : {std::pair{"1", 1ull}, {"3K", 3072ull}, {"5m", 5ull << 20}, {" 2G ", 2ull << 30}}) {
    const ScopedEnv env(text::kMaxInputEnv, value);
    EXPECT_EQ(text::max_input_bytes(text::kMaxDataBytes), bytes) << value;
  }
  for (const char* bad : {"", "0", "-1", "abc", "1T", "1.5G", "99999999999G", "1 K"}) {
    const ScopedEnv env(text::kMaxInputEnv, bad);
    try {
      text::max_input_bytes(text::kMaxDataBytes);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("LB_MAX_INPUT_BYTES=", 0), 0u) << e.what();
    }
  }
}

}  // namespace
