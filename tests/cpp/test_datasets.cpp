// Datasets: the seeded generator, the CSV loader (good and malformed files), grid specs,
// coincident-point detection and the atomic CSV writer.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "lb/datasets/points.hpp"
#include "temp_files.hpp"
#include "lb/idw/interaction.hpp"

namespace {

using namespace lb::datasets;
namespace fs = std::filesystem;

class CsvFile : public TempFilesTest {
 protected:
  //! The message of the InputError that loading `text` raises ("" if none).
  std::string error_of(const std::string& text) {
    try {
      load_points_csv(write("bad.csv", text));
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

TEST(Generator, DeterministicAndInRange) {
  const auto a = uniform_points(1000, 42), b = uniform_points(1000, 42), c = uniform_points(1000, 43);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.z, b.z);
  EXPECT_NE(a.x, c.x);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_GE(a.x[i], 0.0);
    EXPECT_LT(a.y[i], 1000.0);
  }
  // Pinned first value: the stream must not change between platforms or versions.
  EXPECT_DOUBLE_EQ(a.x[0], uniform_points(1, 42).x[0]);
  EXPECT_NEAR(a.x[0], 1000.0 * static_cast<double>(std::mt19937_64(42)() >> 11) * 0x1.0p-53, 1e-12);
}

TEST_F(CsvFile, ReadsPointsWithHeaderCommentsAndBlankLines) {
  const auto p = load_points_csv(write("ok.csv", "x,y,value\n# a comment\n1,2,3\n\n4.5, -6 ,7e1\r\n"));
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.x[1], 4.5);
  EXPECT_EQ(p.y[1], -6.0);
  EXPECT_EQ(p.z[1], 70.0);
  EXPECT_EQ(p.line[1], 5u);
}

TEST_F(CsvFile, WrongColumnCountNamesFileAndLine) {
  const auto msg = error_of("x,y,value\n1,2,3\n1,2\n");
  EXPECT_NE(msg.find("bad.csv:3:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected 3 columns"), std::string::npos) << msg;
  EXPECT_NE(error_of("1,2,3,4\n").find("found 4"), std::string::npos);
}

TEST_F(CsvFile, NonNumericValue) {
  const auto msg = error_of("1,2,3\n1,abc,3\n");
  EXPECT_NE(msg.find("bad.csv:2:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("column 2 (y) is not a number"), std::string::npos) << msg;
}

TEST_F(CsvFile, NaNAndInfinityRejected) {
  EXPECT_NE(error_of("1,2,nan\n").find("not finite"), std::string::npos);
  EXPECT_NE(error_of("1,2,3\ninf,2,3\n").find("bad.csv:2:"), std::string::npos);
}

TEST_F(CsvFile, EmptyFileAndHeaderOnly) {
  EXPECT_NE(error_of("").find("no data points"), std::string::npos);
  EXPECT_NE(error_of("x,y,value\n").find("no data points"), std::string::npos);
  try {
    load_points_csv((dir_ / "missing.csv").string());
    FAIL() << "missing file accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

TEST_F(CsvFile, CoincidentPointsNamedByLine) {
  const auto p = load_points_csv(write("dup.csv", "x,y,value\n1,1,5\n2,2,6\n1,1,7\n"));
  try {
    check_no_coincident(p, lb::idw::kCoincidentD2);
    FAIL() << "coincident points accepted";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("dup.csv:4"), std::string::npos) << msg;
    EXPECT_NE(msg.find("coincides with line 2"), std::string::npos) << msg;
  }
  EXPECT_NO_THROW(check_no_coincident(uniform_points(2000, 5), lb::idw::kCoincidentD2));
}

TEST(GridSpec, ParsesAndBuildsGrid) {
  const auto g = parse_grid_spec("0:10:11,5:7:3");
  EXPECT_EQ(g.nx, 11u);
  EXPECT_EQ(g.y1, 7.0);
  const auto pts = grid_points(g);
  ASSERT_EQ(pts.size(), 33u);
  EXPECT_EQ(pts.x[10], 10.0);
  EXPECT_EQ(pts.y[11], 6.0);
}

TEST(GridSpec, BadSpecsExplainTheFormat) {
  for (const char* bad : {"", "0:1:10", "0:1:10,0:1", "0:1:0,0:1:5", "a:1:2,0:1:2", "1:0:5,0:1:5", "0:1:-3,0:1:2"}) {
    try {
      parse_grid_spec(bad);
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("x0:x1:nx,y0:y1:ny"), std::string::npos) << e.what();
    }
  }
}

TEST_F(CsvFile, WriterRoundTripsAndLeavesNoTemporary) {
  PointSet s;
  s.x = {1.5, 2};
  s.y = {3, 4};
  s.z = {0.1, 1e-300};
  const auto path = (dir_ / "out.csv").string();
  write_points_csv(path, s);
  const auto back = load_points_csv(path);
  EXPECT_EQ(back.z, s.z);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(SharedDatasets, RoadNetExcerptIsNotAPointFile) {
  // The shared road-network excerpt has two columns: the loader must refuse it clearly.
  const std::string path = std::string(LB_SHARED_DATASETS) + "/roadNet-PA.head.txt";
  if (!fs::exists(path)) GTEST_SKIP() << "shared datasets not present: " << path;
  try {
    load_points_csv(path);
    FAIL() << "two-column file accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(":1: expected 3 columns"), std::string::npos) << e.what();
  }
}

}  // namespace
