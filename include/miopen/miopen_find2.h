/* Find 2.0: problems, find options and solutions (MIOpen's signatures and enums). Included by
 * miopen.h inside its extern "C" block, after the softmax part (a softmax problem takes its
 * descriptor).
 *
 * A problem is an operator descriptor (copied when the problem is created), a direction and one
 * tensor descriptor per argument id (copied when set). miopenFindSolutions answers with one
 * solution per solver, measured on buffers the library allocates (or those attached to the
 * options), and a solution runs on any buffers of the problem's shapes, also after it was saved
 * to a blob and loaded back. Convolution problems go through the same solvers, Find and find-db
 * record as miopenFindConvolution*Algorithm (docs/find-and-heuristics.md, "Find 2.0"); softmax,
 * activation, bias and batch-norm problems, and fused problems, have solutions too
 * (docs/api-status.md says which). */
#ifndef MIOPEN_GUARD_MIOPEN_H_
#error "include <miopen/miopen.h> instead"
#endif
#ifndef MIOPEN_GUARD_MIOPEN_FIND2_H_
#define MIOPEN_GUARD_MIOPEN_FIND2_H_

MIOPEN_DECLARE_OBJECT(miopenMhaDescriptor);
MIOPEN_DECLARE_OBJECT(miopenProblem);

typedef enum {
  miopenProblemDirectionForward = 0,
  miopenProblemDirectionBackward = 1,
  miopenProblemDirectionBackwardWeights = 2,
#ifdef MIOPEN_BETA_API
  miopenProblemDirectionInference = 4,
#endif
} miopenProblemDirection_t;

/* ISO C wants every enumerator to fit an int: miopenTensorArgumentIsScalar (bit 31, MIOpen's
 * "1U << 31") is spelled as the int with that bit pattern there; C++ keeps MIOpen's spelling. */
#ifdef __cplusplus
#define MIOPEN_TENSOR_ARGUMENT_IS_SCALAR_ (1U << 31)
#else
#define MIOPEN_TENSOR_ARGUMENT_IS_SCALAR_ (-2147483647 - 1)
#endif

typedef enum {
  miopenTensorArgumentIdInvalid = 0,
  miopenTensorConvolutionX = 1,
  miopenTensorConvolutionW = 2,
  miopenTensorConvolutionY = 3,

  miopenTensorMhaK = 4,
  miopenTensorMhaQ = 5,
  miopenTensorMhaV = 6,
  miopenTensorMhaDescaleK = 7,
  miopenTensorMhaDescaleQ = 8,
  miopenTensorMhaDescaleV = 9,
  miopenTensorMhaDescaleS = 10,
  miopenTensorMhaScaleS = 11,
  miopenTensorMhaScaleO = 12,
  miopenTensorMhaDropoutProbability = 13,
  miopenTensorMhaDropoutSeed = 14,
  miopenTensorMhaDropoutOffset = 15,
  miopenTensorMhaO = 16,
  miopenTensorMhaAmaxO = 17,
  miopenTensorMhaAmaxS = 18,
  miopenTensorMhaM = 19,
  miopenTensorMhaZInv = 20,
  miopenTensorMhaDO = 21,
  miopenTensorMhaDescaleO = 22,
  miopenTensorMhaDescaleDO = 23,
  miopenTensorMhaDescaleDS = 24,
  miopenTensorMhaScaleDS = 25,
  miopenTensorMhaScaleDQ = 26,
  miopenTensorMhaScaleDK = 27,
  miopenTensorMhaScaleDV = 28,
  miopenTensorMhaDQ = 29,
  miopenTensorMhaDK = 30,
  miopenTensorMhaDV = 31,
  miopenTensorMhaAmaxDQ = 32,
  miopenTensorMhaAmaxDK = 33,
  miopenTensorMhaAmaxDV = 34,
  miopenTensorMhaAmaxDS = 35,
  miopenTensorMhaBias = 36,

#ifdef MIOPEN_BETA_API
  miopenTensorActivationX = 37,
  miopenTensorActivationY = 38,
  miopenTensorActivationDX = 39,
  miopenTensorActivationDY = 40,
  miopenTensorBiasX = 41,
  miopenTensorBiasY = 42,
  miopenTensorBias = 43,
  miopenTensorSoftmaxX = 44,
  miopenTensorSoftmaxY = 45,
  miopenTensorSoftmaxDX = 46,
  miopenTensorSoftmaxDY = 47,
  miopenTensorBatchnormX = 48,
  miopenTensorBatchnormY = 49,
  miopenTensorBatchnormRunningMean = 50,
  miopenTensorBatchnormRunningVariance = 51,
  miopenTensorBatchnormSavedMean = 52,
  miopenTensorBatchnormSavedVariance = 53,
  miopenTensorBatchnormScale = 54,
  miopenTensorBatchnormScaleDiff = 55,
  miopenTensorBatchnormEstimatedMean = 56,
  miopenTensorBatchnormEstimatedVariance = 57,
  miopenTensorBatchnormBias = 58,
  miopenTensorBatchnormBiasDiff = 59,
  miopenTensorBatchnormDX = 60,
  miopenTensorBatchnormDY = 61,
#endif

  miopenTensorArgumentIsScalar = MIOPEN_TENSOR_ARGUMENT_IS_SCALAR_,

  /* Scalars: passed to miopenRunSolution (or attached to the find options) as a pointer to a
   * host value, never given a tensor descriptor. The mask is a miopenMhaMask_t, the batch-norm
   * scalars doubles. */
  miopenTensorMhaMask = miopenTensorArgumentIsScalar | 1,
#ifdef MIOPEN_BETA_API
  miopenScalarBatchnormExpAvgFactor = miopenTensorArgumentIsScalar | 2,
  miopenScalarBatchnormEpsilon = miopenTensorArgumentIsScalar | 3,
#endif
} miopenTensorArgumentId_t;

