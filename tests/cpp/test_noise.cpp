// Noise the run controls (docs/architecture.md): the median's interval, the bimodality rule and
// the rounds on synthetic samples; the runner's rounds through Google Benchmark and the journal
// with injected times; CPU benchmarks of two processes (two GPUs' runs) never overlapping.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "lb/harness/host_lock.hpp"
#include "lb/harness/noise.hpp"
#include "lb/harness/runner.hpp"

#include "temp_files.hpp"

namespace {

using namespace lb::harness;

TEST(MedianInterval, OrderStatisticsWhereTheyReach95PercentElseMinMax) {
  const auto three = median_interval({0.636, 0.505, 0.505});
  EXPECT_EQ(three.rank, 1u);
  EXPECT_DOUBLE_EQ(three.coverage, 0.75);
  EXPECT_DOUBLE_EQ(three.low, 0.505);
  EXPECT_DOUBLE_EQ(three.high, 0.636);
  EXPECT_NEAR(three.relative_half_width(), (0.636 - 0.505) / (2 * 0.505), 1e-12);
  // n = 6: still min-max (96.9 %); n = 12: the 3rd and 10th (96.1 %); n = 24: 7th and 18th.
  EXPECT_EQ(median_interval(std::vector<double>(6, 1.0)).rank, 1u);
  EXPECT_NEAR(median_interval(std::vector<double>(6, 1.0)).coverage, 0.96875, 1e-12);
  std::vector<double> twelve;
  for (int k = 12; k >= 1; --k) twelve.push_back(k);
  const auto m12 = median_interval(twelve);
  EXPECT_EQ(m12.rank, 3u);
  EXPECT_DOUBLE_EQ(m12.low, 3);
  EXPECT_DOUBLE_EQ(m12.high, 10);
  EXPECT_DOUBLE_EQ(m12.median, 6.5);
  EXPECT_NEAR(m12.coverage, 1 - 2 * 79.0 / 4096, 1e-12);
  EXPECT_EQ(median_interval(std::vector<double>(24, 1.0)).rank, 7u);
  EXPECT_TRUE(std::isinf(median_interval({1.0}).relative_half_width()));
}

TEST(Bimodal, TheIssuesSampleIsBimodalAndReMeasured) {
  // 636 / 505 / 505 ms (H200, IDW CDP AoS at 500K): the lone 636 is a group at n = 3...
  EXPECT_TRUE(is_bimodal({0.636, 0.505, 0.505}));
  EXPECT_FALSE(is_bimodal({0.636, 0.505}));  // two times: no split to compare
  // ...it misses a 1 % target (13 %) too, so it is re-measured, and two 636s in six are bimodal.
  const NoiseRules rules{.target_pct = 1, .cap_s = 10};
  const auto three = assess_noise({0.636, 0.505, 0.505}, rules);
  EXPECT_FALSE(three.target_met);
  EXPECT_TRUE(wants_more(three, {.n = 3}, rules));
  EXPECT_TRUE(is_bimodal({0.636, 0.505, 0.505, 0.636, 0.505, 0.505}));
  EXPECT_TRUE(is_bimodal({0.5051, 0.5063, 0.5049, 0.6360, 0.6412, 0.5055}));
}

TEST(Bimodal, NoiseOutliersAndSmallGapsAreNot) {
  // Unimodal jitter of +-0.5 %, twelve repetitions.
  std::vector<double> jitter;
  for (int k = 0; k < 12; ++k) jitter.push_back(1.0 + 0.005 * std::sin(k * 1.7));
  EXPECT_FALSE(is_bimodal(jitter));
  // One outlier among twelve: one repetition is not a cluster.
  auto outlier = jitter;
  outlier[4] = 1.3;
  EXPECT_FALSE(is_bimodal(outlier));
  // Two clusters 1 % apart: under the 2 % gap; 3 % apart: bimodal.
  EXPECT_FALSE(is_bimodal({1.00, 1.00, 1.01, 1.01}));
  EXPECT_TRUE(is_bimodal({1.00, 1.00, 1.03, 1.03}));
  // Wide clusters: a gap not three times the wider one's range is not a gap between modes.
  EXPECT_FALSE(is_bimodal({1.00, 1.02, 1.04, 1.07, 1.09, 1.11}));
  // n = 39 or 40: a side needs 4 (ceil(n/10)); three slow repetitions are outliers, four a mode.
  std::vector<double> many(36, 1.0);
  many.insert(many.end(), {1.2, 1.2, 1.2});
  EXPECT_FALSE(is_bimodal(many));
  many.push_back(1.2);
  EXPECT_TRUE(is_bimodal(many));
}

TEST(NoiseRounds, DoubleUntilTheTargetOrTheCap) {
  const NoiseRules rules{.target_pct = 1, .cap_s = 1.0};
  const auto noisy = assess_noise({1.0, 1.05, 0.97}, rules);
  const auto quiet = assess_noise({1.0, 1.001, 0.999}, rules);
  EXPECT_TRUE(quiet.target_met);
  EXPECT_EQ(next_round(quiet, {.n = 3}, rules), 0u);
  EXPECT_EQ(next_round(noisy, {.n = 3}, rules), 3u);                      // n doubles
  EXPECT_EQ(next_round(noisy, {.n = 6, .extra_s = 0.2}, rules), 6u);
  // Cut to what the cap has left at the last round's time per repetition; none if none fits.
  EXPECT_EQ(next_round(noisy, {.n = 12, .extra_s = 0.5, .seconds_per_repetition = 0.1}, rules), 5u);
  EXPECT_EQ(next_round(noisy, {.n = 12, .extra_s = 0.85, .seconds_per_repetition = 0.1}, rules), 1u);
  EXPECT_EQ(next_round(noisy, {.n = 12, .extra_s = 0.95, .seconds_per_repetition = 0.1}, rules), 0u);
  EXPECT_EQ(next_round(noisy, {.n = 3, .seconds_per_repetition = 2.0}, rules), 0u);  // a CPU run of 2 s
  EXPECT_EQ(next_round(noisy, {.n = 12, .extra_s = 1.0}, rules), 0u);  // spent: capped
  EXPECT_TRUE(wants_more(noisy, {.n = 12, .extra_s = 1.0}, rules));
  EXPECT_EQ(next_round(noisy, {.n = 700}, NoiseRules{.target_pct = 1, .cap_s = 1e9}), 300u);
  EXPECT_EQ(next_round(noisy, {.n = 1000}, NoiseRules{.target_pct = 1, .cap_s = 1e9}), 0u);
  // Off: the preset's repetitions only, whatever the noise.
  EXPECT_FALSE(wants_more(noisy, {.n = 3}, NoiseRules{}));
}

TEST(NoiseRounds, ABimodalSampleIsReMeasuredOnce) {
  const NoiseRules rules{.target_pct = 50, .cap_s = 10};  // a target it meets
  const auto bimodal = assess_noise({1.0, 1.0, 1.2, 1.2, 1.0, 1.0}, rules);
  ASSERT_TRUE(bimodal.target_met && bimodal.bimodal);
  EXPECT_EQ(next_round(bimodal, {.n = 6}, rules), 6u);
  EXPECT_EQ(next_round(bimodal, {.n = 12, .bimodal_before = true}, rules), 0u);
  EXPECT_FALSE(wants_more(bimodal, {.n = 12, .bimodal_before = true}, rules));  // flagged, not capped
}

//! A journal's records, one JSON object per line.
std::vector<nlohmann::json> read_records(const std::string& path) {
  std::vector<nlohmann::json> records;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) records.push_back(nlohmann::json::parse(line));
  return records;
}

