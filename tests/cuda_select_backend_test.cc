// The choice between the CPU and CUDA backends (kernels/select_backend.h), and the device-pointer
// kernels that the backend never reaches with a selection (it compacts rows on the host first).
// The selection tests run everywhere and check whichever side of "is there a GPU" this machine is
// on; the device tests report SKIPPED without a GPU or without CUDA in the build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/cost_formulas.h"
#include "kernels/cuda_backend.h"
#include "kernels/select_backend.h"
#include "tests/kernel_test_problems.h"

#if PSTWIN_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "kernels/cuda/device_kernels.h"
#endif

namespace pstwin {
namespace {

bool gpu_present(std::string* why) { return cuda_device_available(why); }

TEST(CudaBackendSelection, CpuIsAlwaysTheCpu) {
  std::string chosen;
  auto k = make_backend("cpu", &chosen);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name(), "cpu");
  EXPECT_EQ(chosen, "cpu");
}

TEST(CudaBackendSelection, AnUnknownDeviceIsAnErrorListingTheChoices) {
  try {
    make_backend("gpu", nullptr);
    FAIL() << "device 'gpu' was accepted";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("auto, cpu or cuda"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(is_device_name("CUDA"));
  EXPECT_TRUE(is_device_name("auto"));
}

TEST(CudaBackendSelection, CudaWithoutAGpuFailsNamingWhy) {
  std::string why;
  if (gpu_present(&why)) GTEST_SKIP() << "a GPU is present (" << why << "); CudaUsesTheGpu covers it";
  EXPECT_FALSE(why.empty());
  try {
    make_backend("cuda", nullptr);
    FAIL() << "device cuda was accepted without a GPU";
  } catch (const DeviceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("no GPU can be used"), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;  // the reason itself
  }
  if (!cuda_backend_compiled()) {
    EXPECT_EQ(make_cuda_backend(0), nullptr);
    EXPECT_NE(why.find("without CUDA"), std::string::npos) << why;
  }
}

TEST(CudaBackendSelection, AutoFallsBackToTheCpuAndSaysWhy) {
  std::string why;
  if (gpu_present(&why)) GTEST_SKIP() << "a GPU is present (" << why << "); AutoTakesTheGpu covers it";
  std::string chosen;
  auto k = make_backend("auto", &chosen);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name(), "cpu");
  EXPECT_EQ(chosen, "cpu; auto: " + why);
}

TEST(CudaBackendSelection, CudaUsesTheGpu) {
  std::string why;
  if (!gpu_present(&why)) GTEST_SKIP() << "no GPU: " << why;
  std::string chosen;
  auto k = make_backend("cuda", &chosen);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->name(), "cuda");
  EXPECT_EQ(chosen, "cuda (" + why + ")");
}

TEST(CudaBackendSelection, AutoTakesTheGpu) {
  std::string why;
  if (!gpu_present(&why)) GTEST_SKIP() << "no GPU: " << why;
  std::string chosen;
  auto k = make_backend("auto", &chosen);
  EXPECT_EQ(k->name(), "cuda");
  EXPECT_EQ(chosen.rfind("cuda (GPU 0: ", 0), 0u) << chosen;
}

#if PSTWIN_HAVE_CUDA

/// Device arrays for one test, freed at the end.
class DeviceArrays {
 public:
  ~DeviceArrays() {
    for (void* p : blocks_) cudaFree(p);
  }
  template <typename T>
  T* copy(const std::vector<T>& host) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, std::max<std::size_t>(1, host.size()) * sizeof(T)), cudaSuccess);
    blocks_.push_back(p);
    if (!host.empty()) cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
    return static_cast<T*>(p);
  }
  template <typename T>
  std::vector<T> read(const T* dev, std::size_t n) {
    std::vector<T> host(n);
    if (n > 0) {
      EXPECT_EQ(cudaMemcpy(host.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    return host;
  }

 private:
  std::vector<void*> blocks_;
};

// The device-pointer linear models with the whole matrix on the GPU and a row selection there
// (the path the backend does not take: it sends compacted rows). Same tolerances as
// cuda_kernels_test.cc.
TEST(CudaDeviceKernels, LinearModelsWithASelectionOnTheDeviceMatchTheCpu) {
  std::string why;
  if (!gpu_present(&why)) GTEST_SKIP() << "no GPU: " << why;
  const auto p = testing::random_problem(200, 47, 5, 77);
  std::vector<std::uint32_t> sel = {2, 199, 0, 3, 3, 150, 2, 17};
  auto cpu = make_cpu_backend();
  DeviceArrays dev;
  cuda::Workspace ws;
  for (bool sparse : {true, false}) {
    cuda::DeviceFeatures x;
    x.sparse = sparse;
    x.rows = p.rows;
    x.cols = p.cols;
    if (sparse) {
      x.row_ptr = dev.copy(p.row_ptr);
      x.col_idx = dev.copy(p.col_idx);
      x.values = dev.copy(p.values);
    } else {
      x.values = dev.copy(p.dense);
    }
    const double entries = cost::selected_entries(p.view(sparse), {sel.data(), sel.size()});
    const auto W = testing::random_vector(p.classes * (p.cols + 1), 0.5f, 5);
    std::vector<float> expected(W.size());
    LossStats cs;
    cpu->softmax(p.view(sparse), p.labels.data(), p.classes, {sel.data(), sel.size()}, W.data(), expected.data(), &cs);
    float* grad = dev.copy(std::vector<float>(W.size(), 1.0f));
    auto* stats = dev.copy(std::vector<cuda::DeviceStats>(1));
    cuda::softmax(x, dev.copy(p.labels), p.classes, dev.copy(sel), sel.size(), static_cast<std::size_t>(entries),
                  dev.copy(W), grad, stats, ws, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto got = dev.read(grad, W.size());
    const auto figures = dev.read(stats, 1)[0];
    EXPECT_NEAR(figures.loss_sum, cs.loss_sum, 1e-5 * cs.loss_sum);
    double scale = 0.0;
    for (float v : expected) scale = std::max(scale, static_cast<double>(std::fabs(v)));
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], expected[i], 1e-4 * scale) << i;
  }
}

// Device arrays that are not 16-byte aligned take the scalar loops instead of float4: same
// results, bit for bit (2 ulp allowed, as in cuda_kernels_test.cc).
TEST(CudaDeviceKernels, MisalignedArraysGiveTheCpuResults) {
  std::string why;
  if (!gpu_present(&why)) GTEST_SKIP() << "no GPU: " << why;
  auto cpu = make_cpu_backend();
  DeviceArrays dev;
  for (std::size_t n : {std::size_t{1}, std::size_t{1001}, std::size_t{70001}}) {
    const auto g = testing::random_vector(n + 1, 1.0f, 1), w0 = testing::random_vector(n + 1, 1.0f, 2);
    auto m0 = testing::random_vector(n + 1, 0.5f, 3), v0 = testing::random_vector(n + 1, 1.0f, 4);
    for (auto& x : v0) x = x * x;
    float* dw = dev.copy(w0) + 1;
    float* dm = dev.copy(m0) + 1;
    float* dv = dev.copy(v0) + 1;
    float* dacc = dev.copy(w0) + 1;
    const float* dg = dev.copy(g) + 1;
    cuda::axpy(dacc, dg, n, 0.3f, nullptr);
    cuda::adam_update(dw, dm, dv, dg, n, 1e-3f, 0.9f, 0.999f, 1e-8f, 2, 0.5f, nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    auto acc = w0, w = w0, m = m0, v = v0;
    cpu->axpy(acc.data() + 1, g.data() + 1, n, 0.3f);
    cpu->adam_update(w.data() + 1, m.data() + 1, v.data() + 1, g.data() + 1, n, 1e-3f, 0.9f, 0.999f, 1e-8f, 2,
                     0.5f);
    const std::vector<std::pair<const float*, const std::vector<float>*>> pairs = {
        {dacc, &acc}, {dw, &w}, {dm, &m}, {dv, &v}};
    for (const auto& [d, expected] : pairs) {
      const auto got = dev.read(d, n);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_NEAR(got[i], (*expected)[i + 1], 2.5e-7 * std::fabs((*expected)[i + 1])) << "n=" << n << " [" << i << "]";
    }
  }
}

TEST(CudaDeviceKernels, AnImpossibleAllocationIsAClearErrorNotACrash) {
  std::string why;
  if (!gpu_present(&why)) GTEST_SKIP() << "no GPU: " << why;
  cuda::DeviceBuffer huge;
  try {
    huge.reserve(std::size_t{1} << 52);  // 4 PiB
    FAIL() << "a 4 PiB allocation succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cudaMalloc"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("out of memory"), std::string::npos) << e.what();
  }
  huge.reserve(1024);  // the device is still usable afterwards
}

#else

TEST(CudaDeviceKernels, NeedACudaBuild) {
  GTEST_SKIP() << "this build has no CUDA support (nvcc was not found when it was configured)";
}

#endif

}  // namespace
}  // namespace pstwin