#undef MIOPEN_TENSOR_ARGUMENT_IS_SCALAR_

typedef enum {
  miopenFindResultsOrderByTime = 0,
  miopenFindResultsOrderByWorkspaceSize = 1,
} miopenFindResultsOrder_t;

typedef enum {
  miopenMhaMaskNone = 0,
  miopenMhaMaskCausal = 1,
} miopenMhaMask_t;

/* A convolution problem: the descriptor is copied; X is the input of the user's convolution
 * (transposed or not), W the weights and Y its output, in every direction (backward data
 * writes X, backward weights W). */
MIOPEN_EXPORT miopenStatus_t miopenCreateConvProblem(miopenProblem_t* problem,
                                                     miopenConvolutionDescriptor_t operatorDesc,
                                                     miopenProblemDirection_t direction);
MIOPEN_EXPORT miopenStatus_t miopenCreateMhaProblem(miopenProblem_t* problem,
                                                    miopenMhaDescriptor_t operatorDesc,
                                                    miopenProblemDirection_t direction);

/* MIOpen has no destroy call for an MHA descriptor (nor for a softmax one). */
MIOPEN_EXPORT miopenStatus_t miopenCreateMhaDescriptor(miopenMhaDescriptor_t* mhaDesc);
MIOPEN_EXPORT miopenStatus_t miopenSetMhaDescriptor(miopenMhaDescriptor_t mhaDesc, float scale);
MIOPEN_EXPORT miopenStatus_t miopenGetMhaDescriptor(miopenMhaDescriptor_t mhaDesc, float* scale);

MIOPEN_EXPORT miopenStatus_t miopenDestroyProblem(miopenProblem_t problem);
/* Copies the descriptor for argument `id`. BadParm for an id the operator does not take, a
 * scalar id, an id set before, a fused problem, or a descriptor never set. */
MIOPEN_EXPORT miopenStatus_t
miopenSetProblemTensorDescriptor(miopenProblem_t problem, miopenTensorArgumentId_t id,
                                 const miopenTensorDescriptor_t descriptor);

MIOPEN_DECLARE_OBJECT(miopenFindOptions);

MIOPEN_EXPORT miopenStatus_t miopenCreateFindOptions(miopenFindOptions_t* options);
MIOPEN_EXPORT miopenStatus_t miopenDestroyFindOptions(miopenFindOptions_t options);
/* Non-zero: time every applicable solver (an exhaustive search, MIOPEN_FIND_MODE=NORMAL). */
MIOPEN_EXPORT miopenStatus_t miopenSetFindOptionTuning(miopenFindOptions_t options, int value);
MIOPEN_EXPORT miopenStatus_t miopenSetFindOptionResultsOrder(miopenFindOptions_t options,
                                                             miopenFindResultsOrder_t value);
/* Solvers needing more workspace are left out (default: no limit). */
MIOPEN_EXPORT miopenStatus_t miopenSetFindOptionWorkspaceLimit(miopenFindOptions_t options,
                                                               size_t value);
/* Find times on this workspace instead of allocating one; its size also limits the solvers. */
MIOPEN_EXPORT miopenStatus_t miopenSetFindOptionPreallocatedWorkspace(miopenFindOptions_t options,
                                                                      void* buffer, size_t size);
/* Find runs on this buffer for argument `id` instead of allocating one (its contents are
 * overwritten where the id is an output). For a scalar id: a pointer to the host value. */
MIOPEN_EXPORT miopenStatus_t miopenSetFindOptionPreallocatedTensor(miopenFindOptions_t options,
                                                                   miopenTensorArgumentId_t id,
                                                                   void* buffer);
