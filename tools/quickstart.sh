#!/usr/bin/env bash
# Quick start on a fresh Debian machine (with the CUDA toolkit for the GPU parts).
#
#   tools/quickstart.sh run    install what is missing, build the tool and the generator only, compute the
#                              permanent of a bundled example
#   tools/quickstart.sh test   install what is missing (Open MPI for the tests of mpirun; nanobind and
#                              the Python tests' packages with pip), build everything, run the whole
#                              test suite
#
# The build goes to ./build (or $SPARSEPERM_BUILD_DIR). Without nvcc the host parts are built alone.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SPARSEPERM_BUILD_DIR:-$root/build}"
mode="${1:-run}"
jobs="$(nproc 2>/dev/null || echo 2)"

# install_missing [package...]: the build's packages and those named.
install_missing() {
  local packages=(cmake g++ make libboost-dev doctest-dev "$@") missing=() package
  if ! command -v dpkg >/dev/null 2>&1; then
    echo "quickstart: not a Debian system; make sure CMake >= 3.25, g++ >= 12, Boost >= 1.71 and doctest are installed"
    return
  fi
  for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if ((${#missing[@]})); then
    echo "quickstart: installing ${missing[*]}"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# The Python package's build and test requirements (nanobind; numpy, scipy, pytest, thewalrus for the
# tests). pip where it may install, else with --break-system-packages (Debian's own Python).
install_python_packages() {
  local packages=(nanobind numpy scipy pytest thewalrus)
  if ! command -v python3 >/dev/null 2>&1; then
    echo "quickstart: no python3; the Python package and its tests are left out"
    return
  fi
  if python3 -c "import nanobind, numpy, scipy, pytest, thewalrus" >/dev/null 2>&1; then return; fi
  echo "quickstart: installing ${packages[*]} with pip"
  python3 -m pip install -q "${packages[@]}" 2>/dev/null ||
    python3 -m pip install -q --break-system-packages "${packages[@]}" ||
    echo "quickstart: pip could not install ${packages[*]}; the Python package and its tests are left out"
}

find_cuda() {
  if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="/usr/local/cuda/bin:$PATH"
  fi
}

# configure_and_build [target...]: everything when no target is named.
configure_and_build() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  local targets=()
  (($#)) && targets=(--target "$@")
  cmake --build "$build" -j "$jobs" "${targets[@]}"
}

case "$mode" in
  run)
    install_missing
    find_cuda
    configure_and_build sparseperm_cli sparseperm_gen
    echo
    echo "\$ sparseperm compute examples/data/domino_8x6.mtx"
    "$build/tools/sparseperm" compute "$root/examples/data/domino_8x6.mtx"
    ;;
  test)
    install_missing openmpi-bin libopenmpi-dev python3-pip
    install_python_packages
    find_cuda
    configure_and_build
    ctest --test-dir "$build" --output-on-failure -j "$jobs"
    ;;
  *)
    echo "usage: tools/quickstart.sh run|test" >&2
    exit 2
    ;;
esac