//! The entries of `name` in the journal, and its median entry.
struct Journaled {
  std::vector<nlohmann::json> iterations;
  nlohmann::json median;
  std::size_t aggregates = 0;
};
Journaled journaled(const std::vector<nlohmann::json>& records, const std::string& name) {
  Journaled out;
  for (const auto& r : records) {
    if (r["type"] != "run" || r["name"] != name) continue;
    if (r["run"]["run_type"] == "iteration") out.iterations.push_back(r["run"]);
    if (r["run"]["run_type"] == "aggregate") ++out.aggregates;
    if (r["run"].value("aggregate_name", "") == "median") out.median = r["run"];
  }
  return out;
}

class Runner : public TempFilesTest {
 protected:
  //! A benchmark whose k-th repetition reports times[k % size] seconds (one iteration each) and
  //! sleeps `wall_s` of real time; its journal's records after running it alone.
  std::vector<nlohmann::json> run_one(const std::vector<double>& times, const NoiseRules& rules, double wall_s = 0,
                                      int own_repetitions = 0) {
    std::size_t calls = 0;
    PlannedBenchmark b{"test/noise/x/aos/float/size:1",
                       [&](benchmark::State& st) {
                         for (auto _ : st) {
                           if (wall_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wall_s));
                           st.SetIterationTime(times[calls++ % times.size()]);
                         }
                       },
                       own_repetitions, 0};
    const auto path = (dir_ / "journal.jsonl").string();
    std::filesystem::remove(path);
    Journal journal(path);
    JournalReporter reporter(journal, 0, 1, 5);
    run_benchmarks({b}, {}, {.repetitions = 3, .min_time_s = 1e-6, .noise = rules}, reporter);
    return read_records(path);
  }
};

