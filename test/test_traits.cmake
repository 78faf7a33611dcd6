# How CTest runs the tests (docs/development.md "Running the tests"): every recipe and GoogleTest
# binary goes through test/support/ctest_driver.pl (a skip is a skip: SKIP_RETURN_CODE 77, partial
# skips counted per test, test/skip-policy.txt), and gets its COST, PROCESSORS, RESOURCE_LOCK and
# LABELS from the one table below, by name, so a new recipe or binary needs no wiring of its own.

find_program(KLMS_PERL perl REQUIRED)
set(KLMS_CTEST_DRIVER ${KLMS_PERL} ${PROJECT_SOURCE_DIR}/test/support/ctest_driver.pl
    --record ${PROJECT_BINARY_DIR}/Testing/klms-skips --policy ${PROJECT_SOURCE_DIR}/test/skip-policy.txt)

# One row per rule, first match wins:  <name regex>  <COST>  <PROCESSORS>  <RESOURCE_LOCK|->  <LABELS|->
# COST: about the seconds a test takes in the release stage on 2 cores, from the order measured
# (ctest starts the costliest first; a fresh checkout has no CTestCostData.txt, so these are what
# it goes by; scripts/ci-timing.sh lists the slowest tests of a run to check them against).
# PROCESSORS 2: the test keeps both cores busy itself (many processes at once); ctest -j2 runs
# nothing beside it. RESOURCE_LOCK heavy: long process-heavy recipes with timing-bound steps (kills
# at instants, deadlines of real swtpm and etcd): never two of them at once, a light test may run beside.
# Labels: docs (runs no klms code and no OpenSSL: pure Perl over the tree; neither the sanitizer
# stage nor the OpenSSL 4 stage repeats it), engine (set by klms_unit_test: the code under test links no
# OpenSSL; OpenSSL there is at most the reference of a known answer: the OpenSSL 4 stage leaves it
# out), slow (the long ones, a minute or more on a quiet machine: `scripts/test.sh --quick` leaves them out).
set(KLMS_TEST_TRAITS
  "^recipe_(citations|layering|debian_archive|etcd_cluster|ci_timing)$  5   1  -      docs"
  "^recipe_reuse_crash_points$                               300  1  heavy  slow"
  "^recipe_reuse_keyfile$                                    150  1  -      slow"
  "^recipe_state_crash$                                      150  2  heavy  slow"
  "^recipe_reuse_concurrent$                                 120  2  heavy  slow"
  "^recipe_reuse_corruption$                                 120  1  heavy  slow"
  "^recipe_reuse_dup$                                         90  1  heavy  slow"
  "^recipe_reuse_xmss$                                        60  1  heavy  slow"
  "^recipe_witness_(rollback|crash_points)$                  100  1  heavy  slow"
  "^recipe_fleet(_faults)?$                                  100  1  heavy  slow"
  "^recipe_state_concurrency$                                 60  2  heavy  slow"
  "^recipe_(digests|cms)(_avx2)?$                             50  1  -      -"
  "^recipe_(fleet_ledger|bouncycastle)$                       40  1  -      slow"
  "^recipe_                                                   15  1  -      -"
  "^klms_lms_tests$                                           50  1  -      slow"
  "^klms_xmss_tests_kat$                                        8  1  -      -"
  "^klms_(evp_test|evp_test_avx2)$                            10  1  -      -"
  ".                                                           5  1  -      -")

# klms_test_traits(<test> [LABEL...]): the table's row for <test>, plus the labels given.
function(klms_test_traits name)
  foreach(row IN LISTS KLMS_TEST_TRAITS)
    separate_arguments(fields UNIX_COMMAND "${row}")
    list(GET fields 0 re)
    if(NOT name MATCHES "${re}")
      continue()
    endif()
    list(GET fields 1 cost)
    list(GET fields 2 processors)
    list(GET fields 3 lock)
    list(GET fields 4 labels)
    set(labels_all ${ARGN})
    if(NOT labels STREQUAL "-")
      string(REPLACE "," ";" labels "${labels}")
      list(APPEND labels_all ${labels})
    endif()
    set_tests_properties(${name} PROPERTIES COST ${cost} PROCESSORS ${processors} SKIP_RETURN_CODE 77)
    if(NOT lock STREQUAL "-")
      set_tests_properties(${name} PROPERTIES RESOURCE_LOCK ${lock})
    endif()
    if(labels_all)
      set_property(TEST ${name} APPEND PROPERTY LABELS ${labels_all})
    endif()
    return()
  endforeach()
endfunction()

# klms_gtest(<test> <target> [ARGS arg...] [ENV var=value...] [LABELS label...]): a GoogleTest
# binary as a CTest test, through the driver.
function(klms_gtest name target)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "ARGS;ENV;LABELS")
  add_test(NAME ${name} COMMAND ${KLMS_CTEST_DRIVER} --name ${name} gtest -- $<TARGET_FILE:${target}> ${arg_ARGS})
  if(arg_ENV)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${arg_ENV}")
  endif()
  klms_test_traits(${name} ${arg_LABELS})
endfunction()

# klms_recipe(<test> <file.t> [ENV var=value...]): a Perl recipe as a CTest test, through the driver
# (TAP::Parser, as prove runs it, with test/recipes/lib on @INC).
function(klms_recipe name file)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "ENV")
  add_test(NAME ${name} COMMAND ${KLMS_CTEST_DRIVER} --name ${name} tap ${file} -I ${PROJECT_SOURCE_DIR}/test/recipes/lib)
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${arg_ENV}" TIMEOUT 1800)
  klms_test_traits(${name})
endfunction()

# Whether `target` links OpenSSL's libcrypto, through its libraries' libraries.
function(klms_links_openssl target out)
  set(seen "")
  set(todo ${target})
  set(found FALSE)
  while(todo)
    list(POP_FRONT todo t)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" t "${t}")
    if(t IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${t})
    if(t MATCHES "^OpenSSL::")
      set(found TRUE)
      break()
    endif()
    if(TARGET ${t})
      get_target_property(type ${t} TYPE)
      get_target_property(libs ${t} LINK_LIBRARIES)
      if(libs)
        list(APPEND todo ${libs})
      endif()
      if(NOT type STREQUAL "INTERFACE_LIBRARY")
        get_target_property(ilibs ${t} INTERFACE_LINK_LIBRARIES)
        if(ilibs)
          list(APPEND todo ${ilibs})
        endif()
      endif()
    endif()
  endwhile()
  set(${out} ${found} PARENT_SCOPE)
endfunction()
