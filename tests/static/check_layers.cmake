# The library's layers, lowest first: a header may include headers of its own layer and of layers below
# it, never above. Run as `cmake -DINCLUDE_DIR=<include> -P check_layers.cmake`; it fails naming every
# upward include. The top level (perm.cuh, compute.cuh, planner.cuh, permanent.cuh, pipeline.cuh) is
# the API and may include anything.
#
#   core       what every layer speaks: configuration, results, errors, progress
#   detail     private helpers: bits, text, hashes, file descriptors, threads, JSON writing
#   numeric    precision and arithmetics, accumulators, error bounds, 128-bit, residues, big integers
#   matrix     run-time matrices, Matrix Market, compile-time patterns
#   structure  matching, Dulmage-Mendelsohn blocks, degree reductions, frontier orders, structural rank
#   ryser      Gray code, launch plans, orderings, the plans and step loops of the Ryser engines
#   gpu        CUDA support and the kernel launcher
#   module     the per-matrix pipeline: code generation, modules, cache, compiler, proof, loaders
#   engines    one header per engine (a tag with its traits) and the catalog, the only list of them
set(layers core detail numeric matrix structure ryser gpu module engines)

if(NOT INCLUDE_DIR)
  message(FATAL_ERROR "check_layers.cmake: pass -DINCLUDE_DIR=<the include folder>")
endif()
set(root ${INCLUDE_DIR}/sparseperm)

function(layer_of path out)
  file(RELATIVE_PATH relative ${root} ${path})
  if(NOT relative MATCHES "/")
    set(${out} 1000 PARENT_SCOPE)  # the top level
    return()
  endif()
  string(REGEX REPLACE "/.*" "" folder ${relative})
  list(FIND layers ${folder} index)
  if(index EQUAL -1)
    message(SEND_ERROR "${relative}: the folder '${folder}' is not a layer (check_layers.cmake lists them)")
  endif()
  set(${out} ${index} PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE headers ${root}/*.cuh)
set(violations 0)
set(checked 0)
foreach(header IN LISTS headers)
  layer_of(${header} from)
  get_filename_component(directory ${header} DIRECTORY)
  file(STRINGS ${header} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  foreach(line IN LISTS lines)
    if(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
      get_filename_component(target ${directory}/${CMAKE_MATCH_1} ABSOLUTE)
    elseif(line MATCHES "#[ \t]*include[ \t]*<(sparseperm/[^>]+)>")
      set(target ${INCLUDE_DIR}/${CMAKE_MATCH_1})
    else()
      continue()
    endif()
    math(EXPR checked "${checked} + 1")
    file(RELATIVE_PATH shown_from ${root} ${header})
    file(RELATIVE_PATH shown_to ${root} ${target})
    if(NOT EXISTS ${target} OR shown_to MATCHES "^\\.\\.")
      message(SEND_ERROR "${shown_from}: includes ${shown_to}, which is not a header of the library")
      math(EXPR violations "${violations} + 1")
      continue()
    endif()
    layer_of(${target} to)
    if(to GREATER from)
      message(SEND_ERROR "${shown_from}: includes ${shown_to}, a higher layer (layers, lowest first: ${layers}; then the top level)")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH headers count)
if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include(s) against the layers")
endif()
message(STATUS "layers: ${count} headers, ${checked} includes, none upward")
