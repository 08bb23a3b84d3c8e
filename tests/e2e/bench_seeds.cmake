# Smoke tests of `clash bench seeds` (issue 16): the quick suite must write a
# CSV per experiment with a row per midphase that ran, rows of one scene
# agreeing on the pairs checksum, simulated misses (or NA and why) and the
# papers' claims in its YAML; a corrupted checksum must fail the suite
# (exit 1, nothing written) naming the midphase, and bad options exit 2.
foreach(mode quick fault)
  add_test(NAME bench_seeds_${mode}
           COMMAND ${CMAKE_COMMAND} -DCLASH=$<TARGET_FILE:clash_cli> -DWORK=${CMAKE_CURRENT_BINARY_DIR}/bench-seeds-${mode}
                   -DMODE=${mode} -P ${CMAKE_CURRENT_LIST_DIR}/bench_seeds_check.cmake)
  set_tests_properties(bench_seeds_${mode} PROPERTIES TIMEOUT 300)
endforeach()
