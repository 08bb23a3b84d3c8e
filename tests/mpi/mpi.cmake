# MPI tests that are cmake -P scripts (included from tests/CMakeLists.txt).
# Determinism (issue 6): `mpirun -n 2` and `mpirun -n 3 --oversubscribe`
# running `clash run ... --pairs` must write the 1-rank file byte for byte,
# for several schedules.  Skipped (a SKIP: line) when the build has no MPI or mpirun is missing.
foreach(n 2 3)
  add_test(NAME test_mpi_ranks${n}
           COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DMPIRUN=${CLASH_MPIRUN} -DRANKS=${n}
                   -DHAVE_MPI=${CLASH_HAVE_MPI} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/mpi${n}
                   -P ${CMAKE_CURRENT_LIST_DIR}/mpi_compare.cmake)
  set_tests_properties(test_mpi_ranks${n} PROPERTIES SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "SKIP: " TIMEOUT 240 RESOURCE_LOCK mpirun
    ENVIRONMENT "${CLASH_MPI_ENV}")
endforeach()

# Replicated ranks share the work: on 2 and 3 ranks, every
# schedule, the ranks' S5 tests (the report's replicated_ranks lines) add up
# to the one-rank count, no rank tests over 60 % (2 ranks) or 45 % (3 ranks)
# of them, and the pairs are the one-rank file's.
foreach(n 2 3)
  if(n EQUAL 2)
    set(limit 60)
  else()
    set(limit 45)
  endif()
  add_test(NAME test_mpi_share${n}
           COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DMPIRUN=${CLASH_MPIRUN} -DRANKS=${n}
                   -DLIMIT=${limit} -DHAVE_MPI=${CLASH_HAVE_MPI} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/mpi_share${n}
                   -P ${CMAKE_CURRENT_LIST_DIR}/mpi_share.cmake)
  set_tests_properties(test_mpi_share${n} PROPERTIES SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "SKIP: " TIMEOUT 240
    RESOURCE_LOCK mpirun ENVIRONMENT "${CLASH_MPI_ENV}")
endforeach()

# The weak-scaling study's table, small (issue 18): both rows, the work per
# worker fixed, the wait split and the control runs.
add_test(NAME test_mpi_weak_bench
         COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DMPIRUN=${CLASH_MPIRUN}
                 -DHAVE_MPI=${CLASH_HAVE_MPI} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/weak_bench
                 -P ${CMAKE_CURRENT_LIST_DIR}/weak_bench.cmake)
set_tests_properties(test_mpi_weak_bench PROPERTIES SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "SKIP: " TIMEOUT 240 RESOURCE_LOCK mpirun
  ENVIRONMENT "${CLASH_MPI_ENV}")

# Exact CCD (issue 15): the contacts CSV of mpirun -n 1 and -n 2 equals the
# one-rank file, for 1 and 2 threads and several schedules.
foreach(n 1 2)
  add_test(NAME test_ccd_mpi_ranks${n}
           COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DMPIRUN=${CLASH_MPIRUN} -DRANKS=${n}
                   -DHAVE_MPI=${CLASH_HAVE_MPI} -DDATA=${CLASH_DATA_DIR} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/ccd_mpi${n}
                   -P ${CMAKE_CURRENT_LIST_DIR}/ccd_mpi_compare.cmake)
  set_tests_properties(test_ccd_mpi_ranks${n} PROPERTIES SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "SKIP: " TIMEOUT 600 RESOURCE_LOCK mpirun
    ENVIRONMENT "${CLASH_MPI_ENV}")
endforeach()

# The MPI host programs (test_mpi_split.c, test_mpi_decomposed.c) are test
# files: tests/CMakeLists.txt registers them with their rank counts.

# Spatial decomposition (issue 18): `--decompose objects` on 1, 2, 4 and 8
# ranks (oversubscribed) writes the one-rank replicated pairs file, for a
# rigid cluttered scene and a deforming frames scene (tests/common/make_frames.c).
add_executable(make_frames ${CMAKE_CURRENT_LIST_DIR}/../common/make_frames.c)
target_compile_options(make_frames PRIVATE ${CLASH_WARN})
target_include_directories(make_frames PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR})
target_link_libraries(make_frames PRIVATE clash_static m)
foreach(n 1 2 4 8)
  add_test(NAME test_mpi_decompose${n}
           COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DMPIRUN=${CLASH_MPIRUN} -DRANKS=${n}
                   -DMAKE_FRAMES=$<TARGET_FILE:make_frames>
                   -DHAVE_MPI=${CLASH_HAVE_MPI} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/decompose${n}
                   -P ${CMAKE_CURRENT_LIST_DIR}/decompose_compare.cmake)
  set_tests_properties(test_mpi_decompose${n} PROPERTIES SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "SKIP: " TIMEOUT 240 RESOURCE_LOCK mpirun
    ENVIRONMENT "${CLASH_MPI_ENV}")
endforeach()

# The decomposed run's other outputs (issue 50): under mpirun -n 2,
# `--decompose objects --ccd --contacts` writes the one-rank contacts CSV,
# and --steps-csv and --vtk the one-rank run's steps and files.
add_test(NAME test_mpi_decompose_ccd
         COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DMPIRUN=${CLASH_MPIRUN}
                 -DHAVE_MPI=${CLASH_HAVE_MPI} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/decompose_ccd
                 -P ${CMAKE_CURRENT_LIST_DIR}/decompose_ccd.cmake)
set_tests_properties(test_mpi_decompose_ccd PROPERTIES SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "SKIP: " TIMEOUT 240
  RESOURCE_LOCK mpirun ENVIRONMENT "${CLASH_MPI_ENV}")
