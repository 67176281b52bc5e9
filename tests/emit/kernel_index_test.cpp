// Which runtime files a module needs (emit/kernel_index.h): the closure over the
// symbol index, its fallbacks, and the real index the build writes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "emit/kernel_index.h"
#include "util/paths.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

// A scratch runtime tree with empty .c files at the given relative paths.
struct FakeCrt {
  fs::path dir = fs::temp_directory_path() / ("kiln-kindex-" + std::to_string(::getpid()));
  explicit FakeCrt(std::initializer_list<const char*> files) {
    fs::remove_all(dir);
    for (const char* f : files) {
      fs::create_directories((dir / f).parent_path());
      std::ofstream(dir / f) << "\n";
    }
  }
  ~FakeCrt() { fs::remove_all(dir); }
};

const char* kIndex =
    "# comment\n"
    "src/runtime/kiln_crt.c\tkiln_execute kiln_check_ptr\tmemcpy\n"
    "src/kernels/conv.c\tkiln_conv2d_f32\tkiln_im2col_f32 sqrtf\n"
    "src/kernels/im2col.c\tkiln_im2col_f32\t\n"
    "src/kernels/relu.c\tkiln_relu_f32\t\n"
    "src/kernels/s8/conv_s8.c\tkiln_conv2d_s8\tkiln_requantize_s8\n"
    "src/kernels/s8/requant.c\tkiln_requantize_s8\t\n";

TEST(KernelIndex, RuntimeCalledKernelsAndWhatTheyCall) {
  FakeCrt crt({"src/runtime/kiln_crt.c", "src/kernels/conv.c", "src/kernels/im2col.c", "src/kernels/relu.c",
               "src/kernels/s8/conv_s8.c", "src/kernels/s8/requant.c"});
  KernelIndex k = KernelIndex::parse(kIndex);
  // kiln_cnn_run / kiln_status_t are the module's own names or types: no file.
  auto files = k.needed_files(crt.dir, {"kiln_status_t kiln_cnn_run(void) { return kiln_conv2d_f32(a, b); }"});
  EXPECT_EQ(files, (std::vector<std::string>{"src/kernels/conv.c", "src/kernels/im2col.c", "src/runtime/kiln_crt.c"}));
  files = k.needed_files(crt.dir, {"x = kiln_conv2d_s8(p);", "kiln_relu_f32(q)"});
  EXPECT_EQ(files, (std::vector<std::string>{"src/kernels/relu.c", "src/kernels/s8/conv_s8.c",
                                             "src/kernels/s8/requant.c", "src/runtime/kiln_crt.c"}));
  // A name that only starts like a kernel is not that kernel.
  files = k.needed_files(crt.dir, {"kiln_relu_f32x(q)"});
  EXPECT_EQ(files, (std::vector<std::string>{"src/runtime/kiln_crt.c"}));
}

TEST(KernelIndex, AnythingTheIndexCannotVouchForTakesEveryFile) {
  const std::vector<std::string> module = {"kiln_relu_f32(q)"};
  {
    // A runtime file added after the index was written may define what is called.
    FakeCrt crt({"src/runtime/kiln_crt.c", "src/kernels/conv.c", "src/kernels/im2col.c", "src/kernels/relu.c",
                 "src/kernels/s8/conv_s8.c", "src/kernels/s8/requant.c", "src/kernels/s8/new_kernel.c"});
    EXPECT_EQ(KernelIndex::parse(kIndex).needed_files(crt.dir, module).size(), 7u);
  }
  {
    // No index at all.
    FakeCrt crt({"src/runtime/kiln_crt.c", "src/kernels/relu.c", "src/kernels/conv.c"});
    EXPECT_TRUE(KernelIndex::load("").empty());
    EXPECT_TRUE(KernelIndex::load(crt.dir / "no-such-index.txt").empty());
    EXPECT_EQ(KernelIndex::load("").needed_files(crt.dir, module).size(), 3u);
  }
  {
    // The index describes another tree (a needed file is not there).
    FakeCrt crt({"src/runtime/kiln_crt.c", "src/kernels/conv.c"});
    EXPECT_EQ(KernelIndex::parse(kIndex).needed_files(crt.dir, {"kiln_conv2d_f32(a)"}).size(), 2u);
  }
}

// The index the build wrote covers every runtime file of this tree, and a
// softmax call needs softmax.c and the runtime.
TEST(KernelIndex, BuiltIndexCoversTheRuntime) {
  fs::path file = kernel_index_file();
  ASSERT_FALSE(file.empty()) << "crt/kernel_index.txt was not built";
  KernelIndex k = KernelIndex::load(file);
  fs::path crt = kiln_home() / "crt";
  std::vector<std::string> all = all_runtime_files(crt);
  auto files = k.needed_files(crt, {"status = kiln_softmax_f32(x);"});
  ASSERT_LT(files.size(), all.size()) << "the index does not know every runtime file (stale build?)";
  EXPECT_NE(std::find(files.begin(), files.end(), "src/kernels/softmax.c"), files.end());
  EXPECT_NE(std::find(files.begin(), files.end(), "src/runtime/kiln_crt.c"), files.end());
}

}  // namespace
}  // namespace kiln
