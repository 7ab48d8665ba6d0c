// Find and the convolution keep working when the find-db cannot be used: a user db directory
// that does not exist (created), one that is a file, one that cannot be written, a corrupt user
// db and a corrupt system db. Each case checks the warning (or its absence), Find's result and the
// convolution's output against a direct double loop.
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "common_test_util.hpp"
#include "conv/conv_ops.hpp"
#include "db/find_db.hpp"
#include "temp_dir.hpp"

namespace anydnn {
namespace {

// 2x3x7x7 input, 4x3x3x3 filter, pad 1: every CPU algorithm applies.
struct Problem {
  TensorDescriptor x{miopenFloat, {2, 3, 7, 7}};
  TensorDescriptor w{miopenFloat, {4, 3, 3, 3}};
  ConvolutionDescriptor conv{miopenConvolution, {1, 1}, {1, 1}, {1, 1}};
  TensorDescriptor y{miopenFloat, {2, 4, 7, 7}};
  std::vector<float> hx, hw, hy = std::vector<float>(2 * 4 * 49);
  std::vector<uint8_t> ws = std::vector<uint8_t>(1 << 20);
  std::vector<double> expected = std::vector<double>(2 * 4 * 49, 0.0);
  explicit Problem(std::mt19937& rng)
      : hx(test::random_floats(rng, 2 * 3 * 49)), hw(test::random_floats(rng, 4 * 3 * 9)) {
    for (int n = 0; n < 2; ++n)
      for (int k = 0; k < 4; ++k)
        for (int oh = 0; oh < 7; ++oh)
          for (int ow = 0; ow < 7; ++ow)
            for (int c = 0; c < 3; ++c)
              for (int r = 0; r < 3; ++r)
                for (int s = 0; s < 3; ++s) {
                  const int ih = oh + r - 1, iw = ow + s - 1;
                  if (ih < 0 || ih >= 7 || iw < 0 || iw >= 7) continue;
                  expected[((n * 4 + k) * 7 + oh) * 7 + ow] +=
                      double(hx[((n * 3 + c) * 7 + ih) * 7 + iw]) *
                      hw[((k * 3 + c) * 3 + r) * 3 + s];
                }
  }
  ConvProblem problem() const { return ConvProblem(ConvDirection::Forward, x, w, conv, y); }
  ConvBuffers buffers() { return {hx.data(), hw.data(), hy.data(), ws.data(), ws.size()}; }
  double max_error() const {
    double e = 0.0;
    for (size_t i = 0; i < hy.size(); ++i)
      e = std::isfinite(hy[i]) ? std::max(e, std::abs(hy[i] - expected[i])) : INFINITY;
    return e;
  }
};

Config config_for(const std::string& user, const std::string& system = "/nonexistent") {
  Config c;
  c.num_threads = 2;
  c.user_db_path = user;
  c.system_db_path = system;
  c.find_mode = FindMode::DynamicHybrid;  // the default: reads the db layers, then measures
  return c;
}

// Find, then run every algorithm it returned on poisoned output; returns the log of both.
std::string find_and_run(const Config& cfg, Problem& p) {
  Handle h(cfg, nullptr);
  testing::internal::CaptureStderr();
  const auto found = conv_find(h, p.problem(), p.buffers(), false);
  EXPECT_GE(found.size(), 2u);  // GEMM, implicit GEMM, Winograd, FFT ...
  for (const auto& e : found) {
    SCOPED_TRACE(e.solver_name);
    std::fill(p.hy.begin(), p.hy.end(), NAN);
    conv_run_found(h, p.problem(), e.algorithm, p.buffers());
    EXPECT_LT(p.max_error(), 1e-4);
  }
  return testing::internal::GetCapturedStderr();
}

// The device id names the thread count, so the probe handle uses config_for's.
std::string user_db_file(const std::string& dir) {
  Handle h(config_for(dir), nullptr);
  return dir + "/" + FindDb::user_file_name(h.backend().device_id());
}

struct Seeded {
  unsigned seed = test::fresh_seed();
  std::mt19937 rng{seed};
};

TEST(FindDbFailures, MissingDirectoryIsCreatedWithoutAWarning) {
  Seeded s;
  SCOPED_TRACE(test::seed_trace(s.seed));
  test::TempDir dir;
  Problem p(s.rng);
  const std::string user = dir.path() + "/a/b/c";
  const std::string log = find_and_run(config_for(user), p);
  EXPECT_EQ(log.find("Warning"), std::string::npos) << log;
  EXPECT_TRUE(std::filesystem::exists(user_db_file(user)));
}

TEST(FindDbFailures, DirectoryThatIsAFileWarnsAndFindWorks) {
  Seeded s;
  SCOPED_TRACE(test::seed_trace(s.seed));
  test::TempDir dir;
  Problem p(s.rng);
  const std::string file = dir.path() + "/plain_file";
  std::ofstream(file) << "not a directory";
  const std::string log = find_and_run(config_for(file), p);
  EXPECT_NE(log.find("Warning [FindDb] user find-db"), std::string::npos) << log;
  EXPECT_NE(log.find("Find results are kept in memory only"), std::string::npos) << log;
  std::ifstream in(file);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "not a directory");  // left alone
}

// A directory the process cannot write to. chmod 0500 stops a normal user; root ignores
// permissions, so there the directory is one under /proc, where nothing can be created.
TEST(FindDbFailures, UnwritableDirectoryWarnsAndFindWorks) {
  Seeded s;
  SCOPED_TRACE(test::seed_trace(s.seed));
  test::TempDir dir;
  Problem p(s.rng);
  std::string user = dir.path() + "/read_only";
  if (geteuid() == 0) {
    user = "/proc/self/anydnn-find-db";
  } else {
    std::filesystem::create_directory(user);
    ASSERT_EQ(chmod(user.c_str(), 0500), 0);
  }
  const std::string log = find_and_run(config_for(user), p);
  EXPECT_NE(log.find("Warning [FindDb] user find-db"), std::string::npos) << log;
  EXPECT_NE(log.find("is not usable"), std::string::npos) << log;
  EXPECT_FALSE(std::filesystem::exists(user_db_file(user)));
  if (geteuid() != 0) chmod(user.c_str(), 0700);  // so TempDir can remove it
}

TEST(FindDbFailures, CorruptUserDbWarnsAndFindWorks) {
  Seeded s;
  SCOPED_TRACE(test::seed_trace(s.seed));
  test::TempDir dir;
  Problem p(s.rng);
  {
    std::ofstream garbage(user_db_file(dir.path()), std::ios::binary);
    for (int i = 0; i < 8192; ++i)
      garbage.put(static_cast<char>(s.rng()));
  }
  const std::string log = find_and_run(config_for(dir.path()), p);
  EXPECT_NE(log.find("Warning [FindDb] user find-db"), std::string::npos) << log;
  EXPECT_NE(log.find("is not usable"), std::string::npos) << log;
}

// A system db that is not a database: opening it read-only succeeds (SQLite reads lazily), the
// first query fails, the layer is dropped with a warning, and Find measures as if it were absent.
TEST(FindDbFailures, CorruptSystemDbWarnsAndFindWorks) {
  Seeded s;
  SCOPED_TRACE(test::seed_trace(s.seed));
  test::TempDir user, system;
  Problem p(s.rng);
  Handle h(config_for(user.path()), nullptr);
  {
    std::ofstream garbage(system.path() + "/" + FindDb::system_file_name(h.backend().device_id()),
                          std::ios::binary);
    garbage << "SQLite format 3";  // a plausible header, then garbage
    for (int i = 0; i < 8192; ++i)
      garbage.put(static_cast<char>(s.rng()));
  }
  const std::string log = find_and_run(config_for(user.path(), system.path()), p);
  EXPECT_NE(log.find("Warning [FindDb] system find-db not usable"), std::string::npos) << log;
  // The user db still works: the record is there for the next handle.
  EXPECT_TRUE(std::filesystem::exists(user_db_file(user.path())));
}

}  // namespace
}  // namespace anydnn
