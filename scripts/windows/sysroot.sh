#!/usr/bin/env bash
# Cross-builds cosim's compiled dependencies for Windows (mingw-w64, static, Release) from
# Debian's own source packages, into a sysroot cached under $COSIM_WINDOWS_CACHE (default
# ~/.cache/cosim-windows). The cache key is the Debian source versions (those of the host's
# -dev packages, so Linux and Windows builds use the same releases), the compiler and this
# script's build part: a second run with the same key only redoes the header-only links.
# Prints the sysroot on stdout.
#
#   protobuf   libprotobuf only (the host's protoc, same version, generates the code)
#   pugixml    static library
#   sundials   IDA with its serial vector, dense matrix and dense linear solver
#   googletest gtest and gmock
#   Boost, Eigen, CLI11, nlohmann-json: header-only, linked in from the host (only their own folders)
#
# Needs: the packages scripts/windows/build.sh installs.
set -euo pipefail
script=$(readlink -f "${BASH_SOURCE[0]}")
cache=${COSIM_WINDOWS_CACHE:-$HOME/.cache/cosim-windows}
cxx=x86_64-w64-mingw32-g++-posix
toolchain=$(cd "$(dirname "$script")/../../cmake/toolchains" && pwd)/mingw-w64.cmake

# Source package <- the host binary package whose source version it must match.
declare -A host_package=([protobuf]=libprotobuf-dev [pugixml]=libpugixml-dev
                         [sundials]=libsundials-dev [googletest]=googletest)
sources=(protobuf pugixml sundials googletest)
declare -A version
for s in "${sources[@]}"; do
  version[$s]=$(dpkg-query -W -f='${source:Version}' "${host_package[$s]}")
done
# The key covers the script up to the header-only section, which is redone on every run (it
# only writes links and small CMake files): adding a header-only library rebuilds nothing.
key=$( { for s in "${sources[@]}"; do echo "$s=${version[$s]}"; done
         "$cxx" --version | head -1; sed '/^# --- header-only libraries/,$d' "$script" | sha256sum; } |
       sha256sum | cut -c1-16)
sysroot=$cache/sysroot-$key
log() { echo "windows/sysroot: $*" >&2; }

if [ ! -f "$sysroot/.complete" ]; then
log "building the dependency sysroot $sysroot (once per set of versions)"
work=$cache/work-$key
rm -rf "$work" "$sysroot"
mkdir -p "$work" "$sysroot"

# --- Debian source packages, through a private apt state (the system's lists stay as they are)
state=$cache/apt
mkdir -p "$state/parts" "$state/lists/partial" "$state/cache/archives/partial"
uris() { sed -n "s/^URIs: *//p" /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep -m1 "$1\$" || echo "http://deb.debian.org/$1"; }
cat >"$state/parts/src.sources" <<SOURCES
Types: deb-src
URIs: $(uris debian)
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: $(uris debian-security)
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
apt=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$state/parts"
     -o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o APT::Sandbox::User=root)
apt-get "${apt[@]}" -qq update
cd "$work"
for s in "${sources[@]}"; do
  log "source $s ${version[$s]}"
  apt-get "${apt[@]}" -qq source "$s=${version[$s]}" >/dev/null 2>&1 ||
    { log "error: apt-get source $s=${version[$s]} failed"; exit 1; }
done
src_dir() { find "$work" -mindepth 1 -maxdepth 1 -type d -name "$1-*" | head -1; }

# --- cross builds
build() {  # build NAME SOURCE_DIR [cmake options...]
  local name=$1 dir=$2
  shift 2
  log "building $name"
  cmake -S "$dir" -B "$work/build-$name" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCOSIM_WINDOWS_SYSROOT="$sysroot" \
    -DCMAKE_INSTALL_PREFIX="$sysroot" -DBUILD_SHARED_LIBS=OFF "$@" >"$work/$name.log" 2>&1 &&
  cmake --build "$work/build-$name" -j2 >>"$work/$name.log" 2>&1 &&
  cmake --install "$work/build-$name" >>"$work/$name.log" 2>&1 ||
    { tail -30 "$work/$name.log" >&2; log "error: $name failed; log: $work/$name.log"; exit 1; }
}

