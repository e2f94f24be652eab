# cmake --install puts the public headers, libepifuse.a and an epifuseConfig.cmake (with its
# version file) into the prefix. A C++ project then does find_package(epifuse) and links
# epifuse::epifuse; tests/install builds such a project against an installed copy.
# The CUTLASS-level header (epifuse/sm90/gemm_custom.cuh) also needs CUTLASS 4.2 on the
# consumer's include path; the rest of the API needs only the CUDA runtime and cuBLASLt.
include(CMakePackageConfigHelpers)

set(EPIFUSE_CMAKE_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/epifuse")
install(TARGETS epifuse EXPORT epifuseTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(DIRECTORY include/epifuse DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(EXPORT epifuseTargets NAMESPACE epifuse:: DESTINATION "${EPIFUSE_CMAKE_INSTALL_DIR}")
configure_package_config_file(cmake/epifuseConfig.cmake.in "${PROJECT_BINARY_DIR}/epifuseConfig.cmake"
                              INSTALL_DESTINATION "${EPIFUSE_CMAKE_INSTALL_DIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/epifuseConfigVersion.cmake"
                                 VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/epifuseConfig.cmake" "${PROJECT_BINARY_DIR}/epifuseConfigVersion.cmake"
        DESTINATION "${EPIFUSE_CMAKE_INSTALL_DIR}")
