#!/usr/bin/env bash
# Quick start on a fresh Debian machine (with the CUDA toolkit for the GPU parts).
#
#   tools/quickstart.sh run    install what is missing, build the tool and the generator only, compute the
#                              permanent of a bundled example
#   tools/quickstart.sh test   install what is missing (Open MPI for the tests of mpirun; nanobind and
#                              the Python tests' packages with pip), build everything, run the whole
#                              test suite
#
# The build goes to ./build (or $SPARSEPERM_BUILD_DIR), with Ninja and ccache where they are installed
# (`test` installs ccache: a later run in the same folder compiles only what changed). `run` builds
# the GPU engines where nvidia-smi lists a GPU, else the host compiler alone builds the CPU engines
# (nvcc's pass would double the build for engines that cannot run there); `test` compiles the CUDA
# code wherever nvcc is (without a GPU, the GPU test programs' device code only: they could not run).
# `test` ends with the ten slowest build steps and tests.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SPARSEPERM_BUILD_DIR:-$root/build}"
mode="${1:-run}"
jobs="$(nproc 2>/dev/null || echo 2)"

# install_missing [package...]: the build's packages and those named.
install_missing() {
  local packages=(cmake g++ ninja-build libboost-dev doctest-dev "$@") missing=() package
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

# A GPU is there when nvidia-smi lists one.
has_gpu() { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }

# configure_and_build CUDA [target...]: CUDA (ON or OFF) whether to build the CUDA parts where nvcc
# is; everything when no target is named. Ninja where the build folder is new (an existing one keeps
# its generator); ccache where it is installed.
configure_and_build() {
  local configure=(-DCMAKE_BUILD_TYPE=Release "-DSPARSEPERM_ENABLE_CUDA=$1")
  shift
  if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then configure+=(-G Ninja); fi
  if command -v ccache >/dev/null 2>&1; then
    configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  cmake -S "$root" -B "$build" "${configure[@]}" >/dev/null
  local targets=()
  (($#)) && targets=(--target "$@")
  cmake --build "$build" -j "$jobs" "${targets[@]}"
}

# The ten slowest build steps (Ninja's log) and tests (ctest's output in $1). `sed -n 1,10p` rather
# than head: head leaves before sort has written everything, and under pipefail sort's SIGPIPE
# (exit 141) became the script's status after every test had passed.
report_slowest() {
  if [ -f "$build/.ninja_log" ]; then
    echo
    echo "slowest build steps (seconds):"
    awk -F'\t' 'NR > 1 { printf "%8.1f  %s\n", ($2 - $1) / 1000, $4 }' "$build/.ninja_log" | sort -rn | sed -n 1,10p
  fi
  echo
  echo "slowest tests (seconds):"
  sed -nE 's/.*Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/p' "$1" | sort -rn | sed -n 1,10p |
    awk '{ printf "%8.1f  %s\n", $1, $2 }'
}

case "$mode" in
  run)
    install_missing
    find_cuda
    cuda=OFF
    if has_gpu; then
      cuda=ON
    elif command -v nvcc >/dev/null 2>&1; then
      echo "quickstart: no GPU found; building the CPU engines only"
    fi
    configure_and_build "$cuda" sparseperm_cli sparseperm_gen
    echo
    echo "\$ sparseperm compute examples/data/domino_8x6.mtx"
    "$build/tools/sparseperm" compute "$root/examples/data/domino_8x6.mtx"
    ;;
  test)
    install_missing openmpi-bin libopenmpi-dev python3-pip clang-format ccache
    install_python_packages
    find_cuda
    configure_and_build ON
    status=0
    ctest --test-dir "$build" --output-on-failure -j "$jobs" | tee "$build/ctest.log" || status=$?
    report_slowest "$build/ctest.log"
    exit "$status"
    ;;
  *)
    echo "usage: tools/quickstart.sh run|test" >&2
    exit 2
    ;;
esac
