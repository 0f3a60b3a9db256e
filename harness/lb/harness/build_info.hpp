#pragma once
//! Build facts baked in by CMake (configure time) and the git state (regenerated each build).

namespace lb::harness {
extern const char* const kNvccVersion;
extern const char* const kCudaFlags;
extern const char* const kCudaArchitectures;
extern const char* const kCxxCompiler;
extern const char* const kCxxFlags;
extern const char* const kBuildType;
const char* git_commit();
bool git_dirty();
}  // namespace lb::harness
