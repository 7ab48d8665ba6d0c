// Finding cuDNN at run time (core/cudnn_library.hpp), on any machine: the absent-library path
// gives the one-line reason the cuDNN solvers report, a library that is not cuDNN is refused, and
// where the machine has cuDNN the default search finds a new enough one.
#include <gtest/gtest.h>

#include "core/cudnn_library.hpp"

namespace anydnn {
namespace {

TEST(CudnnLibrary, RequestedPathIsTheOnlyCandidate) {
  EXPECT_EQ(cudnn_library_candidates("/opt/x/libcudnn.so.9"),
            std::vector<std::string>{"/opt/x/libcudnn.so.9"});
  const auto defaults = cudnn_library_candidates("");
  ASSERT_GE(defaults.size(), 3u);
  EXPECT_EQ(defaults.front(), "libcudnn.so.9");  // dlopen's own search first
  EXPECT_EQ(defaults.back(), "/usr/local/cuda/lib/libcudnn.so.9");
}

TEST(CudnnLibrary, MissingRequestedLibraryIsAReasonNotACrash) {
  const CudnnLibrary lib = load_cudnn_library("/nonexistent/libcudnn.so.9");
  EXPECT_FALSE(lib);
  EXPECT_EQ(lib.handle, nullptr);
  EXPECT_EQ(lib.error.rfind("ANYDNN_CUDNN_LIBRARY: ", 0), 0u) << lib.error;
  EXPECT_NE(lib.error.find("/nonexistent/libcudnn.so.9"), std::string::npos) << lib.error;
  EXPECT_EQ(lib.error.find('\n'), std::string::npos) << "one line: " << lib.error;
}

TEST(CudnnLibrary, ALibraryThatIsNotCudnnIsRefused) {
  const CudnnLibrary lib = load_cudnn_library("libm.so.6");
  EXPECT_FALSE(lib);
  EXPECT_NE(lib.error.find("no cudnnGetVersion"), std::string::npos) << lib.error;
}

// Both outcomes are checked: a machine with cuDNN (the CUDA image) loads 9.x from a real path; one
// without says where it looked.
TEST(CudnnLibrary, DefaultSearchFindsCudnnOrSaysWhereItLooked) {
  const CudnnLibrary lib = load_cudnn_library("");
  if (lib) {
    EXPECT_GE(lib.version, kMinCudnnVersion);
    EXPECT_NE(lib.path.find("libcudnn"), std::string::npos) << lib.path;
    EXPECT_TRUE(lib.error.empty());
  } else {
    EXPECT_EQ(lib.error.rfind("libcudnn not found (set ANYDNN_CUDNN_LIBRARY): ", 0), 0u)
        << lib.error;
    EXPECT_NE(lib.error.find("/usr/local/cuda/lib64/libcudnn.so.9"), std::string::npos);
  }
}

}  // namespace
}  // namespace anydnn
