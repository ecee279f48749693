# The library's layers, lowest first: a header may include headers of its own folder and of layers below
# it, never above, and never a sibling's (the algorithm families sit side by side). Run as
# `cmake -DINCLUDE_DIR=<include> -P check_layers.cmake`; it fails naming every include against the rules.
# The top level (perm.cuh, compute.cuh, planner.cuh, batch.cuh, permanent.cuh, permanent_cpu.cuh, pipeline.cuh,
# result_json.cuh, hana.cuh) is the API and may include anything.
#
#   core       what every layer speaks: configuration, results, errors, progress
#   detail     private helpers: bits, text, hashes, file descriptors, threads, JSON writing
#   numeric    one arithmetic vocabulary: precision, value types, accumulators, error bounds, 128-bit,
#              residues, big integers, complex numbers
#   matrix     run-time matrices, Matrix Market, compile-time patterns, row grids, and exactness (can
#              this matrix stay exact, in what)
#   structure  matching, Dulmage-Mendelsohn blocks, degree reductions, frontier orders, structural rank
#   run        the distributed runtime: chunk queue, dealing to ranks, record codec, journals
#   ryser | dp | glynn | reference
#              the algorithm families, siblings: none includes another
#   gpu        CUDA support, the kernel launcher and the families' kernels
#   module     the per-matrix pipeline: code generation, modules, cache, compiler, proof, loaders
#   engines    tags only: each engine's header includes engine.cuh and lower layers (not another
#              engine's), holds its traits and calls into a family, in at most 150 lines; catalog.cuh
#              is the one list of them
cmake_policy(SET CMP0057 NEW)  # IN_LIST
set(layers core detail numeric matrix structure run "ryser|dp|glynn|reference" gpu module engines)
set(tag_lines_limit 150)

if(NOT INCLUDE_DIR)
  message(FATAL_ERROR "check_layers.cmake: pass -DINCLUDE_DIR=<the include folder>")
endif()
set(root ${INCLUDE_DIR}/sparseperm)

# The rank of a header's layer (siblings share one) in `out`, its folder in `folder_out`.
function(layer_of path out folder_out)
  file(RELATIVE_PATH relative ${root} ${path})
  if(NOT relative MATCHES "/")
    set(${out} 1000 PARENT_SCOPE)  # the top level
    set(${folder_out} "" PARENT_SCOPE)
    return()
  endif()
  string(REGEX REPLACE "/.*" "" folder ${relative})
  set(rank 0)
  set(found -1)
  foreach(layer IN LISTS layers)
    string(REPLACE "|" ";" members "${layer}")
    if(folder IN_LIST members)
      set(found ${rank})
    endif()
    math(EXPR rank "${rank} + 1")
  endforeach()
  if(found EQUAL -1)
    message(SEND_ERROR "${relative}: the folder '${folder}' is not a layer (check_layers.cmake lists them)")
  endif()
  set(${out} ${found} PARENT_SCOPE)
  set(${folder_out} ${folder} PARENT_SCOPE)
endfunction()

string(REPLACE "|" " | " shown_layers "${layers}")
file(GLOB_RECURSE headers ${root}/*.cuh)
set(violations 0)
set(checked 0)
foreach(header IN LISTS headers)
  layer_of(${header} from from_folder)
  file(RELATIVE_PATH shown_from ${root} ${header})
  get_filename_component(directory ${header} DIRECTORY)
  # a tag holds traits and calls into a family: an algorithm in engines/ shows as length
  if(from_folder STREQUAL "engines" AND NOT shown_from MATCHES "^engines/(engine|catalog)\\.cuh$")
    file(READ ${header} text)
    string(REGEX MATCHALL "\n" newlines "${text}")
    list(LENGTH newlines line_count)
    if(line_count GREATER tag_lines_limit)
      message(SEND_ERROR "${shown_from}: ${line_count} lines; an engine's header is a tag of at most "
                         "${tag_lines_limit} lines, its algorithm belongs in its family's folder")
      math(EXPR violations "${violations} + 1")
    endif()
  endif()
  file(STRINGS ${header} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
  # Boost is <sparseperm/hana.cuh>'s alone: a program that does not include it needs no Boost
  if(NOT shown_from STREQUAL "hana.cuh" AND lines MATCHES "#[ \t]*include[ \t]*<boost/")
    message(SEND_ERROR "${shown_from}: includes Boost, which only hana.cuh may (the rest of the library needs no Boost)")
    math(EXPR violations "${violations} + 1")
  endif()
  foreach(line IN LISTS lines)
    if(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
      get_filename_component(target ${directory}/${CMAKE_MATCH_1} ABSOLUTE)
    elseif(line MATCHES "#[ \t]*include[ \t]*<(sparseperm/[^>]+)>")
      set(target ${INCLUDE_DIR}/${CMAKE_MATCH_1})
    else()
      continue()
    endif()
    math(EXPR checked "${checked} + 1")
    file(RELATIVE_PATH shown_to ${root} ${target})
    if(NOT EXISTS ${target} OR shown_to MATCHES "^\\.\\.")
      message(SEND_ERROR "${shown_from}: includes ${shown_to}, which is not a header of the library")
      math(EXPR violations "${violations} + 1")
      continue()
    endif()
    layer_of(${target} to to_folder)
    if(to GREATER from)
      message(SEND_ERROR "${shown_from}: includes ${shown_to}, a higher layer (layers, lowest first: "
                         "${shown_layers}; then the top level)")
      math(EXPR violations "${violations} + 1")
    elseif(to EQUAL from AND NOT to_folder STREQUAL from_folder)
      message(SEND_ERROR "${shown_from}: includes ${shown_to}, a sibling family (${from_folder} and ${to_folder} "
                         "share no code; what both need belongs in a lower layer)")
      math(EXPR violations "${violations} + 1")
    elseif(from_folder STREQUAL "engines" AND to_folder STREQUAL "engines" AND NOT shown_from STREQUAL
                                                                                 "engines/catalog.cuh"
           AND NOT shown_to STREQUAL "engines/engine.cuh")
      message(SEND_ERROR "${shown_from}: includes ${shown_to}, another engine's tag (a tag includes "
                         "engines/engine.cuh and lower layers; what two engines share belongs in a family)")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH headers count)
if(violations GREATER 0)
  message(FATAL_ERROR "${violations} violation(s) of the layers")
endif()
message(STATUS "layers: ${count} headers, ${checked} includes, none upward, none between siblings, tags only in engines/")
