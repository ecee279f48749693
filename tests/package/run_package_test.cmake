# Installs the built project into a scratch prefix, then configures, builds and runs a consumer
# project against it with find_package(sparseperm CONFIG), with Boost hidden from it.
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_DIR=... -DCXX=... -P run_package_test.cmake
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(result)
    message(FATAL_ERROR "failed (${result}): ${ARGN}\n${output}")
  endif()
  message("${output}")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
# without Boost: only <sparseperm/hana.cuh> needs it, and the consumer does not include it. No build
# type (no optimisation): the test is that the package is found and works, and -O3 took 90 s of it.
step(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
     -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE= -DCMAKE_DISABLE_FIND_PACKAGE_Boost=TRUE)
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/consumer)
