# The documents say what the code does (tests/packaging/docs_test.sh):
#   docs_bench_csv  every bench CSV column is documented in bench/README.md
#   docs_results    bench/RESULTS.md: results with commands and dates only
#   docs_reference  every scene-file key and command option has a line in
#                   src/cli/REFERENCE.md, and every option is in `clash --help`
foreach(m IN ITEMS bench-csv results)
  string(REPLACE "-" "_" n "${m}")
  add_test(NAME docs_${n} COMMAND ${CMAKE_CURRENT_LIST_DIR}/docs_test.sh ${m} ${PROJECT_SOURCE_DIR})
  set_tests_properties(docs_${n} PROPERTIES TIMEOUT 60)
endforeach()
add_test(NAME docs_reference
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/docs_test.sh reference ${PROJECT_SOURCE_DIR} $<TARGET_FILE:clash_cli>)
set_tests_properties(docs_reference PROPERTIES TIMEOUT 60)