TEST_F(Runner, AQuietBenchmarkStopsAfterItsFirstRound) {
  const auto j = journaled(run_one({1.0, 1.001, 0.999}, {.target_pct = 1, .cap_s = 5}), "test/noise/x/aos/float/size:1");
  ASSERT_EQ(j.iterations.size(), 3u);
  EXPECT_EQ(j.aggregates, 5u);  // mean, median, stddev, cv, spread
  const auto& noise = j.median["noise"];
  EXPECT_EQ(noise["repetitions"], 3);
  EXPECT_EQ(noise["rounds"], 1);
  EXPECT_EQ(noise["target_met"], true);
  EXPECT_EQ(noise["capped"], false);
  EXPECT_NEAR(noise["half_width_pct"].get<double>(), 0.1, 1e-9);
  EXPECT_NEAR(j.median["real_time"].get<double>(), 1e6, 1e-3);  // microseconds
}

TEST_F(Runner, ALoneSlowFirstRepetitionIsOutvotedByMoreRepetitions) {
  std::vector<double> times(12, 0.505);
  times[0] = 0.636;
  const auto records = run_one(times, {.target_pct = 1, .cap_s = 5});
  const auto j = journaled(records, "test/noise/x/aos/float/size:1");
  // 3 (13 % wide) -> 6 (still min-max) -> 12 (the 3rd to the 10th: 0 %).
  ASSERT_EQ(j.iterations.size(), 12u);
  for (std::size_t k = 0; k < 12; ++k) {  // one run's repetitions, numbered across the rounds
    EXPECT_EQ(j.iterations[k]["repetition_index"], k);
    EXPECT_EQ(j.iterations[k]["repetitions"], 12);
    EXPECT_EQ(j.iterations[k]["iterations"], 1);
  }
  EXPECT_EQ(j.median["noise"]["rounds"], 3);
  EXPECT_EQ(j.median["noise"]["target_met"], true);
  EXPECT_EQ(j.median["noise"]["bimodal"], false);
  EXPECT_NEAR(j.median["noise"]["interval_s"][1].get<double>(), 0.505, 1e-12);
  // One start and one done for the whole benchmark: the journal reads as one attempt.
  std::size_t starts = 0, dones = 0;
  for (const auto& r : records) {
    starts += r["type"] == "start";
    dones += r["type"] == "done";
  }
  EXPECT_EQ(starts, 1u);
  EXPECT_EQ(dones, 1u);
}

TEST_F(Runner, AStillBimodalSampleIsFlaggedAndTheCapEndsIt) {
  // 636 / 505 / 505 (µs) for ever: bimodal from six on, the target never met; 5 ms of wall
  // time a repetition against a 0.1 s cap.
  const auto j = journaled(run_one({636e-6, 505e-6, 505e-6}, {.target_pct = 1, .cap_s = 0.1}, 0.005),
                           "test/noise/x/aos/float/size:1");
  const auto& noise = j.median["noise"];
  EXPECT_EQ(noise["bimodal"], true);
  EXPECT_EQ(noise["target_met"], false);
  EXPECT_EQ(noise["capped"], true);
  EXPECT_GE(noise["repetitions"].get<int>(), 6);
  EXPECT_LT(noise["repetitions"].get<int>(), 100);  // the cap bounds it, not 1000
  EXPECT_EQ(noise["repetitions"], j.iterations.size());
  EXPECT_LT(noise["extra_s"].get<double>(), 0.1 + 0.05);
}

