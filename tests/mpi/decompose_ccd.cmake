# cmake -P script: the outputs of `clash run --decompose objects` beyond
# the pairs, under mpirun -n 2, against a one-rank run of the same cluttered
# scene (its objects turn and cross the ranks' cells: the report's
# ghosts > 0):
#   --ccd --contacts  the contacts CSV byte for byte (each rank finds the
#                     contacts of the pairs it reports, rank 0 writes them
#                     all), with > 0 contacts so that it could fail;
#   --steps-csv       a row per step, with the one-rank run's pairs;
#   --vtk             the same files (rank 0 writes the whole scene's states,
#                     from the scene's laws).
if(NOT HAVE_MPI OR NOT MPIRUN)
  message("SKIP: this build has no MPI (or mpirun is missing)")
  return() # (skipped: ctest reads the SKIP line; cmake_language(EXIT) needs CMake 3.29)
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(args run --preset cluttered --objects 120 --seed 3 --steps 12 --quiet --ccd)
execute_process(COMMAND ${CLASH} ${args} --threads 1 --contacts ${WORK}/ref.csv --steps-csv ${WORK}/ref_steps.csv
                        --vtk ${WORK}/ref_vtk RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "1-rank run failed: ${rc}")
endif()
file(STRINGS ${WORK}/ref.csv lines)
list(LENGTH lines nlines)
if(nlines LESS 2)
  message(FATAL_ERROR "the reference run found no contact; the comparison could not fail")
endif()
foreach(t 1 2)
  set(out ${WORK}/d2_t${t})
  execute_process(COMMAND ${MPIRUN} --oversubscribe -n 2 ${CLASH} ${args} --threads ${t} --decompose objects
                          --contacts ${out}.csv --steps-csv ${out}_steps.csv --vtk ${out}_vtk --report ${out}.yaml
                          RESULT_VARIABLE rc TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mpirun -n 2 --decompose objects --ccd (${t} threads) failed: ${rc}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/ref.csv ${out}.csv RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "mpirun -n 2 --decompose objects ${t} threads: ${out}.csv differs from the 1-rank contacts")
  endif()
  file(READ ${out}.yaml rep)
  if(NOT rep MATCHES "decomposition: {mode: objects, ranks: 2,[^\n]* ghosts: [1-9]")
    message(FATAL_ERROR "the report says no decomposed run with ghosts: the test does not test one")
  endif()
  # the steps CSV: its steps and their pairs (the last column) are the one-rank run's
  foreach(f ref_steps d2_t${t}_steps)
    file(STRINGS ${WORK}/${f}.csv rows)
    set(kept_${f} "")
    foreach(row ${rows})
      string(REGEX REPLACE "^([^,]*),.*,([^,]*)$" "\\1,\\2" row "${row}")
      list(APPEND kept_${f} "${row}")
    endforeach()
  endforeach()
  if(NOT kept_ref_steps STREQUAL kept_d2_t${t}_steps)
    message(FATAL_ERROR "--steps-csv: steps or pairs differ:\n${kept_ref_steps}\n${kept_d2_t${t}_steps}")
  endif()
  file(GLOB vtk RELATIVE ${WORK}/ref_vtk ${WORK}/ref_vtk/*)
  list(LENGTH vtk nvtk)
  if(nvtk LESS 2)
    message(FATAL_ERROR "the reference run wrote no VTK files")
  endif()
  foreach(v ${vtk})
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/ref_vtk/${v} ${out}_vtk/${v} RESULT_VARIABLE diff)
    if(NOT diff EQUAL 0)
      message(FATAL_ERROR "--vtk: ${out}_vtk/${v} differs from the 1-rank file")
    endif()
  endforeach()
  message(STATUS "ranks 2 --decompose objects --ccd threads ${t}: the same ${nlines} contact lines, steps and ${nvtk} VTK files")
endforeach()
