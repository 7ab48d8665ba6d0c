// Split-K for CUTLASS's sm90 backward-weights convolution (ImplicitGemmWgmmaWrw*): its only
// schedule is a non-persistent kernel with one thread block per output tile, and backward
// weights has few output tiles (K x C*R*S: 9 tiles of 128x64 for a 64->64 3x3 layer) and a long
// reduction (N*P*Q = 100,352 at 56x56, N=32), so without a split it runs 9 blocks on 132
// multiprocessors. Here grid z splits the reduction: block (m, n, s) sums k tiles
// [s*per, (s+1)*per) and writes its fp32 partial tile into slice s of the workspace; a second
// kernel adds the slices in order (same bits every run) into the filter's element type
// (gemm_util.hpp sum_float_slices).
//
// The kernel body is CUTLASS 4.2's GemmUniversal for KernelTmaWarpSpecialized
// (cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized.hpp, BSD-3-Clause, NVIDIA), which the sm90
// convolutions instantiate, with two changes: the k tile range comes from blockIdx.z, and the
// epilogue writes to slice s by seeing the partials as one tensor of S * m_tiles * tile_m rows
// (its parameters are built for that shape on the host, see SplitKLauncher) at row tile
// m + s * m_tiles. Everything else (pipelines, warp roles, TMA) is CUTLASS's, untouched.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>

#include "backend/cuda/conv/cost_model.hpp"
#include "backend/cuda/cuda_check.hpp"
// First: CUTLASS's headers below use it without including it.
#include "cutlass/kernel_hardware_info.hpp"

#include "cute/arch/cluster_sm90.hpp"
#include "cute/tensor.hpp"
#include "cutlass/arch/grid_dependency_control.h"
#include "cutlass/conv/detail.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "cutlass/pipeline/pipeline.hpp"

namespace anydnn::cuda::wgmma {

template <class Base>
struct SplitKConvKernel : Base {
  using typename Base::ClusterShape;
  using typename Base::CollectiveEpilogue;
  using typename Base::CollectiveMainloop;
  using typename Base::Params;
  using typename Base::SharedStorage;
  using typename Base::TiledMma;
  using typename Base::TileShape;
  static_assert(cute::size(ClusterShape{}) == 1, "split-K is written for 1x1x1 clusters");

