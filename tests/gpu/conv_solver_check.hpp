// One convolution solver alone on one problem, for the per-kernel GPU tests
// (implicit_gemm_{tc,wgmma}_gpu_test.cpp): random inputs, a NaN-poisoned output and workspace,
// the double reference, and a second run that must give the same bits.
#pragma once

#include <gtest/gtest.h>

#include <random>

#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "conv_reference.hpp"
#include "conv_test_util.hpp"
#include "gpu/gpu_test_util.hpp"
#include "verify.hpp"

namespace anydnn::test {

// Runs `solver` alone on random inputs with a poisoned output and workspace: checked against the
// double reference, then run again for the same bits.
inline void run_and_check(const ExecutionContext& ctx, const driver::ConvSpec& spec,
                          const ConvProblem& p, const ConvSolver& solver, std::mt19937& rng,
                          double tolerance) {
  const ConvDirection dir = p.direction();
  driver::HostTensor x = host_tensor(p.x()), w = host_tensor(p.w()), y = host_tensor(p.y());
  driver::HostTensor* out = dir == ConvDirection::Forward        ? &y
                            : dir == ConvDirection::BackwardData ? &x
                                                                 : &w;
  for (driver::HostTensor* t : {&x, &w, &y})
    if (t != out) fill_random(*t, rng);
  const auto expected = conv_reference(p, conv_params(spec), x, w, y);

  DeviceTensor dx(x), dw(w), dy(y);
  DeviceTensor* dout = out == &x ? &dx : out == &w ? &dw : &dy;
  ASSERT_NE(dx.data(), nullptr);
  ASSERT_NE(dw.data(), nullptr);
  ASSERT_NE(dy.data(), nullptr);
  dout->poison();
  const size_t ws_size = solver.workspace_size(ctx, p);
  DeviceTensor ws(ws_size);
  ws.poison();  // the solver must not read workspace it did not write
  solver.make_invoker(ctx, p)(
      ConvBuffers{dx.data(), dw.data(), dy.data(), ws_size == 0 ? nullptr : ws.data(), ws_size});
  ASSERT_CUDA_OK(cudaGetLastError());
  dout->download(*out);
  ASSERT_CUDA_OK(cudaGetLastError());
  const double err = ref::relative_rms(expected, ref::to_logical(out->view()));
  EXPECT_LE(err, tolerance) << solver.name();

  // Deterministic (split-K included): a second run on a re-poisoned output, same bits.
  driver::HostTensor again = *out;
  dout->poison();
  solver.make_invoker(ctx, p)(
      ConvBuffers{dx.data(), dw.data(), dy.data(), ws_size == 0 ? nullptr : ws.data(), ws_size});
  ASSERT_CUDA_OK(cudaGetLastError());
  dout->download(again);
  ASSERT_CUDA_OK(cudaGetLastError());
  EXPECT_TRUE(again.bytes == out->bytes) << solver.name() << " is not deterministic";
}

}  // namespace anydnn::test
