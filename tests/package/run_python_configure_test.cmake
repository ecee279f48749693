# The Python package's configure (as `pip install ./tools/python` runs it, SKBUILD) and the tool's,
# on a machine whose Open MPI wrapper names headers that are not installed (openmpi-bin without
# libopenmpi-dev): the package never looks for MPI, and the tool's build notes that MPI is missing.
#   cmake -DSOURCE_DIR=... -DWORK_DIR=... -DPYTHON=... -P run_python_configure_test.cmake
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/bin)
set(wrapper_flags "-I${WORK_DIR}/missing/include -pthread -L${WORK_DIR}/missing/lib -lmpi")
file(WRITE ${WORK_DIR}/bin/mpicxx "#!/bin/sh
# Open MPI's wrapper without its development package: it still names the headers' folder.
case \"$1\" in
  --showme:incdirs) echo ${WORK_DIR}/missing/include ;;
  --showme:libdirs) echo ${WORK_DIR}/missing/lib ;;
  --showme:libs) echo mpi ;;
  --showme:version) echo 'mpicxx: Open MPI 4.1.4 (Language: C++)' ;;
  --showme*) echo c++ ${wrapper_flags} ;;
  *) exec c++ ${wrapper_flags} \"$@\" ;;
esac
")
file(CHMOD ${WORK_DIR}/bin/mpicxx PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)

# configure_with NAME ARGS...: with the broken wrapper first on PATH (where FindMPI looks), without
# CUDA; fails the test unless the configure passes; its output in NAME_output.
function(configure_with name)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PATH=${WORK_DIR}/bin:$ENV{PATH} ${CMAKE_COMMAND} -S ${SOURCE_DIR}
                          -B ${WORK_DIR}/${name} -DSPARSEPERM_ENABLE_CUDA=OFF ${ARGN}
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(result)
    message(FATAL_ERROR "${name}: the configure failed (${result}):\n${output}")
  endif()
  set(${name}_output "${output}" PARENT_SCOPE)
endfunction()

configure_with(python -DSKBUILD=ON -DPython_EXECUTABLE=${PYTHON} -DSPARSEPERM_BUILD_TESTS=OFF
               -DSPARSEPERM_BUILD_EXAMPLES=OFF)
if(python_output MATCHES "Found MPI|find MPI")
  message(FATAL_ERROR "the Python package's configure looked for MPI:\n${python_output}")
endif()
# the wrapper named, as on a machine where it is the only MPI (here the real one may be installed)
configure_with(tool -DSPARSEPERM_BUILD_TESTS=OFF -DSPARSEPERM_BUILD_EXAMPLES=OFF -DSPARSEPERM_BUILD_PYTHON=OFF
               -DMPI_CXX_COMPILER=${WORK_DIR}/bin/mpicxx)
if(NOT tool_output MATCHES "sparseperm: no MPI found; the tool runs as one process")
  message(FATAL_ERROR "the tool's configure did not note the missing MPI:\n${tool_output}")
endif()
message("the Python package's configure passed without looking for MPI; the tool's noted: no MPI found")
