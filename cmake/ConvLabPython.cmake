# SPDX-License-Identifier: GPL-3.0-or-later
# The Python module (python/, nanobind): CONVLAB_WITH_PYTHON AUTO builds it when Python 3's
# development files and nanobind are found, ON requires them, OFF leaves it out. Without a
# Python_EXECUTABLE given, the repository's virtual environment (.venv, made by
# scripts/setup.sh with nanobind, numpy, scipy, dask and pytest) is used when it exists, so
# `./scripts/build.sh` finds nanobind there (its CMake directory: `python -m nanobind --cmake_dir`).
# Under scikit-build-core (pip install ./python) the interpreter and nanobind are pip's.
set(CONVLAB_WITH_PYTHON "AUTO" CACHE STRING "Python module convlab: AUTO (when Python dev and nanobind are found), ON, OFF")
set_property(CACHE CONVLAB_WITH_PYTHON PROPERTY STRINGS AUTO ON OFF)

set(CONVLAB_HAVE_PYTHON OFF)
if(NOT CONVLAB_WITH_PYTHON STREQUAL "OFF")
  set(convlab_python_why "")
  if(NOT DEFINED Python_EXECUTABLE AND EXISTS "${PROJECT_SOURCE_DIR}/.venv/bin/python")
    set(Python_EXECUTABLE "${PROJECT_SOURCE_DIR}/.venv/bin/python")
  endif()
  find_package(Python 3.8 QUIET COMPONENTS Interpreter Development.Module)
  if(NOT Python_FOUND)
    set(convlab_python_why "no Python 3 interpreter with development files (python3-dev)")
  else()
    if(NOT nanobind_DIR)
      execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
                      OUTPUT_VARIABLE convlab_nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                      RESULT_VARIABLE convlab_nanobind_rc ERROR_QUIET)
      if(convlab_nanobind_rc EQUAL 0)
        set(nanobind_DIR "${convlab_nanobind_dir}" CACHE PATH "nanobind's CMake directory" FORCE)
      endif()
    endif()
    find_package(nanobind CONFIG QUIET)
    if(NOT nanobind_FOUND)
      set(convlab_python_why "nanobind not found for ${Python_EXECUTABLE} (scripts/setup.sh installs it in .venv)")
    endif()
  endif()
  if(convlab_python_why STREQUAL "")
    set(CONVLAB_HAVE_PYTHON ON)
  elseif(CONVLAB_WITH_PYTHON STREQUAL "ON")
    message(FATAL_ERROR "CONVLAB_WITH_PYTHON=ON but ${convlab_python_why}")
  else()
    message(STATUS "ConvLab: Python module left out: ${convlab_python_why}")
  endif()
endif()
