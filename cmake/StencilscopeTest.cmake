# stencilscope_test(NAME SOURCES ... [LIBS ...] [LABEL gpu|gui|"host;mpi"] [ENVIRONMENT VAR=value ...]): a GoogleTest executable
# whose tests CTest discovers, labelled host unless LABEL says otherwise. Included by
# the top-level CMakeLists.txt before the folders that add tests (tests/, and each
# model's folder sim/models/<name>/, which keeps its own tests).
find_package(GTest REQUIRED)
include(GoogleTest)

# A GPU test without a device calls GTEST_SKIP; gtest_discover_tests marks such
# tests skipped by itself (it sets SKIP_REGULAR_EXPRESSION).

function(stencilscope_test name)
  cmake_parse_arguments(T "" "RESOURCE_LOCK" "SOURCES;LIBS;ENVIRONMENT;LABEL" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main ${T_LIBS})
  target_compile_options(${name} PRIVATE -Wall -Wextra)
  set(labels host)
  if(T_LABEL)
    set(labels ${T_LABEL})
  endif()
  set(lock "")
  if(T_RESOURCE_LOCK)
    set(lock RESOURCE_LOCK ${T_RESOURCE_LOCK})
  endif()
  set(environment "")
  if(T_ENVIRONMENT)
    set(environment ENVIRONMENT "${T_ENVIRONMENT}")
  endif()
  # Several labels ("host;mpi") reach the discovered tests only with their separators escaped
  # through the three evaluations between here and the generated test file (CMake 3.25).
  string(REPLACE ";" "\\\\\\\\\\\\\\\\;" labels "${labels}")
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS "${labels}" ${lock} ${environment})
endfunction()

