# Third-party libraries. All come from Debian packages that .ci/run installs.
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(SQLite3 REQUIRED)  # the find-db

# OpenBLAS: prefer the OpenMP build so that its threads and ours share one libgomp pool
# (the pthread build spins its own pool and fights our OpenMP threads for the cores).
find_path(ANYDNN_CBLAS_INCLUDE_DIR cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-openmp /usr/include/openblas
  PATH_SUFFIXES openblas)
find_library(ANYDNN_OPENBLAS_LIBRARY NAMES openblas
  PATHS /usr/lib/x86_64-linux-gnu/openblas-openmp NO_DEFAULT_PATH)
if(NOT ANYDNN_OPENBLAS_LIBRARY)
  find_library(ANYDNN_OPENBLAS_LIBRARY NAMES openblas)
endif()
if(NOT ANYDNN_OPENBLAS_LIBRARY OR NOT ANYDNN_CBLAS_INCLUDE_DIR)
  message(FATAL_ERROR "OpenBLAS not found (apt-get install libopenblas-openmp-dev)")
endif()
add_library(anydnn_blas INTERFACE)
target_include_directories(anydnn_blas INTERFACE ${ANYDNN_CBLAS_INCLUDE_DIR})
target_link_libraries(anydnn_blas INTERFACE ${ANYDNN_OPENBLAS_LIBRARY})
message(STATUS "anydnn BLAS: ${ANYDNN_OPENBLAS_LIBRARY}")

# FFTW (single precision) for the FFT convolution solvers.
find_path(ANYDNN_FFTW_INCLUDE_DIR fftw3.h)
find_library(ANYDNN_FFTW3F_LIBRARY NAMES fftw3f)
if(NOT ANYDNN_FFTW_INCLUDE_DIR OR NOT ANYDNN_FFTW3F_LIBRARY)
  message(FATAL_ERROR "FFTW not found (apt-get install libfftw3-dev)")
endif()
add_library(anydnn_fftw INTERFACE)
target_include_directories(anydnn_fftw INTERFACE ${ANYDNN_FFTW_INCLUDE_DIR})
target_link_libraries(anydnn_fftw INTERFACE ${ANYDNN_FFTW3F_LIBRARY})
message(STATUS "anydnn FFTW: ${ANYDNN_FFTW3F_LIBRARY}")