protobuf_src=$(src_dir protobuf)
[ -f "$protobuf_src/CMakeLists.txt" ] || protobuf_src=$protobuf_src/cmake  # 3.21 keeps it in cmake/
build protobuf "$protobuf_src" -Dprotobuf_BUILD_TESTS=OFF -Dprotobuf_BUILD_PROTOC_BINARIES=OFF \
  -Dprotobuf_BUILD_LIBPROTOC=OFF -Dprotobuf_WITH_ZLIB=OFF -Dprotobuf_BUILD_EXAMPLES=OFF
build pugixml "$(src_dir pugixml)" -DPUGIXML_BUILD_TESTS=OFF
build sundials "$(src_dir sundials)" -DBUILD_STATIC_LIBS=ON -DBUILD_IDA=ON -DBUILD_IDAS=OFF \
  -DBUILD_ARKODE=OFF -DBUILD_CVODE=OFF -DBUILD_CVODES=OFF -DBUILD_KINSOL=OFF \
  -DEXAMPLES_ENABLE_C=OFF -DEXAMPLES_ENABLE_CXX=OFF -DEXAMPLES_INSTALL=OFF \
  -DBUILD_FORTRAN_MODULE_INTERFACE=OFF -DSUNDIALS_BUILD_WITH_MONITORING=OFF
build googletest "$(src_dir googletest)" -DBUILD_GMOCK=ON -DINSTALL_GTEST=ON

{ for s in "${sources[@]}"; do echo "$s ${version[$s]}"; done; } >"$sysroot/VERSIONS"
touch "$sysroot/.complete"
rm -rf "$work"
log "sysroot ready"
fi

# --- header-only libraries: their own folders only (adding /usr/include would mix glibc's
# headers into a Windows build), with CMake package files pointing at the sysroot.
mkdir -p "$sysroot/include" "$sysroot/lib/cmake/Eigen3" "$sysroot/lib/cmake/CLI11" "$sysroot/lib/cmake/nlohmann_json"
ln -sfn /usr/include/boost "$sysroot/include/boost"
ln -sfn /usr/include/eigen3 "$sysroot/include/eigen3"
ln -sfn /usr/include/CLI "$sysroot/include/CLI"
ln -sfn /usr/include/nlohmann "$sysroot/include/nlohmann"
eigen_version=$(sed -n 's/.*PACKAGE_VERSION "\(.*\)".*/\1/p' /usr/share/eigen3/cmake/Eigen3ConfigVersion.cmake | head -1)
cli11_version=$(sed -n 's/.*PACKAGE_VERSION "\(.*\)".*/\1/p' /usr/share/cmake/CLI11/CLI11ConfigVersion.cmake | head -1)
nlohmann_version=$(sed -n 's/^#define NLOHMANN_JSON_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
                   /usr/include/nlohmann/detail/abi_macros.hpp | paste -sd. -)
header_only_package() {  # NAME TARGET INCLUDE_DIR VERSION
  cat >"$sysroot/lib/cmake/$1/$1Config.cmake" <<CONFIG
# Written by scripts/windows/sysroot.sh: header-only $1 from the host, for the mingw build.
if(NOT TARGET $2)
  add_library($2 INTERFACE IMPORTED)
  set_target_properties($2 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "$3")
endif()
CONFIG
  cat >"$sysroot/lib/cmake/$1/$1ConfigVersion.cmake" <<VERSION
set(PACKAGE_VERSION "$4")
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
VERSION
}
header_only_package Eigen3 Eigen3::Eigen "$sysroot/include/eigen3" "$eigen_version"
header_only_package CLI11 CLI11::CLI11 "$sysroot/include" "$cli11_version"
header_only_package nlohmann_json nlohmann_json::nlohmann_json "$sysroot/include" "$nlohmann_version"
echo "$sysroot"
