# The job scripts in jobs/ (included from tests/CMakeLists.txt):
#   jobs_shellcheck  every script passes shellcheck (skipped when shellcheck
#                    is not installed: apt-get install shellcheck)
#   jobs_dry_run     every script's --dry-run prints the commands it would
#                    run, and a tiny real study goes through study.sh and
#                    collect.sh into runs.csv and scaling.csv
add_test(NAME jobs_shellcheck
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/jobs_test.sh shellcheck ${PROJECT_SOURCE_DIR}/jobs)
add_test(NAME jobs_dry_run
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/jobs_test.sh dry-run ${PROJECT_SOURCE_DIR}/jobs $<TARGET_FILE:clash_cli>
          ${CMAKE_CURRENT_BINARY_DIR}/jobs-work)
set_tests_properties(jobs_shellcheck jobs_dry_run PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