  // per_split: k tiles a split sums; m_tiles: the real problem's row tiles (a slice's height in
  // the epilogue's stacked view).
  CUTLASS_DEVICE void run(Params const& params, char* smem_buf, int per_split, int m_tiles) {
    using namespace cute;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    enum class WarpGroupRole { Producer = 0, Consumer = 1 };
    enum class ProducerWarpRole { MainloopEpilogue = 0, Warp1 = 1, Warp2 = 2, Warp3 = 3 };
    SharedStorage& shared_storage = *reinterpret_cast<SharedStorage*>(smem_buf);
    const int thread_idx = int(threadIdx.x);
    const int lane_idx = cutlass::canonical_lane_idx();
    const int warp_idx = cutlass::canonical_warp_idx_sync();
    const int warp_idx_in_warp_group = warp_idx % cutlass::NumWarpsPerWarpGroup;
    const int warp_group_thread_idx = thread_idx % cutlass::NumThreadsPerWarpGroup;
    const auto warp_group_role = WarpGroupRole(cutlass::canonical_warp_group_idx());
    const auto producer_warp_role = ProducerWarpRole(warp_idx_in_warp_group);
    const int lane_predicate = cute::elect_one_sync();
    const uint32_t block_rank_in_cluster = cute::block_rank_in_cluster();
    if ((warp_idx == 0) && lane_predicate) {
      CollectiveMainloop::prefetch_tma_descriptors(params.mainloop);
      CollectiveEpilogue::prefetch_tma_descriptors(params.epilogue);
    }
    using MainloopPipeline = typename CollectiveMainloop::MainloopPipeline;
    typename MainloopPipeline::Params mainloop_pipeline_params;
    if (warp_group_role == WarpGroupRole::Producer &&
        producer_warp_role == ProducerWarpRole::MainloopEpilogue)
      mainloop_pipeline_params.role = MainloopPipeline::ThreadCategory::Producer;
    if (warp_group_role == WarpGroupRole::Consumer)
      mainloop_pipeline_params.role = MainloopPipeline::ThreadCategory::Consumer;
    mainloop_pipeline_params.is_leader = warp_group_thread_idx == 0;
    mainloop_pipeline_params.num_consumers = cutlass::NumThreadsPerWarpGroup;
    mainloop_pipeline_params.transaction_bytes = params.mainloop.tma_transaction_bytes;
    MainloopPipeline mainloop_pipeline(shared_storage.pipelines.mainloop, mainloop_pipeline_params,
                                       ClusterShape{});
    using EpiLoadPipeline = typename CollectiveEpilogue::LoadPipeline;
    typename EpiLoadPipeline::Params epi_load_pipeline_params;
    if (warp_group_role == WarpGroupRole::Producer &&
        producer_warp_role == ProducerWarpRole::MainloopEpilogue)
      epi_load_pipeline_params.role = EpiLoadPipeline::ThreadCategory::Producer;
    if (warp_group_role == WarpGroupRole::Consumer)
      epi_load_pipeline_params.role = EpiLoadPipeline::ThreadCategory::Consumer;
    epi_load_pipeline_params.dst_blockid = cute::block_rank_in_cluster();
    epi_load_pipeline_params.producer_arv_count = cutlass::NumThreadsPerWarp;
    epi_load_pipeline_params.consumer_arv_count = cutlass::NumThreadsPerWarpGroup;
    if constexpr (CollectiveEpilogue::RequiresTransactionBytes)
      epi_load_pipeline_params.transaction_bytes = params.epilogue.tma_transaction_bytes;
    EpiLoadPipeline epi_load_pipeline(shared_storage.pipelines.epi_load, epi_load_pipeline_params);
    using EpiStorePipeline = typename CollectiveEpilogue::StorePipeline;
    typename EpiStorePipeline::Params epi_store_pipeline_params;
    epi_store_pipeline_params.always_wait = true;
    EpiStorePipeline epi_store_pipeline(epi_store_pipeline_params);
    typename CollectiveMainloop::PipelineState mainloop_pipe_consumer_state;
    typename CollectiveEpilogue::LoadPipelineState epi_load_pipe_consumer_state;
    auto mainloop_pipe_producer_state = cutlass::make_producer_start_state<MainloopPipeline>();
    auto epi_load_pipe_producer_state = cutlass::make_producer_start_state<EpiLoadPipeline>();
    auto epi_store_pipe_producer_state = cutlass::make_producer_start_state<EpiStorePipeline>();
    __syncthreads();  // the pipelines' initialisation, visible to every warp (1x1x1 cluster)

    const auto blk_shape = TileShape{};
    TiledMma tiled_mma;
    const auto problem_shape_MNKL = append<4>(params.problem_shape, cute::Int<1>{});
    CollectiveMainloop collective_mainloop;
    CollectiveEpilogue collective_epilogue(params.epilogue, shared_storage.tensors.epilogue);
    auto load_inputs = collective_mainloop.load_init(problem_shape_MNKL, params.mainloop);
    Tensor gA_mkl = get<0>(load_inputs);
    Tensor gB_nkl = get<1>(load_inputs);
    const auto m_coord = idx2crd(int(blockIdx.x), shape<2>(gA_mkl));
    const auto n_coord = idx2crd(int(blockIdx.y), shape<2>(gB_nkl));
    const auto blk_coord = make_coord(m_coord, n_coord, _, cute::Int<0>{});
    // This split's k tiles (the host sizes the grid so that every split has at least one).
    const int k_tiles = int(size<3>(gA_mkl));
    const int k_start = int(blockIdx.z) * per_split;
    const int k_tile_count = cute::min(per_split, k_tiles - k_start);
    auto k_tile_iter =
        cute::make_coord_iterator(idx2crd(k_start, shape<3>(gA_mkl)), shape<3>(gA_mkl));
    // The epilogue's view: slices stacked along M, slice s at row tile m + s * m_tiles.
    auto epi_problem = problem_shape_MNKL;
    get<0>(epi_problem) = int(gridDim.z) * m_tiles * int(size<0>(blk_shape));
    const auto epi_coord =
        make_coord(int(m_coord) + int(blockIdx.z) * m_tiles, n_coord, _, cute::Int<0>{});

    if (warp_group_role == WarpGroupRole::Producer) {
      if (producer_warp_role == ProducerWarpRole::MainloopEpilogue) {
        cutlass::arch::wait_on_dependent_grids();
        collective_mainloop.load(params.mainloop, mainloop_pipeline, mainloop_pipe_producer_state,
                                 load_inputs, blk_coord, k_tile_iter, k_tile_count, lane_idx,
                                 block_rank_in_cluster, shared_storage.tensors.mainloop);
        mainloop_pipe_producer_state.advance(k_tile_count);
        collective_mainloop.load_tail(mainloop_pipeline, mainloop_pipe_producer_state);
        if (collective_epilogue.is_producer_load_needed()) {
          __syncwarp();
          epi_load_pipe_producer_state = collective_epilogue.load(
              epi_load_pipeline, epi_load_pipe_producer_state, epi_problem, blk_shape, epi_coord,
              tiled_mma, lane_idx, shared_storage.tensors.epilogue);
          collective_epilogue.load_tail(epi_load_pipeline, epi_load_pipe_producer_state);
        }
      }
    } else if (warp_group_role == WarpGroupRole::Consumer) {
      Tensor accumulators = partition_fragment_C(tiled_mma, take<0, 2>(blk_shape));
      collective_mainloop.mma(mainloop_pipeline, mainloop_pipe_consumer_state, accumulators,
                              k_tile_count, warp_group_thread_idx, shared_storage.tensors.mainloop,
                              params.mainloop);
      collective_mainloop.mma_tail(mainloop_pipeline, mainloop_pipe_consumer_state, k_tile_count);
      cutlass::arch::launch_dependent_grids();
      auto [epi_load_next, epi_store_next] = collective_epilogue.store(
          epi_load_pipeline, epi_load_pipe_consumer_state, epi_store_pipeline,
          epi_store_pipe_producer_state, epi_problem, blk_shape, epi_coord, accumulators, tiled_mma,
          warp_group_thread_idx, shared_storage.tensors.epilogue);
      collective_epilogue.store_tail(epi_load_pipeline, epi_load_next, epi_store_pipeline,
                                     epi_store_next);
    }
#endif
  }
};

template <class K>
__global__ void __launch_bounds__(K::MaxThreadsPerBlock, K::MinBlocksPerMultiprocessor)
    split_k_conv_kernel(CUTLASS_GRID_CONSTANT typename K::Params const params, int per_split,
                        int m_tiles) {
  extern __shared__ char smem[];
  K op;
  op.run(params, smem, per_split, m_tiles);
}

// The split for a reduction of k_tiles tiles over `tiles` output tiles, on a device of these
// rates, one block per multiprocessor (these kernels fill shared memory): the count with the
// least modelled time, at least two k tiles a split, at most 64 splits; then the per-split tile
// count and the splits that count really needs (no empty split). A block sums `per` k tiles of
// tile_flops each at a multiprocessor's share of the tensor rate, plus a fixed cost (prologue,
// epilogue, the wave's tail); each split adds an fp32 partial of slice_bytes, written once and
// read once by the sum. (The first model, waves x per with 2% a split, ignored that traffic and
// split the 512-channel 3x3 layers at 7x7 five ways: 94 MB of partials, 2.7x cuDNN's time.)
struct Split {
  int per = 1, count = 1;
};
inline constexpr double kSplitBlockEfficiency = 0.6;
inline constexpr double kSplitBlockFixedMs = 0.002;
inline Split choose_split(long long tiles, long long k_tiles, const DeviceRates& r,
                          double tile_flops, double slice_bytes) {
  Split best{static_cast<int>(std::max(1LL, k_tiles)), 1};
  if (tiles <= 0 || k_tiles <= 0) return best;
  const long long sms = std::max(1LL, static_cast<long long>(r.sms));
  const double tile_ms =
      tile_flops / (r.tensor16_tflops * 1e12 / static_cast<double>(sms) * kSplitBlockEfficiency) *
      1e3;
  const double slice_ms = 2.0 * slice_bytes / (r.dram_gbs * 1e9) * 1e3;
  double best_ms = 1e300;
  const long long most = std::min(64LL, std::max(1LL, k_tiles / 2));
  for (long long s = 1; s <= most; ++s) {
    const long long per = (k_tiles + s - 1) / s;
    const long long count = (k_tiles + per - 1) / per;
    const double waves = static_cast<double>((tiles * count + sms - 1) / sms);
    const double ms = waves * (static_cast<double>(per) * tile_ms + kSplitBlockFixedMs) +
                      (count > 1 ? static_cast<double>(count) * slice_ms + kLaunchMs : 0.0);
    if (ms < best_ms) {
      best_ms = ms;
      best = Split{static_cast<int>(per), static_cast<int>(count)};
    }
  }
  return best;
}

}  // namespace anydnn::cuda::wgmma