TEST_F(Runner, ACaseWithItsOwnRepetitionsRunsThemOnly) {
  const auto j = journaled(run_one({0.636, 0.505}, {.target_pct = 1, .cap_s = 5}, 0, 2), "test/noise/x/aos/float/size:1");
  EXPECT_EQ(j.iterations.size(), 2u);
  EXPECT_EQ(j.median["noise"]["capped"], false);
  EXPECT_TRUE(j.median["noise"]["target_pct"].is_null());
}

// Two processes, as the two GPUs of `run.py --devices 0,1` run, each timing three CPU
// benchmarks of ~40 ms at the same moment: the intervals each held the host's CPU lock (its
// result records them) never overlap across the processes.
TEST_F(Runner, CpuBenchmarksOfTwoProcessesNeverOverlap) {
  const std::string lock = (dir_ / "cpu.lock").string();
  auto child = [&](int index) {
    std::vector<PlannedBenchmark> plan;
    for (int k = 0; k < 3; ++k)
      plan.push_back({"test/lock/cpu/aos/float/size:" + std::to_string(k),
                      [](benchmark::State& st) {
                        for (auto _ : st) {
                          std::this_thread::sleep_for(std::chrono::milliseconds(20));
                          st.SetIterationTime(0.02);
                        }
                      },
                      2, 1e-6, Where::cpu});
    Journal journal((dir_ / ("gpu" + std::to_string(index) + ".jsonl")).string());
    JournalReporter reporter(journal, 0, plan.size(), 5);
    run_benchmarks(plan, {}, {.repetitions = 2, .min_time_s = 1e-6, .cpu_lock = lock}, reporter);
  };
  std::vector<pid_t> children;
  for (int index = 0; index < 2; ++index) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        child(index);
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::vector<std::pair<double, double>> held[2];
  for (int index = 0; index < 2; ++index)
    for (const auto& r : read_records((dir_ / ("gpu" + std::to_string(index) + ".jsonl")).string()))
      if (r["type"] == "run" && r["run"].contains("host_lock")) {
        EXPECT_EQ(r["run"]["host_lock"]["file"], lock);
        held[index].emplace_back(r["run"]["host_lock"]["held_from_unix_s"], r["run"]["host_lock"]["held_to_unix_s"]);
      }
  ASSERT_EQ(held[0].size(), 3u);
  ASSERT_EQ(held[1].size(), 3u);
  for (const auto& [from0, to0] : held[0])
    for (const auto& [from1, to1] : held[1])
      EXPECT_TRUE(to0 <= from1 || to1 <= from0)
          << "gpu0 held [" << from0 << ", " << to0 << "], gpu1 [" << from1 << ", " << to1 << "]";
}

//! Threads stand for processes: flock locks belong to open file descriptions, and each HostLock
//! opens the file anew. The order events happen in, by a counter of ticks.
TEST(HostLock, ACpuBenchmarkRunsAloneAndWaitsAheadOfNewcomers) {
  const std::string lock = (std::filesystem::temp_directory_path() /
                            ("lb-rw-" + std::to_string(::getpid()) + ".lock")).string();
  std::atomic<int> tick{0};
  int reader_released = -1, writer_held = -1, writer_released = -1, late_reader_held = -1;
  std::optional<HostLock> reader(std::in_place, lock, HostLock::Mode::shared);
  std::optional<HostLock> second_reader(std::in_place, lock, HostLock::Mode::shared);  // shared ones coexist
  std::thread writer([&] {
    HostLock w(lock, HostLock::Mode::exclusive);
    writer_held = tick++;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    writer_released = tick++;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the writer is waiting now
  std::thread late_reader([&] {
    HostLock r(lock, HostLock::Mode::shared);
    late_reader_held = tick++;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(late_reader_held, -1) << "a newcomer went ahead of the waiting CPU benchmark";
  EXPECT_EQ(writer_held, -1) << "the CPU benchmark ran beside a running benchmark";
  reader_released = tick++;
  reader.reset();
  second_reader.reset();
  writer.join();
  late_reader.join();
  EXPECT_LT(reader_released, writer_held);
  EXPECT_LT(writer_held, writer_released);
  EXPECT_LT(writer_released, late_reader_held);
  std::filesystem::remove(lock);
  std::filesystem::remove(lock + ".turnstile");
}

TEST(HostLock, AnUnopenableLockFileIsOneErrorNamingIt) {
  try {
    HostLock lock("/nonexistent-folder/layoutbench-cpu.lock");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the host's CPU benchmark lock /nonexistent-folder/"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
