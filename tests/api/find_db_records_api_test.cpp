// anydnnFindDbExport / anydnnFindDbImport: the user find-db's records handed between processes
// as text (the Python package's distributed tuning uses them instead of reading the database
// files). A Find's record comes back out; imported records are stored unless the problem already
// has one (the process's own measurement wins); a malformed text stores nothing; bad arguments
// are BadParm with a reason.
#include <gtest/gtest.h>

#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <random>
#include <string>
#include <vector>

#include "api_test_util.hpp"
#include "common_test_util.hpp"

namespace anydnn::test {
namespace {

std::string export_text(miopenHandle_t h) {
  size_t size = 0;
  EXPECT_EQ(anydnnFindDbExport(h, nullptr, &size), miopenStatusSuccess);
  EXPECT_GE(size, 1u);
  std::string text(size, '\0');
  EXPECT_EQ(anydnnFindDbExport(h, text.data(), &size), miopenStatusSuccess);
  text.resize(text.find('\0'));
  return text;
}

// A problem key no other test (or earlier run) records: the database stores keys as given.
std::string fresh_key(const char* tag) {
  return std::string("conv -n 1 -c 3 -H 5 -W 5 -k 2 -y 1 -x 1 -F 1 -t 1 --") + tag +
         std::to_string(fresh_seed()) + std::to_string(std::random_device{}());
}

TEST(FindDbRecordsApi, FindRecordComesOutAndImportedRecordsGoIn) {
  Handle h;
  // A Find on a problem of odd sizes writes its record to the user find-db.
  Tensor x(miopenFloat, {1, 3, 7, 9}), w(miopenFloat, {5, 3, 3, 3}), y(miopenFloat, {1, 5, 7, 9});
  Conv conv(1);
  std::vector<float> hx(1 * 3 * 7 * 9, 0.5f), hw(5 * 3 * 3 * 3, 0.25f), hy(1 * 5 * 7 * 9);
  size_t ws_size = 0;
  ASSERT_EQ(miopenConvolutionForwardGetWorkSpaceSize(h, w, x, conv, y, &ws_size),
            miopenStatusSuccess);
  std::vector<char> ws(ws_size + 1);
  miopenConvAlgoPerf_t perf[4];
  int found = 0;
  ASSERT_EQ(miopenFindConvolutionForwardAlgorithm(h, x, hx.data(), w, hw.data(), conv, y, hy.data(),
                                                  4, &found, perf, ws.data(), ws_size, true),
            miopenStatusSuccess);
  ASSERT_GT(found, 0);
  const std::string before = export_text(h);
  // Its key is MIOpenDriver syntax; each line has seven tab-separated fields (the last, a tuned
  // solver's params, empty here).
  const size_t at = before.find("conv -n 1 -c 3 -H 7 -W 9 -k 5 -y 3 -x 3 -p 1 -q 1");
  ASSERT_NE(at, std::string::npos) << before;
  const std::string line = before.substr(at, before.find('\n', at) - at);
  EXPECT_EQ(std::count(line.begin(), line.end(), '\t'), 6) << line;
  EXPECT_EQ(line.back(), '\t') << line;

  // A record measured elsewhere: stored once, then kept (a second import adds nothing).
  const std::string key = fresh_key("imported");
  const std::string record =
      key + "\tGemmFwdRest\t2\t0\t0.125\t4096\n" + key + "\tConvDirectNaiveConvFwd\t1\t1\t0.5\t0\n";
  size_t added = 99;
  ASSERT_EQ(anydnnFindDbImport(h, record.c_str(), &added), miopenStatusSuccess);
  EXPECT_EQ(added, 1u);
  ASSERT_EQ(anydnnFindDbImport(h, record.c_str(), &added), miopenStatusSuccess);
  EXPECT_EQ(added, 0u);
  const std::string after = export_text(h);
  // Lines of six fields (before params) come out with the seventh, empty.
  EXPECT_NE(after.find(key + "\tGemmFwdRest\t2\t0\t0.125\t4096\t\n" + key +
                       "\tConvDirectNaiveConvFwd\t1\t1\t0.5\t0\t\n"),
            std::string::npos)
      << after;
  // A tuned solver's params (a cuDNN engine) go in and come out unchanged.
  const std::string tuned_key = fresh_key("tuned");
  const std::string tuned = tuned_key + "\tCudnnConvFwd\t140\t5\t0.25\t1024\teng63_k12=8_k17=2\n";
  ASSERT_EQ(anydnnFindDbImport(h, tuned.c_str(), &added), miopenStatusSuccess);
  EXPECT_EQ(added, 1u);
  EXPECT_NE(export_text(h).find(tuned), std::string::npos);

  // The process's own measurement wins over an imported record of the same problem.
  const std::string own_key = line.substr(0, line.find('\t'));
  const std::string rival = own_key + "\tConvDirectNaiveConvFwd\t1\t1\t0.0001\t0\n";
  ASSERT_EQ(anydnnFindDbImport(h, rival.c_str(), &added), miopenStatusSuccess);
  EXPECT_EQ(added, 0u);
  EXPECT_EQ(export_text(h).find(rival), std::string::npos);
}

TEST(FindDbRecordsApi, BadInputsStoreNothing) {
  Handle h;
  const std::string key = fresh_key("malformed");
  // A good line, then one with five fields: BadParm naming line 2, and the good one not stored.
  const std::string text =
      key + "\tGemmFwdRest\t2\t0\t0.1\t0\n" + key + "\tGemmFwdRest\t2\t0\t0.1\n";
  expect_failure(miopenStatusBadParm, "anydnnFindDbImport", "line 2",
                 [&] { return anydnnFindDbImport(h, text.c_str(), nullptr); });
  EXPECT_EQ(export_text(h).find(key), std::string::npos);
  // An algorithm that is not one of MIOpen's (4 is unused), a negative workspace.
  expect_failure(miopenStatusBadParm, "anydnnFindDbImport", "not a miopenConvAlgorithm_t", [&] {
    return anydnnFindDbImport(h, (key + "\tX\t2\t4\t0.1\t0\n").c_str(), nullptr);
  });
  expect_failure(miopenStatusBadParm, "anydnnFindDbImport", "line 1", [&] {
    return anydnnFindDbImport(h, (key + "\tX\t2\t0\t0.1\t-8\n").c_str(), nullptr);
  });
  expect_failure(miopenStatusBadParm, "anydnnFindDbImport", "text is a null pointer",
                 [&] { return anydnnFindDbImport(h, nullptr, nullptr); });
  // Export: a null size, and a buffer smaller than the size asked for.
  expect_failure(miopenStatusBadParm, "anydnnFindDbExport", "size",
                 [&] { return anydnnFindDbExport(h, nullptr, nullptr); });
  ASSERT_EQ(anydnnFindDbImport(h, (key + "\tGemmFwdRest\t2\t0\t0.1\t0\n").c_str(), nullptr),
            miopenStatusSuccess);
  size_t size = 0;
  ASSERT_EQ(anydnnFindDbExport(h, nullptr, &size), miopenStatusSuccess);
  std::string small(size - 1, '\0');
  size_t short_size = size - 1;
  expect_failure(miopenStatusBadParm, "anydnnFindDbExport", "bytes the records need",
                 [&] { return anydnnFindDbExport(h, small.data(), &short_size); });
  expect_failure(miopenStatusBadParm, "anydnnFindDbExport", "handle",
                 [&] { return anydnnFindDbExport(nullptr, nullptr, &size); });
}

}  // namespace
}  // namespace anydnn::test
