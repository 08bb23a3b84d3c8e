# MPI determinism tests (issue 6): `mpirun -n 2` and `mpirun -n 3 --oversubscribe`
# running `clash run ... --pairs` must write the 1-rank file byte for byte,
# for several schedules.  Skipped (77) when the build has no MPI or mpirun is missing.
find_program(CLASH_MPIRUN NAMES mpirun mpiexec)
foreach(n 2 3)
  add_test(NAME test_mpi_ranks${n}
           COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DMPIRUN=${CLASH_MPIRUN} -DRANKS=${n}
                   -DHAVE_MPI=${CLASH_HAVE_MPI} -DWORK=${CMAKE_CURRENT_BINARY_DIR}/mpi${n}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/mpi_compare.cmake)
  set_tests_properties(test_mpi_ranks${n} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 240
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
endforeach()
