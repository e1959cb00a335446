# SPDX-License-Identifier: GPL-3.0-or-later
# Finds the engine's dependencies. Each is a Debian 12 package (scripts/setup.sh installs them)
# or, on machines without Debian packages, a prefix given through CMAKE_PREFIX_PATH.

# Eigen 3 (header-only): SVD for the separable method.
find_package(Eigen3 3.3 REQUIRED NO_MODULE)

# nlohmann/json and CLI11 (header-only).
find_package(nlohmann_json 3.9 REQUIRED)
find_package(CLI11 2.1 QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE "${CLI11_INCLUDE_DIR}")
endif()

# FFTW 3 single precision. Debian ships pkg-config files only. Its threads library is not
# needed: the FFT method runs its tiles on the engine's own pool, one transform per thread.
find_path(FFTW3F_INCLUDE_DIR fftw3.h REQUIRED)
find_library(FFTW3F_LIBRARY NAMES fftw3f REQUIRED)
add_library(convlab_fftw3f INTERFACE)
target_include_directories(convlab_fftw3f INTERFACE "${FFTW3F_INCLUDE_DIR}")
target_link_libraries(convlab_fftw3f INTERFACE "${FFTW3F_LIBRARY}")

find_package(Threads REQUIRED)

# OpenCV core/imgproc/imgcodecs. Debian's component -dev packages ship no CMake config, so try
# the config first (other distributions, pip-less builds) and fall back to find_path/find_library.
set(CONVLAB_HAVE_OPENCV OFF)
if(CONVLAB_WITH_OPENCV)
  find_package(OpenCV QUIET COMPONENTS core imgproc imgcodecs)
  add_library(convlab_opencv INTERFACE)
  if(OpenCV_FOUND)
    target_link_libraries(convlab_opencv INTERFACE opencv_core opencv_imgproc opencv_imgcodecs)
    set(CONVLAB_HAVE_OPENCV ON)
  else()
    find_path(OPENCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4)
    find_library(OPENCV_CORE_LIBRARY opencv_core)
    find_library(OPENCV_IMGPROC_LIBRARY opencv_imgproc)
    find_library(OPENCV_IMGCODECS_LIBRARY opencv_imgcodecs)
    if(OPENCV_INCLUDE_DIR AND OPENCV_CORE_LIBRARY AND OPENCV_IMGPROC_LIBRARY AND OPENCV_IMGCODECS_LIBRARY)
      target_include_directories(convlab_opencv SYSTEM INTERFACE "${OPENCV_INCLUDE_DIR}")
      target_link_libraries(convlab_opencv INTERFACE
        "${OPENCV_IMGCODECS_LIBRARY}" "${OPENCV_IMGPROC_LIBRARY}" "${OPENCV_CORE_LIBRARY}")
      set(CONVLAB_HAVE_OPENCV ON)
    else()
      message(FATAL_ERROR "OpenCV (core, imgproc, imgcodecs) not found: run scripts/setup.sh, "
                          "or configure with -DCONVLAB_WITH_OPENCV=OFF for .npy-only file I/O")
    endif()
  endif()
endif()

# CUDA: optional, detected. Static cudart and the runtime API only (never libcuda).
set(CONVLAB_HAVE_CUDA OFF)
if(NOT CONVLAB_WITH_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 75 80 86 89 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CONVLAB_HAVE_CUDA ON)
    # nvcc options that compile to LTO IR for every architecture the build targets (for code
    # that cuFFT links at run time); "native", "all" and the like give the range 75 to 90.
    set(CONVLAB_LTO_GENCODE "")
    foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
      string(REGEX REPLACE "-.*" "" arch "${arch}")
      if(arch MATCHES "^[0-9]+[a-z]?$")
        list(APPEND CONVLAB_LTO_GENCODE "-gencode=arch=compute_${arch},code=lto_${arch}")
      endif()
    endforeach()
    if(NOT CONVLAB_LTO_GENCODE)
      set(CONVLAB_LTO_GENCODE "-gencode=arch=compute_75,code=lto_75" "-gencode=arch=compute_90,code=lto_90")
    endif()
  elseif(CONVLAB_WITH_CUDA STREQUAL "ON")
    message(FATAL_ERROR "CONVLAB_WITH_CUDA=ON but no CUDA compiler was found")
  endif()
endif()

# Qt 6 is needed by the tests and the GUI only.
if(CONVLAB_WITH_GUI)
  find_package(Qt6 6.2 REQUIRED COMPONENTS Core Gui Widgets OpenGL OpenGLWidgets Test)
elseif(CONVLAB_WITH_TESTS)
  find_package(Qt6 6.2 REQUIRED COMPONENTS Core Test)
endif()
if(CONVLAB_WITH_GUI OR CONVLAB_WITH_TESTS)
  set(CMAKE_AUTOMOC ON)
  set(CMAKE_AUTORCC ON)
endif()
