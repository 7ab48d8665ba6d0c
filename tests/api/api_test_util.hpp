// Helpers for tests that use only the public C API: RAII owners for handles and descriptors,
// and a check that a failing call left a one-line reason in the log.
#pragma once

#include <gtest/gtest.h>
#include <miopen/miopen.h>

#include <string>
#include <vector>

namespace anydnn::test {

struct Handle {
  miopenHandle_t h = nullptr;
  Handle() { EXPECT_EQ(miopenCreate(&h), miopenStatusSuccess); }
  ~Handle() { miopenDestroy(h); }
  operator miopenHandle_t() const { return h; }
};

struct Tensor {
  miopenTensorDescriptor_t d = nullptr;
  Tensor() { EXPECT_EQ(miopenCreateTensorDescriptor(&d), miopenStatusSuccess); }
  Tensor(miopenDataType_t t, std::vector<int> lens) : Tensor() {
    EXPECT_EQ(miopenSetTensorDescriptor(d, t, static_cast<int>(lens.size()), lens.data(), nullptr),
              miopenStatusSuccess);
  }
  ~Tensor() { miopenDestroyTensorDescriptor(d); }
  operator miopenTensorDescriptor_t() const { return d; }
};

struct Conv {
  miopenConvolutionDescriptor_t d = nullptr;
  Conv(int pad = 0, int stride = 1, int dil = 1, int groups = 1) {
    EXPECT_EQ(miopenCreateConvolutionDescriptor(&d), miopenStatusSuccess);
    EXPECT_EQ(
        miopenInitConvolutionDescriptor(d, miopenConvolution, pad, pad, stride, stride, dil, dil),
        miopenStatusSuccess);
    EXPECT_EQ(miopenSetConvolutionGroupCount(d, groups), miopenStatusSuccess);
  }
  ~Conv() { miopenDestroyConvolutionDescriptor(d); }
  operator miopenConvolutionDescriptor_t() const { return d; }
};

struct Rnn {
  miopenRNNDescriptor_t d = nullptr;
  Rnn() { EXPECT_EQ(miopenCreateRNNDescriptor(&d), miopenStatusSuccess); }
  ~Rnn() { miopenDestroyRNNDescriptor(d); }
  operator miopenRNNDescriptor_t() const { return d; }
};

struct Seq {
  miopenSeqTensorDescriptor_t d = nullptr;
  Seq() { EXPECT_EQ(miopenCreateSeqTensorDescriptor(&d), miopenStatusSuccess); }
  ~Seq() { miopenDestroySeqTensorDescriptor(d); }
  operator miopenSeqTensorDescriptor_t() const { return d; }
};

struct Dropout {
  miopenDropoutDescriptor_t d = nullptr;
  Dropout() { EXPECT_EQ(miopenCreateDropoutDescriptor(&d), miopenStatusSuccess); }
  ~Dropout() { miopenDestroyDropoutDescriptor(d); }
  operator miopenDropoutDescriptor_t() const { return d; }
};

struct Activ {
  miopenActivationDescriptor_t d = nullptr;
  Activ(miopenActivationMode_t m, double a, double b, double g) {
    EXPECT_EQ(miopenCreateActivationDescriptor(&d), miopenStatusSuccess);
    EXPECT_EQ(miopenSetActivationDescriptor(d, m, a, b, g), miopenStatusSuccess);
  }
  ~Activ() { miopenDestroyActivationDescriptor(d); }
  operator miopenActivationDescriptor_t() const { return d; }
};

// Runs `call`, expects `status`, and expects exactly that function to have logged an Error line
// with a reason containing `reason`.
template <class F>
void expect_failure(miopenStatus_t status, const std::string& function, const std::string& reason,
                    F&& call) {
  testing::internal::CaptureStderr();
  const miopenStatus_t got = call();
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(got, status) << "log: " << log;
  const std::string prefix = "MIOpen(CPU): Error [" + function + "] MIOpen Error: ";
  EXPECT_NE(log.find(prefix), std::string::npos) << "log: " << log;
  EXPECT_NE(log.find(reason), std::string::npos) << "expected '" << reason << "' in: " << log;
}

}  // namespace anydnn::test