/* Accepted and stored; there are no kernel binaries to attach (nothing is compiled at run time). */
MIOPEN_EXPORT miopenStatus_t miopenSetFindOptionAttachBinaries(miopenFindOptions_t options,
                                                               unsigned attach);

MIOPEN_DECLARE_OBJECT(miopenSolution);

/* Writes up to maxSolutions solutions (each to be destroyed with miopenDestroySolution) in the
 * order the options ask for; options may be NULL (defaults), numSolutions may be NULL. */
MIOPEN_EXPORT miopenStatus_t miopenFindSolutions(miopenHandle_t handle, miopenProblem_t problem,
                                                 miopenFindOptions_t options,
                                                 miopenSolution_t* solutions, size_t* numSolutions,
                                                 size_t maxSolutions);

/* One argument of miopenRunSolution: its id, optionally a pointer to a descriptor (it must equal
 * the problem's: overriding descriptors is not supported) and the buffer (device memory, or a
 * pointer to the host value for a scalar id). */
struct miopenTensorArgument_t {
  miopenTensorArgumentId_t id;
  miopenTensorDescriptor_t* descriptor;
  void* buffer;
};
/* MIOpen's header names the struct without a typedef, which only C++ accepts. */
typedef struct miopenTensorArgument_t miopenTensorArgument_t;

/* Runs the solution on every argument of its problem (each exactly once) with a workspace of
 * at least miopenGetSolutionWorkspaceSize bytes (workspace may be NULL when that is 0). */
MIOPEN_EXPORT miopenStatus_t miopenRunSolution(miopenHandle_t handle, miopenSolution_t solution,
                                               size_t nInputs,
                                               const miopenTensorArgument_t* tensors,
                                               void* workspace, size_t workspaceSize);
MIOPEN_EXPORT miopenStatus_t miopenDestroySolution(miopenSolution_t solution);
/* A solution from a blob miopenSaveSolution wrote (this library's format: VersionMismatch for
 * another format version, BadParm for anything else that is not such a blob). */
MIOPEN_EXPORT miopenStatus_t miopenLoadSolution(miopenSolution_t* solution, const char* data,
                                                size_t size);
/* Writes exactly miopenGetSolutionSize bytes to data. */
MIOPEN_EXPORT miopenStatus_t miopenSaveSolution(miopenSolution_t solution, char* data);
MIOPEN_EXPORT miopenStatus_t miopenGetSolutionSize(miopenSolution_t solution, size_t* size);
MIOPEN_EXPORT miopenStatus_t miopenGetSolutionWorkspaceSize(miopenSolution_t solution,
                                                            size_t* workspaceSize);
/* The time Find measured (ms), or the find-db record's when Find read it from there; negative
 * when nothing was measured (MIOPEN_FIND_MODE=FAST without a record). */
MIOPEN_EXPORT miopenStatus_t miopenGetSolutionTime(miopenSolution_t solution, float* time);
/* Convolution solutions: the solver's miopenConvSolution_t.solution_id. */
MIOPEN_EXPORT miopenStatus_t miopenGetSolutionSolverId(miopenSolution_t solution,
                                                       uint64_t* solverId);
/* InvalidValue for an id that is not a convolution solver's. */
MIOPEN_EXPORT miopenStatus_t miopenGetSolverIdConvAlgorithm(uint64_t solverId,
                                                            miopenConvAlgorithm_t* result);

#ifdef MIOPEN_BETA_API
MIOPEN_EXPORT miopenStatus_t
miopenCreateActivationProblem(miopenProblem_t* problem, miopenActivationDescriptor_t operatorDesc,
                              miopenProblemDirection_t direction);
MIOPEN_EXPORT miopenStatus_t miopenCreateBatchnormProblem(miopenProblem_t* problem,
                                                          miopenBatchNormMode_t mode,
                                                          bool runningMeanVariance,
                                                          miopenProblemDirection_t direction);
/* Appends problem2 (or its parts, when fused) to problem1, which becomes a fused problem;
 * problem2 is not consumed. Arguments a part leaves unset are taken from its neighbour (its
 * input from the previous part's output, its output like its input), as MIOpen does. */
MIOPEN_EXPORT miopenStatus_t miopenFuseProblems(miopenProblem_t problem1, miopenProblem_t problem2);
MIOPEN_EXPORT miopenStatus_t miopenCreateBiasProblem(miopenProblem_t* problem,
                                                     miopenProblemDirection_t direction);
MIOPEN_EXPORT miopenStatus_t miopenCreateSoftmaxProblem(miopenProblem_t* problem,
                                                        miopenSoftmaxDescriptor_t operatorDesc,
                                                        miopenProblemDirection_t direction);
#endif

#endif /* MIOPEN_GUARD_MIOPEN_FIND2_H_ */
