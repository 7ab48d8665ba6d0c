# Decides whether the CUDA backend is built. AUTO builds it when nvcc is found; CI has nvcc
# but no GPU, so there the backend is compiled and linked but never run.
include(CheckLanguage)
set(ANYDNN_CUDA_ENABLED OFF)
if(ANYDNN_WITH_CUDA STREQUAL "ON" OR ANYDNN_WITH_CUDA STREQUAL "AUTO")
  # Default sm_80 + sm_90; -DCMAKE_CUDA_ARCHITECTURES=... or CMake's CUDAARCHS environment
  # variable (which enable_language reads; CI sets it to one architecture) choose others.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND "$ENV{CUDAARCHS}" STREQUAL "")
    set(CMAKE_CUDA_ARCHITECTURES 80 90)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    # CMake 3.25 predates nvcc's C++20 support: teach it the flag.
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA_STANDARD 20)
    set(ANYDNN_CUDA_ENABLED ON)
  elseif(ANYDNN_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "ANYDNN_WITH_CUDA=ON but no CUDA compiler was found")
  endif()
endif()
message(STATUS "anydnn CUDA backend: ${ANYDNN_CUDA_ENABLED}")

# Header folders of PyPI packages (scripts/install-deps.sh installs them with the python3 on
# PATH). anydnn_pip_include(VAR PYTHON_CODE MARKER DOC): the cache entry VAR, when empty, is
# guessed by running PYTHON_CODE (which prints the folder, or nothing) on every configure, so
# installing the package later is enough; FOUND_VAR is ON when VAR/MARKER exists.
function(anydnn_pip_include var found_var python_code marker doc)
  if(NOT ${var})
    find_program(ANYDNN_PYTHON3 python3)
    if(ANYDNN_PYTHON3)
      execute_process(COMMAND ${ANYDNN_PYTHON3} -c "${python_code}"
        OUTPUT_VARIABLE guess OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    endif()
  endif()
  set(${var} "" CACHE PATH "${doc}")
  if(NOT ${var} AND guess)
    set(${var} "${guess}" CACHE PATH "${doc}" FORCE)
  endif()
  if(${var} AND EXISTS "${${var}}/${marker}")
    set(${found_var} ON PARENT_SCOPE)
  else()
    set(${found_var} OFF PARENT_SCOPE)
  endif()
endfunction()

# CUTLASS headers (PyPI nvidia-cutlass) for the tensor-core implicit-GEMM solvers. Without them
# those solvers are left out and the rest of the CUDA backend builds as before. find_spec
# locates the package without importing it (its import pulls numpy etc.).
set(ANYDNN_HAVE_CUTLASS OFF)
if(ANYDNN_CUDA_ENABLED)
  anydnn_pip_include(ANYDNN_CUTLASS_INCLUDE_DIR ANYDNN_HAVE_CUTLASS
    "import importlib.util, os; s = importlib.util.find_spec('cutlass_library'); print(os.path.join(list(s.submodule_search_locations)[0], 'source', 'include') if s else '')"
    cutlass/conv/device/implicit_gemm_convolution.h
    "CUTLASS include directory (holds cutlass/cutlass.h); empty: ask python3 for nvidia-cutlass")
  if(ANYDNN_HAVE_CUTLASS)
    message(STATUS "anydnn CUTLASS headers: ${ANYDNN_CUTLASS_INCLUDE_DIR}")
    # CUTLASS's sm90 convolution collectives include cutlass/util/packed_stride.hpp, which the
    # wheel keeps beside include/ in tools/util/include.
    get_filename_component(ANYDNN_CUTLASS_UTIL_INCLUDE_DIR
      "${ANYDNN_CUTLASS_INCLUDE_DIR}/../tools/util/include" ABSOLUTE)
    if(NOT EXISTS "${ANYDNN_CUTLASS_UTIL_INCLUDE_DIR}/cutlass/util/packed_stride.hpp")
      set(ANYDNN_CUTLASS_UTIL_INCLUDE_DIR "")
    endif()
  else()
    message(STATUS "anydnn CUTLASS headers: not found (pip install nvidia-cutlass, or set "
                   "ANYDNN_CUTLASS_INCLUDE_DIR); the CUDA tensor-core conv solvers are left out")
  endif()
endif()

# cuDNN frontend headers (PyPI nvidia-cudnn-frontend; the wheel puts them in an include/ folder
# beside its cudnn package) for the GPU benchmark's cuDNN peer (bench/gpu/gpu_cudnn_fe.cpp).
# Header-only; without them gpu_vs_cudnn falls back to cuDNN's legacy Find API. The library
# itself never uses them. The distribution's own file list first (no import: the package pulls
# in its compiled module), else the folder beside the cudnn package.
set(ANYDNN_HAVE_CUDNN_FRONTEND OFF)
if(ANYDNN_CUDA_ENABLED)
  anydnn_pip_include(ANYDNN_CUDNN_FRONTEND_INCLUDE_DIR ANYDNN_HAVE_CUDNN_FRONTEND
    "import importlib.metadata as m, importlib.util as u, os\ntry:\n    print(m.distribution('nvidia-cudnn-frontend').locate_file('include'))\nexcept Exception:\n    s = u.find_spec('cudnn')\n    print(os.path.join(os.path.dirname(list(s.submodule_search_locations)[0]), 'include') if s and s.submodule_search_locations else '')"
    cudnn_frontend.h
    "cuDNN frontend include directory (holds cudnn_frontend.h); empty: ask python3 for nvidia-cudnn-frontend")
  if(ANYDNN_HAVE_CUDNN_FRONTEND)
    message(STATUS "anydnn cuDNN frontend headers: ${ANYDNN_CUDNN_FRONTEND_INCLUDE_DIR}")
  else()
    message(STATUS "anydnn cuDNN frontend headers: not found (pip install nvidia-cudnn-frontend, or "
                   "set ANYDNN_CUDNN_FRONTEND_INCLUDE_DIR); gpu_vs_cudnn uses cuDNN's legacy API")
  endif()
endif()
