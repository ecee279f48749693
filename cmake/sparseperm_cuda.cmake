# CUDA setup: enabled only when a toolkit is present, architecture 90 by default, C++20 for nvcc.
#
# Sets SPARSEPERM_HAS_CUDA. Facts this works around (measured on CMake 3.25 and nvcc 13):
#  - CMAKE_CUDA_ARCHITECTURES=native is a hard error without a GPU, so default to 90 when unset;
#  - CMake 3.25.1 does not know how to pass C++20 to nvcc (CUDA_STANDARD 20 fails at generate time),
#    so tell it the flag after enable_language(CUDA).
include(CheckLanguage)
option(SPARSEPERM_ENABLE_CUDA "Build the CUDA parts when a CUDA toolkit is found" ON)
set(SPARSEPERM_HAS_CUDA OFF)
if(SPARSEPERM_ENABLE_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
    set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures (default: sm_90, Hopper)")
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(SPARSEPERM_HAS_CUDA ON)
    if(CMAKE_VERSION VERSION_LESS 3.26 AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
  else()
    message(STATUS "sparseperm: no CUDA compiler found; building the host parts only")
  endif()
endif()
